// Adventure Table's narrator in the browser: the offer sends the quiet time
// in milliseconds and names the model it will spend; the status shows the
// state, the stuck error only to those who direct it, Retry instead of Act
// now when stuck, Resume when paused, and the tokens only when asked.
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import errorsEn from '../src/i18n/errors.en.json';
import { en } from '../src/i18n/en';
import { I18nProvider } from '../src/i18n/I18nProvider';
import type { NarratorView } from '../src/table/api';
import { NarratorOffer, NarratorStatus } from '../src/table/narrator';
import { callsTo, json, resetEachTest, stubServer } from './fixtures';

resetEachTest();

const wrap = (ui: ReactNode) =>
  render(
    <I18nProvider>
      <MemoryRouter>{ui}</MemoryRouter>
    </I18nProvider>,
  );

const narrator = (over: Partial<NarratorView> = {}): NarratorView => ({
  seat_id: 5,
  grant_id: 50,
  role: 'dm',
  origin: 'dm',
  may_direct: true,
  may_take_back: true,
  state: 'idle',
  paused: false,
  last_error: '',
  debounce_ms: 4000,
  max_tool_calls: 8,
  steps: 3,
  prompt_tokens: 1200,
  last_step_tokens: 410,
  completion_tokens: 90,
  updated_at: '2025-01-01T10:00:00Z',
  ...over,
});

const settings = (over: Record<string, unknown> = {}) => ({
  base_url: 'http://127.0.0.1:11434/v1',
  model: 'qwen3',
  api_key_set: false,
  context_budget: 8000,
  max_output_tokens: 600,
  temperature: 0.8,
  top_p: 0.95,
  token_ratio: 1,
  embedding_model: '',
  memory_top_k: 4,
  memory_capacity: 200,
  reasoning_effort: '',
  ...over,
});

describe('NarratorOffer', () => {
  it('gives the DM seat with the quiet time in milliseconds and names the model it spends', async () => {
    stubServer({
      'GET /api/solo/settings': () => json(200, settings()),
      'POST /api/seats/5/narrator': () => json(201, narrator()),
    });
    const onSeated = vi.fn();
    wrap(<NarratorOffer seatId={5} kind="dm" onSeated={onSeated} />);
    await screen.findByText(/qwen3 at 127\.0\.0\.1:11434/);
    expect(screen.getByRole('link', { name: en['narrator.model.link'] }).getAttribute('href')).toBe('/solo#model-settings');
    fireEvent.change(screen.getByLabelText(en['narrator.quiet.label']), { target: { value: '2.5' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['narrator.offer.dm'] })));
    expect(callsTo('POST', '/api/seats/5/narrator').map((c) => c.body)).toEqual([{ debounce_ms: 2500 }]);
    expect(onSeated).toHaveBeenCalledOnce();
  });

  it('a companion offer opens from one button; the demo narrator is named when it serves', async () => {
    stubServer({
      'GET /api/solo/settings': () =>
        json(200, settings({ demo: { available: true, in_use: true, models: ['m'], daily_tokens: 1000, used_today: 400 } })),
    });
    wrap(<NarratorOffer seatId={7} kind="companion" onSeated={() => {}} />);
    fireEvent.click(screen.getByRole('button', { name: en['narrator.offer.companion'] }));
    await screen.findByText(/free demo narrator \(600 tokens left today\)/);
    expect(screen.getByRole('button', { name: en['narrator.offer.companionSubmit'] })).toBeTruthy();
  });
});

describe('NarratorStatus', () => {
  const status = (n: NarratorView, over: Partial<Parameters<typeof NarratorStatus>[0]> = {}) =>
    wrap(
      <NarratorStatus
        narrator={n}
        name="DM"
        canControl
        canTakeBack
        showCosts
        lobby={false}
        onChanged={() => {}}
        {...over}
      />,
    );

  it('stuck: the error from the errors map with the model settings link, and Retry in place of Act now', async () => {
    stubServer({ 'POST /api/seats/5/narrator/control': () => json(200, narrator()) });
    status(narrator({ state: 'stuck', last_error: 'provider_unavailable' }));
    const box = screen.getByTestId('narrator-status');
    expect(within(box).getByTestId('narrator-state').textContent).toBe(en['narrator.state.stuck']);
    expect(within(box).getByTestId('narrator-error').textContent).toContain(errorsEn.provider_unavailable);
    expect(within(box).getByRole('link', { name: en['modelSettings.link'] })).toBeTruthy();
    expect(within(box).queryByRole('button', { name: en['narrator.actNow'] })).toBeNull();
    await act(async () => fireEvent.click(within(box).getByRole('button', { name: en['narrator.retry'] })));
    expect(callsTo('POST', '/api/seats/5/narrator/control').map((c) => c.body)).toEqual([{ action: 'act_now' }]);
  });

  it('names the players its open window still waits for', () => {
    status(narrator({ waiting_for: [2, 3] }), { waitingFor: ['Ana', 'Bob'] });
    expect(screen.getByTestId('narrator-state').textContent).toBe('waiting for Ana, Bob');
  });

  it('a companion for a free seat without a character plays one of the owner’s characters', async () => {
    stubServer({
      'GET /api/solo/settings': () => json(200, settings()),
      'GET /api/characters': () => json(200, { characters: [{ id: 41, name: 'Brom' }] }),
      'POST /api/seats/7/narrator': () => json(201, narrator({ seat_id: 7, role: 'player', origin: 'companion' })),
    });
    wrap(<NarratorOffer seatId={7} kind="companion" pickCharacter onSeated={() => {}} />);
    fireEvent.click(screen.getByRole('button', { name: en['narrator.offer.companion'] }));
    const submit = screen.getByRole('button', { name: en['narrator.offer.companionSubmit'] }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    await screen.findByRole('option', { name: 'Brom' });
    fireEvent.change(screen.getByTestId('narrator-companion-character'), { target: { value: '41' } });
    await act(async () => fireEvent.click(submit));
    expect(callsTo('POST', '/api/seats/7/narrator').map((c) => c.body)).toEqual([{ debounce_ms: 4000, character_id: 41 }]);
  });

  it('for the table: the state only, no error text, no controls, no costs', () => {
    status(narrator({ state: 'stuck', last_error: 'provider_unavailable' }), { canControl: false, canTakeBack: false, showCosts: false });
    const box = screen.getByTestId('narrator-status');
    expect(within(box).getByTestId('narrator-state').textContent).toBe(en['narrator.state.stuck']);
    expect(within(box).queryByTestId('narrator-error')).toBeNull();
    expect(within(box).queryAllByRole('button')).toEqual([]);
    expect(within(box).queryByTestId('narrator-tokens')).toBeNull();
  });

  it('paused: Resume; thinking: Act now waits; the tokens for the owner', async () => {
    stubServer({ 'POST /api/seats/5/narrator/control': () => json(200, narrator()) });
    const { unmount } = status(narrator({ state: 'paused', paused: true }));
    expect(screen.getByTestId('narrator-tokens').textContent).toBe('Steps this session: 3 · tokens 1,200 prompt + 90 completion · last step 410');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['narrator.resume'] })));
    expect(callsTo('POST', '/api/seats/5/narrator/control').map((c) => c.body)).toEqual([{ action: 'resume' }]);
    unmount();
    status(narrator({ state: 'thinking' }));
    expect(screen.getByTestId('narrator-state').textContent).toBe(en['narrator.state.thinking']);
    expect((screen.getByRole('button', { name: en['narrator.actNow'] }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: en['narrator.pause'] }) as HTMLButtonElement).disabled).toBe(false);
  });
});
