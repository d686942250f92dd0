// The narrator settings when the server offers a demo narrator: the tokens
// left today, a model picker limited to the whitelist, and nothing of it
// for a player with an endpoint of their own.
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import { format } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';
import { resetIdentity } from '../src/identity';
import type { ProviderSettingsView } from '../src/solo/api';
import { demoModel } from '../src/solo/ProviderSettings';
import { callsTo, json, narratorSettings, renderApp, stubServer } from './fixtures';

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const DEMO_USER: ProviderSettingsView = narratorSettings({
  model: 'llama3.2',
  demo: { available: true, in_use: true, models: ['demo-small', 'demo-large'], daily_tokens: 20000, used_today: 4500 },
});

function stubSolo(settings: ProviderSettingsView) {
  return stubServer({
    'GET /api/scenarios': () => json(200, { scenarios: [] }),
    'GET /api/adventures': () => json(200, { adventures: [] }),
    'GET /api/solo/settings': () => json(200, settings),
    'PUT /api/solo/settings': (body) => {
      const { api_key, ...rest } = body as Record<string, unknown>;
      const ownKey = typeof api_key === 'string' && api_key !== '';
      return json(200, {
        ...settings,
        ...rest,
        api_key_set: ownKey,
        demo: { ...settings.demo!, in_use: !ownKey },
      });
    },
  });
}

describe('narrator settings: the demo narrator', () => {
  it('shows the tokens left today and offers only the whitelist', async () => {
    stubSolo(DEMO_USER);
    renderApp('/solo');
    const status = await screen.findByTestId('demo-status');
    expect(status.textContent).toBe(format(en['solo.provider.demoInUse'], { left: 15500, total: 20000 }));
    expect(status.textContent).toBe('Using the demo narrator (15500 of 20000 tokens left today).');

    const model = screen.getByLabelText(en['solo.provider.model']) as HTMLSelectElement;
    expect(model.tagName).toBe('SELECT');
    expect(Array.from(model.options).map((o) => o.value)).toEqual(['demo-small', 'demo-large']);
    // llama3.2 is not on the whitelist: the demo's default is what plays
    expect(model.value).toBe('demo-small');

    fireEvent.change(model, { target: { value: 'demo-large' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.provider.save'] }));
    await waitFor(() => expect(callsTo('PUT', '/api/solo/settings')).toHaveLength(1));
    expect(callsTo('PUT', '/api/solo/settings')[0]!.body).toMatchObject({ model: 'demo-large', base_url: DEMO_USER.base_url });
    expect(callsTo('PUT', '/api/solo/settings')[0]!.body).not.toHaveProperty('api_key');
  });

  it('saves the default model when the stored one is off the whitelist', async () => {
    stubSolo(DEMO_USER);
    renderApp('/solo');
    await screen.findByTestId('demo-status');
    fireEvent.click(screen.getByRole('button', { name: en['solo.provider.save'] }));
    await waitFor(() => expect(callsTo('PUT', '/api/solo/settings')).toHaveLength(1));
    expect((callsTo('PUT', '/api/solo/settings')[0]!.body as { model: string }).model).toBe('demo-small');
  });

  it('gives back the free-text model once the player has a key of their own', async () => {
    stubSolo(DEMO_USER);
    renderApp('/solo');
    await screen.findByTestId('demo-status');
    fireEvent.change(screen.getByLabelText(en['solo.provider.apiKey']), { target: { value: 'sk-own-key' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.provider.save'] }));
    await waitFor(() => expect(screen.getByTestId('demo-status').textContent).toBe(en['solo.provider.demoAvailable']));
    expect((screen.getByLabelText(en['solo.provider.model']) as HTMLElement).tagName).toBe('INPUT');
    expect(document.body.innerHTML).not.toContain('sk-own-key');
  });

  it('says nothing of a demo the server does not offer', async () => {
    stubSolo({ ...DEMO_USER, demo: { available: false, in_use: false, models: [], daily_tokens: 0, used_today: 0 } });
    renderApp('/solo');
    const model = (await screen.findByLabelText(en['solo.provider.model'])) as HTMLInputElement;
    expect(model.tagName).toBe('INPUT');
    expect(model.value).toBe('llama3.2');
    expect(screen.queryByTestId('demo-status')).toBeNull();
  });

  it('never shows less than zero tokens left, and speaks Traditional Chinese', async () => {
    stubSolo({ ...DEMO_USER, demo: { ...DEMO_USER.demo!, used_today: 25000 } });
    renderApp('/solo');
    expect((await screen.findByTestId('demo-status')).textContent).toBe(
      format(en['solo.provider.demoInUse'], { left: 0, total: 20000 }),
    );
    expect(zhTW['solo.provider.demoInUse']).toContain('{left}');
    expect(zhTW['solo.provider.demoInUse']).toContain('{total}');
  });
});

describe('demoModel', () => {
  it('keeps a whitelisted choice and falls back to the first', () => {
    expect(demoModel(['a', 'b'], 'b')).toBe('b');
    expect(demoModel(['a', 'b'], 'gpt-5')).toBe('a');
  });
});
