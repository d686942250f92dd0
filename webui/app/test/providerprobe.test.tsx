// The narrator settings' probes: "Load models" fills a picker beside the
// model field (typing stays possible) and shows a context window the
// endpoint gives; "Test connection" shows the latency or the translated
// error; both send the form's unsaved values and never a key nobody typed.
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en';
import { format } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';
import type { ProviderSettingsView } from '../src/solo/api';
import { apiError, callsTo, json, narratorSettings, renderApp, resetEachTest, stubServer, type Handler } from './fixtures';

resetEachTest();

const SETTINGS: ProviderSettingsView = narratorSettings({ model: 'llama3.2', api_key_set: true });

function stub(routes: Record<string, Handler>) {
  return stubServer({
    'GET /api/scenarios': () => json(200, { scenarios: [] }),
    'GET /api/adventures': () => json(200, { adventures: [] }),
    'GET /api/solo/settings': () => json(200, SETTINGS),
    ...routes,
  });
}

describe('narrator settings: model list and connection test', () => {
  it('loads the models into a picker and shows the chosen one’s context window', async () => {
    stub({
      'POST /api/solo/settings/models': () =>
        json(200, { demo: false, models: [{ id: 'big', context_length: 32768 }, { id: 'small' }] }),
    });
    renderApp('/solo');
    const baseUrl = await screen.findByLabelText(en['solo.provider.baseUrl']);
    fireEvent.change(baseUrl, { target: { value: 'https://models.example/v1' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.provider.loadModels'] }));

    const picker = (await screen.findByLabelText(en['solo.provider.modelList'])) as HTMLSelectElement;
    expect(Array.from(picker.options).map((o) => o.value)).toEqual(['', 'big', 'small']);
    expect(screen.getByTestId('probe-status').textContent).toBe(format(en['solo.provider.modelsFound'], { count: 2 }));
    // the unsaved base URL is what was asked, and no key field: the stored key is used
    expect(callsTo('POST', '/api/solo/settings/models')[0]!.body).toEqual({
      base_url: 'https://models.example/v1',
      model: 'llama3.2',
    });

    fireEvent.change(picker, { target: { value: 'big' } });
    const model = screen.getByLabelText(en['solo.provider.model']) as HTMLInputElement;
    expect(model.value).toBe('big');
    expect(screen.getByTestId('context-length').textContent).toBe('Context window: 32768 tokens.');

    // free text stays possible; an unlisted model shows no context window
    fireEvent.change(model, { target: { value: 'my-own-model' } });
    expect(picker.value).toBe('');
    expect(screen.queryByTestId('context-length')).toBeNull();
  });

  it('tests the connection with the typed key and shows the latency', async () => {
    stub({ 'POST /api/solo/settings/test': () => json(200, { model: 'llama3.2:latest', latency_ms: 42, demo: false }) });
    renderApp('/solo');
    fireEvent.change(await screen.findByLabelText(en['solo.provider.apiKey']), { target: { value: 'sk-typed' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.provider.testConnection'] }));
    await waitFor(() =>
      expect(screen.getByTestId('probe-status').textContent).toBe('Connected: llama3.2:latest answered in 42 ms.'),
    );
    expect(callsTo('POST', '/api/solo/settings/test')[0]!.body).toEqual({
      base_url: SETTINGS.base_url,
      model: 'llama3.2',
      api_key: 'sk-typed',
    });
  });

  it('shows a failed test as the translated error', async () => {
    stub({ 'POST /api/solo/settings/test': () => apiError(503, 'provider_auth_failed') });
    renderApp('/solo');
    fireEvent.click(await screen.findByRole('button', { name: en['solo.provider.testConnection'] }));
    expect((await screen.findByRole('alert')).textContent).toContain(
      (await import('../src/i18n/errors.en.json')).default['provider_auth_failed'],
    );
  });

  it('says when the endpoint does not know the model, in Traditional Chinese too', async () => {
    localStorage.setItem('adventure-table.language', 'zh-TW');
    stub({
      'POST /api/solo/settings/test': () => apiError(503, 'provider_rejected', { reason: 'model_not_found', model: 'nope' }),
    });
    renderApp('/solo');
    fireEvent.click(await screen.findByRole('button', { name: zhTW['solo.provider.testConnection'] }));
    expect((await screen.findByTestId('probe-error')).textContent).toBe(zhTW['solo.provider.modelNotFound']);
  });
});
