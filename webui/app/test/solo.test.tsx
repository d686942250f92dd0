// The solo area against a fake server at the fetch boundary: the play screen
// (a streamed turn, chips, takes, fork, branches, insights, refusals), the
// narrator settings form and the scenario editor.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import errorsEn from '../src/i18n/errors.en.json';
import { format } from '../src/i18n/messages';
import { resetIdentity } from '../src/identity';
import type {
  ActionView,
  AdventurePage,
  AdventureView,
  ProviderSettingsView,
  ScenarioView,
  ScriptConsoleEntry,
} from '../src/solo/api';
import { apiError, calls, callsTo, json, narratorSettings, pickMore, renderApp, scenarioView, storyNode as node, stubServer, T0 } from './fixtures';

// ---- fixtures ------------------------------------------------------------


function adventure(over: Partial<AdventureView> = {}): AdventureView {
  return {
    id: 7,
    scenario_id: 5,
    title: 'The Old Mill',
    authors_note: '',
    persona_name: 'Ann',
    persona_pronouns: 'she/her',
    persona_desc: '',
    stat_schema: {
      'player.hp': { min: 0, max: 100, initial: 100, bands: [[0, 30, 'badly hurt'], [30, 70, 'wounded'], [70, 100, 'healthy']] },
      'npc.gwen.trust': { min: 0, max: 100, initial: 50 },
      'player.gold': { min: 0, max: 999, initial: 5, cooldown: 3 },
    },
    world_state: { 'player.hp': 100 },
    state_line: 'gold 5/999, trust 50/100, hp 100/100 (healthy)',
    head_branch_id: 1,
    head_depth: 0,
    turn_in_progress: false,
    created_at: T0,
    updated_at: T0,
    ...over,
  };
}

const OPENING = node(1, 'opening', 'The mill wheel creaks in the dark.');

function page(story: ActionView[] = [OPENING], over: Partial<AdventureView> = {}): AdventurePage {
  const last = story[story.length - 1];
  return { adventure: adventure({ head_depth: last?.depth ?? 0, ...over }), story, has_more: false };
}

const branches = (head = 1) => ({
  branches: [
    { id: 1, name: '', parent_branch_id: null, fork_depth: 0, tip_depth: 4, is_head: head === 1, created_at: T0 },
    { id: 2, name: '', parent_branch_id: 1, fork_depth: 2, tip_depth: 2, is_head: head === 2, created_at: T0 },
  ],
});

// sse is a text/event-stream answer the test writes into piece by piece.
function sse() {
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      ctrl = c;
    },
  });
  const enc = new TextEncoder();
  return {
    response: new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    raw: (s: string) => act(async () => ctrl.enqueue(enc.encode(s))),
    send: (ev: unknown) => act(async () => ctrl.enqueue(enc.encode(`data: ${JSON.stringify(ev)}\n\n`))),
    close: () => act(async () => ctrl.close()),
  };
}

const turnBox = () => screen.getByPlaceholderText(en['solo.prompt.do']) as HTMLTextAreaElement;
const stateLine = () => screen.getByTestId('state-line').textContent;
const chips = () => screen.getAllByTestId('stat-chip').map((c) => c.textContent);
const nodeTexts = () => screen.getAllByTestId('story-node').map((n) => within(n).getByTestId('node-text').textContent);

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

// ---- the play screen -------------------------------------------------------

describe('play screen', () => {
  it('shows a streamed turn as it arrives, then the saved turn, its chip and the new stats line', async () => {
    const stream = sse();
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => stream.response,
    });
    renderApp('/solo/adventures/7');
    expect(await screen.findByText('The mill wheel creaks in the dark.')).toBeTruthy();
    expect(stateLine()).toBe('gold 5/999, trust 50/100, hp 100/100 (healthy)');

    fireEvent.change(turnBox(), { target: { value: 'I open the door' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    expect(callsTo('POST', '/api/adventures/7/turns')[0]!.body).toEqual({ mode: 'do', text: 'I open the door' });

    const player = node(2, 'player', 'I open the door', { depth: 1 });
    await stream.send({ type: 'player', action: player });
    await stream.send({ type: 'reasoning', text: 'The player is bold.' });
    await stream.raw(': keep-alive\n\n');
    await stream.send({ type: 'chunk', text: 'The door ' });
    await stream.raw('data: {"type":"chunk","text":"creaks open.\\n```sta"}\n');
    await stream.raw('\n');
    // the live text grows, the state fence is hidden, the box is locked
    expect(screen.getByTestId('live-text').textContent).toBe('The door creaks open.');
    expect(screen.getByTestId('live-player').textContent).toContain('I open the door');
    expect(within(screen.getByTestId('live-turn')).getByText(en['solo.reasoning'])).toBeTruthy();
    expect(turnBox().disabled).toBe(true);
    expect((screen.getByRole('button', { name: en['solo.retry'] }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('live-turn').closest('[aria-live]')!.getAttribute('aria-busy')).toBe('true');

    await stream.send({ type: 'chunk', text: 'te\n{"player.hp": -15}\n```' });
    const saved = node(3, 'narration', 'The door creaks open.', {
      depth: 2,
      outcomes: [{ path: 'player.hp', status: 'applied', from: 100, to: 85 }],
    });
    await stream.send({
      type: 'done',
      action: saved,
      adventure: adventure({ head_depth: 2, state_line: 'gold 5/999, trust 50/100, hp 85/100 (healthy)' }),
    });
    await stream.close();

    await waitFor(() => expect(screen.queryByTestId('live-turn')).toBeNull());
    expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.', 'I open the door', 'The door creaks open.']);
    expect(chips()).toEqual(['hp −15']);
    expect(stateLine()).toBe('gold 5/999, trust 50/100, hp 85/100 (healthy)');
    expect(turnBox().disabled).toBe(false);
    expect(turnBox().value).toBe('');
    // the reasoning stays with the narration it belongs to
    const last = screen.getAllByTestId('story-node')[2]!;
    expect(within(last).getByTestId('reasoning').textContent).toContain('The player is bold.');
    expect(callsTo('GET', '/api/adventures/7')).toHaveLength(1);
  });

  it('renders applied, clamped and rejected outcomes as chips', async () => {
    const narration = node(3, 'narration', 'Gwen smiles; the merchant refuses.', {
      depth: 2,
      outcomes: [
        { path: 'npc.gwen.trust', status: 'clamped', from: 95, to: 100, reason: 'clamped_to_max' },
        { path: 'player.gold', status: 'rejected', from: 5, reason: 'cooldown' },
        { path: 'player.hp', status: 'applied', from: 100, to: 85 },
      ],
    });
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, node(2, 'player', 'Hi', { depth: 1 }), narration])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Gwen smiles; the merchant refuses.');
    expect(chips()).toEqual(['trust +5 (clamped)', 'gold rejected: cooldown', 'hp −15']);
    expect(screen.getAllByTestId('stat-chip').map((c) => c.getAttribute('data-status'))).toEqual([
      'clamped',
      'rejected',
      'applied',
    ]);
  });

  it('pages between takes by posting the neighbouring take id', async () => {
    const player = node(2, 'player', 'I knock', { depth: 1 });
    const take = (id: number, index: number, text: string) =>
      node(id, 'narration', text, { depth: 2, takes: { index, count: 3, ids: [31, 32, 33] } });
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, player, take(32, 2, 'Second take.')])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/takes': (body) => {
        const id = (body as { action_id: number }).action_id;
        const index = [31, 32, 33].indexOf(id) + 1;
        return json(200, page([OPENING, player, take(id, index, `Take number ${index}.`)]));
      },
    });
    renderApp('/solo/adventures/7');
    expect((await screen.findByTestId('take-pager')).textContent).toBe('2/3');

    fireEvent.click(screen.getByRole('button', { name: en['solo.takes.prev'] }));
    await waitFor(() => expect(screen.getByTestId('take-pager').textContent).toBe('1/3'));
    expect(callsTo('POST', '/api/adventures/7/takes')[0]!.body).toEqual({ action_id: 31 });
    expect(screen.getByText('Take number 1.')).toBeTruthy();
    expect((screen.getByRole('button', { name: en['solo.takes.prev'] }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: en['solo.takes.next'] }));
    await waitFor(() => expect(screen.getByTestId('take-pager').textContent).toBe('2/3'));
    expect(callsTo('POST', '/api/adventures/7/takes')[1]!.body).toEqual({ action_id: 32 });
  });

  it('shows a clear message when the server answers 409 turn_in_progress, and keeps the typed text', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => apiError(409, 'turn_in_progress'),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    fireEvent.change(turnBox(), { target: { value: 'Run!' } });
    fireEvent.keyDown(turnBox(), { key: 'Enter' });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(en['solo.turn.inProgress']);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    expect(turnBox().value).toBe('Run!');
    expect(screen.queryByTestId('live-turn')).toBeNull();
  });

  it('locks the box while another tab writes a turn', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING], { turn_in_progress: true })),
      'GET /api/adventures/7/branches': () => json(200, branches()),
    });
    renderApp('/solo/adventures/7');
    expect((await screen.findByTestId('turn-elsewhere')).textContent).toContain(en['solo.turn.inProgress']);
    expect(turnBox().disabled).toBe(true);
  });

  it('on an error event shows the failure and reloads the page so the previous take shows', async () => {
    const stream = sse();
    const player = node(2, 'player', 'I knock', { depth: 1 });
    const first = node(3, 'narration', 'Nobody answers.', { depth: 2 });
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, player, first])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/retry': () => stream.response,
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    fireEvent.click(screen.getByRole('button', { name: en['solo.retry'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/retry')).toHaveLength(1));
    await stream.send({ type: 'chunk', text: 'Somebody' });
    // the retried narration steps aside while its new take streams
    expect(screen.queryByText('Nobody answers.')).toBeNull();
    expect(screen.getByTestId('live-text').textContent).toBe('Somebody');
    await stream.send({ type: 'error', code: 'provider_unavailable', message: 'down' });
    await stream.close();

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(en['solo.turn.failed']);
    await waitFor(() => expect(callsTo('GET', '/api/adventures/7')).toHaveLength(2));
    expect(await screen.findByText('Nobody answers.')).toBeTruthy();
    expect(screen.queryByTestId('live-turn')).toBeNull();
  });

  it('flags a reply that was cut short, live and once saved; a retry shows the take pager', async () => {
    const stream = sse();
    const player = node(2, 'player', 'I knock', { depth: 1 });
    const first = node(3, 'narration', 'Nobody answers.', { depth: 2 });
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, player, first])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/retry': () => stream.response,
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    fireEvent.click(screen.getByRole('button', { name: en['solo.retry'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/retry')).toHaveLength(1));
    expect(callsTo('POST', '/api/adventures/7/retry')[0]!.body).toEqual({});
    await stream.send({ type: 'chunk', text: 'A voice says' });
    await stream.send({ type: 'stopped', reason: 'length', message: 'SERVER TEXT' });
    expect(within(screen.getByTestId('live-turn')).getByTestId('cut-short').textContent).toContain(en['solo.cutShort']);
    const second = node(4, 'narration', 'A voice says', {
      depth: 2,
      truncated: true,
      finish_reason: 'length',
      takes: { index: 2, count: 2, ids: [3, 4] },
    });
    await stream.send({ type: 'done', action: second, adventure: adventure({ head_depth: 2 }) });
    await stream.close();
    await waitFor(() => expect(screen.queryByTestId('live-turn')).toBeNull());
    expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.', 'I knock', 'A voice says']);
    expect(screen.getByTestId('take-pager').textContent).toBe('2/2');
    expect(screen.getByTestId('cut-short').textContent).toContain(en['solo.cutShort.length']);
  });

  it('after a failed turn left the player action at the tip, retry narrates it', async () => {
    const stream = sse();
    const player = node(2, 'player', 'I knock', { depth: 1 });
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, player])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/retry': () => stream.response,
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('I knock');
    const retry = screen.getByRole('button', { name: en['solo.retry'] }) as HTMLButtonElement;
    expect(retry.disabled).toBe(false);
    fireEvent.click(retry);
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/retry')).toHaveLength(1));
    const answer = node(3, 'narration', 'The door opens.', { depth: 2 });
    await stream.send({ type: 'done', action: answer, adventure: adventure({ head_depth: 2 }) });
    await stream.close();
    await waitFor(() => expect(screen.queryByTestId('live-turn')).toBeNull());
    expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.', 'I knock', 'The door opens.']);
  });

  it('forks at a node, lists the branches with the current one marked, and switches back', async () => {
    const p1 = node(2, 'player', 'I knock', { depth: 1 });
    const n1 = node(3, 'narration', 'Nobody answers.', { depth: 2 });
    const p2 = node(4, 'player', 'I kick the door', { depth: 3 });
    const n2 = node(5, 'narration', 'It gives way.', { depth: 4 });
    let head = 1;
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, p1, n1, p2, n2], { state_line: 'hp 55/100 (wounded)' })),
      'GET /api/adventures/7/branches': () => json(200, branches(head)),
      'POST /api/adventures/7/fork': () => {
        head = 2;
        return json(200, page([OPENING, p1, n1], { head_branch_id: 2, state_line: 'hp 85/100 (healthy)' }));
      },
      'POST /api/adventures/7/branches/1/switch': () => {
        head = 1;
        return json(200, page([OPENING, p1, n1, p2, n2], { state_line: 'hp 55/100 (wounded)' }));
      },
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('It gives way.');
    expect(screen.getAllByRole('button', { name: /^Fork a new branch here/ })).toHaveLength(5);
    const current = await screen.findAllByTestId('branch');
    expect(current[0]!.getAttribute('aria-current')).toBe('true');

    fireEvent.click(screen.getByRole('button', { name: 'Fork a new branch here (depth 2)' }));
    await waitFor(() => expect(stateLine()).toBe('hp 85/100 (healthy)'));
    expect(callsTo('POST', '/api/adventures/7/fork')[0]!.body).toEqual({ action_id: 3 });
    expect(screen.queryByText('It gives way.')).toBeNull();
    await waitFor(() => expect(screen.getAllByTestId('branch')[1]!.getAttribute('aria-current')).toBe('true'));

    fireEvent.click(screen.getByRole('button', { name: 'Switch to Main line' }));
    await waitFor(() => expect(stateLine()).toBe('hp 55/100 (wounded)'));
    expect(await screen.findByText('It gives way.')).toBeTruthy();
    await waitFor(() => expect(screen.getAllByTestId('branch')[0]!.getAttribute('aria-current')).toBe('true'));
  });

  it('opens the insights drawer with the context breakdown and the exact prompt', async () => {
    const n1 = node(3, 'narration', 'Nobody answers.', { depth: 2 });
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, node(2, 'player', 'I knock', { depth: 1 }), n1])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'GET /api/actions/3/insights': () =>
        json(200, {
          action_id: 3,
          budget: 8000,
          total_tokens: 1234,
          sections: [
            { name: 'static', tokens: 400, fixed: true },
            { name: 'history', tokens: 800, fixed: false },
          ],
          cards: [{ id: 9, title: 'Gwen', trigger: 'Gwen', tokens: 34, included: true }],
          history_turns: 3,
          messages: [
            { role: 'system', content: 'You narrate.\n  Keep it short.' },
            { role: 'user', content: 'I knock' },
          ],
          memories: [],
          usage: { prompt_tokens: 1200, completion_tokens: 90, cached_prompt_tokens: 0 },
          expired: false,
        }),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    // only the narration with a prompt offers insights
    fireEvent.click(screen.getByRole('button', { name: en['solo.insights.open'] }));
    const drawer = await screen.findByRole('dialog', { name: en['solo.insights.title'] });
    expect((await within(drawer).findByTestId('insights-total')).textContent).toBe('1234');
    expect(within(drawer).getByTestId('insights-budget').textContent).toBe('8000');
    const rows = within(within(drawer).getByTestId('insights-sections')).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual(['SectionTokensFixed', 'Scenario400Yes', 'Story history800No']);
    expect(within(drawer).getByTestId('insights-cards').textContent).toContain('Gwen');
    const pres = drawer.querySelectorAll('pre');
    expect([...pres].map((p) => p.textContent)).toEqual(['You narrate.\n  Keep it short.', 'I knock']);
    fireEvent.click(within(drawer).getByRole('button', { name: en['solo.insights.close'] }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('undoes the newest turn and continues the story', async () => {
    const stream = sse();
    const p1 = node(2, 'player', 'I knock', { depth: 1 });
    const n1 = node(3, 'narration', 'Nobody answers.', { depth: 2 });
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, p1, n1])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/undo': () => json(200, page([OPENING])),
      'POST /api/adventures/7/turns': () => stream.response,
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    fireEvent.click(screen.getByRole('button', { name: en['solo.undo'] }));
    await waitFor(() => expect(screen.queryByText('Nobody answers.')).toBeNull());
    expect((screen.getByRole('button', { name: en['solo.undo'] }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: en['solo.continue'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    expect(callsTo('POST', '/api/adventures/7/turns')[0]!.body).toEqual({ mode: 'continue', text: '' });
    await stream.send({ type: 'chunk', text: 'Time passes.' });
    await stream.send({
      type: 'done',
      action: node(9, 'narration', 'Time passes.', { depth: 1, mode: 'continue' }),
      adventure: adventure({ head_depth: 1 }),
    });
    await stream.close();
    await waitFor(() => expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.', 'Time passes.']));
  });

  it('shows the scenario changes and applies them', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'GET /api/adventures/7/refresh': () =>
        json(200, {
          fields: [{ field: 'authors_note', old: 'Dark.', new: 'Darker.' }],
          cards_added: [{ id: 4, title: 'Gwen', keys: ['Gwen'], entry: 'A smith.', type: 'character' }],
          cards_updated: [],
          cards_removed: [],
          state_paths_added: ['player.gold'],
          state_paths_removed: [],
        }),
      'POST /api/adventures/7/refresh': () => json(200, page([OPENING], { authors_note: 'Darker.', state_line: 'hp 100/100' })),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    pickMore(en['solo.refresh.open']);
    const panel = await screen.findByTestId('refresh');
    expect((await within(panel).findByTestId('refresh-field')).textContent).toContain('Darker.');
    expect(panel.textContent).toContain('Gwen (Gwen)');
    expect(panel.textContent).toContain('player.gold');
    fireEvent.click(within(panel).getByRole('button', { name: en['solo.refresh.apply'] }));
    await waitFor(() => expect(screen.queryByTestId('refresh')).toBeNull());
    expect(callsTo('POST', '/api/adventures/7/refresh')[0]!.body).toEqual({});
    expect(stateLine()).toBe('hp 100/100');
  });

  it('shows the script notices of a finished turn above the input; each can be dismissed, the next turn clears them', async () => {
    const first = sse();
    const second = sse();
    const streams = [first, second];
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => streams.shift()!.response,
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    expect(screen.queryByTestId('script-notice')).toBeNull();

    fireEvent.change(turnBox(), { target: { value: 'I open the door' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    const failure = 'Script error in the output hook (line 3): ReferenceError: foo is not defined — the turn continued without it.';
    await first.send({ type: 'player', action: node(2, 'player', 'I open the door', { depth: 1 }) });
    await first.send({ type: 'chunk', text: 'The door creaks open.' });
    await first.send({
      type: 'done',
      action: node(3, 'narration', 'The door creaks open.', { depth: 2 }),
      adventure: adventure({ head_depth: 2 }),
      notices: ['You feel watched.', failure],
    });
    await first.close();

    const box = await screen.findByTestId('script-notice');
    expect(box.getAttribute('role')).toBe('status');
    expect(within(box).getAllByRole('listitem').map((li) => li.querySelector('.notice-text')!.textContent)).toEqual([
      'You feel watched.',
      failure,
    ]);
    // the notices sit above the input and block nothing
    expect(box.compareDocumentPosition(screen.getByTestId('turn-input')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(turnBox().disabled).toBe(false);
    expect(screen.queryByRole('alert')).toBeNull();

    fireEvent.click(within(box).getByRole('button', { name: format(en['solo.notices.dismissN'], { n: 1 }) }));
    expect(screen.getByTestId('script-notice').textContent).not.toContain('You feel watched.');
    expect(screen.getByTestId('script-notice').textContent).toContain(failure);
    expect(screen.queryByRole('button', { name: en['solo.notices.dismissAll'] })).toBeNull();

    // a new turn starts with no notices; a turn without notices shows none
    fireEvent.change(turnBox(), { target: { value: 'I go in' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(2));
    expect(screen.queryByTestId('script-notice')).toBeNull();
    await second.send({ type: 'player', action: node(4, 'player', 'I go in', { depth: 3 }) });
    await second.send({
      type: 'done',
      action: node(5, 'narration', 'It is dark inside.', { depth: 4 }),
      adventure: adventure({ head_depth: 4 }),
    });
    await second.close();
    await waitFor(() => expect(nodeTexts()).toContain('It is dark inside.'));
    expect(screen.queryByTestId('script-notice')).toBeNull();
  });

  it('shows the message of an action a script stopped, with its notices, and keeps the typed text', async () => {
    const stream = sse();
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => stream.response,
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    fireEvent.change(turnBox(), { target: { value: 'I burn the mill' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    await stream.send({
      type: 'error',
      code: 'script_stopped',
      message: 'The input script stopped the action: fire is not allowed here.',
      notices: ['The miller would never forgive you.'],
    });
    await stream.close();

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The input script stopped the action: fire is not allowed here.');
    expect(within(alert).getByTestId('error-detail').textContent).toBe(
      'The input script stopped the action: fire is not allowed here.',
    );
    // a script stopped it, the narrator did not fail
    expect(alert.textContent).not.toContain(en['solo.turn.failed']);
    expect(screen.getByTestId('script-notice').textContent).toContain('The miller would never forgive you.');
    expect(turnBox().value).toBe('I burn the mill');
    await waitFor(() => expect(callsTo('GET', '/api/adventures/7')).toHaveLength(2));
    expect(turnBox().disabled).toBe(false);
  });

  it('does not show the server message of other turn failures', async () => {
    const stream = sse();
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => stream.response,
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    fireEvent.change(turnBox(), { target: { value: 'I knock' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    await stream.send({ type: 'error', code: 'provider_unavailable', message: 'SERVER TEXT dial tcp refused' });
    await stream.close();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(en['solo.turn.failed']);
    expect(alert.textContent).not.toContain('SERVER TEXT');
  });

  it('opens the script console, lists its entries with hook and level, and reloads it each time it opens', async () => {
    const entry = (id: number, hook: ScriptConsoleEntry['hook'], level: ScriptConsoleEntry['level'], text: string) => ({
      id,
      action_id: id === 1 ? null : 2,
      hook,
      level,
      text,
      created_at: T0,
    });
    let entries: ScriptConsoleEntry[] = [];
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'GET /api/adventures/7/console': () => json(200, { entries }),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    pickMore(en['solo.console.open']);
    let dialog = await screen.findByRole('dialog', { name: en['solo.console.title'] });
    expect((await within(dialog).findByTestId('console-empty')).textContent).toBe(en['solo.console.empty']);
    fireEvent.click(within(dialog).getByRole('button', { name: en['solo.console.close'] }));
    expect(screen.queryByRole('dialog')).toBeNull();
    // the console's button is in the overflow menu, closed by now: focus
    // comes back to the menu's button
    expect(document.activeElement).toBe(screen.getByRole('button', { name: en['reader.more'] }));

    entries = [
      entry(1, 'input', 'log', '"turn" 1'),
      entry(2, 'output', 'error', 'ReferenceError: foo is not defined (line 3)'),
      entry(3, 'context', 'message', 'You feel watched.'),
    ];
    pickMore(en['solo.console.open']);
    dialog = await screen.findByRole('dialog', { name: en['solo.console.title'] });
    await within(dialog).findByTestId('console-entries');
    expect(callsTo('GET', '/api/adventures/7/console')).toHaveLength(2);
    const rows = within(dialog).getAllByTestId('console-entry');
    expect(rows.map((r) => [r.getAttribute('data-hook'), r.getAttribute('data-level')])).toEqual([
      ['input', 'log'],
      ['output', 'error'],
      ['context', 'message'],
    ]);
    expect(rows.map((r) => [...r.querySelectorAll('td')].slice(1).map((td) => td.textContent))).toEqual([
      ['Input', 'log', '"turn" 1'],
      ['Output', 'error', 'ReferenceError: foo is not defined (line 3)'],
      ['Context', 'message', 'You feel watched.'],
    ]);
    // Escape closes it too
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('says when the script console cannot be loaded', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'GET /api/adventures/7/console': () => apiError(503, 'database_unavailable'),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    pickMore(en['solo.console.open']);
    const dialog = await screen.findByRole('dialog', { name: en['solo.console.title'] });
    expect((await within(dialog).findByRole('alert')).textContent).toContain(en['solo.console.failed']);
  });
});

// ---- editing the story, branches and the adventure ----------------------------

describe('editing the story', () => {
  const P1 = node(2, 'player', 'I knock', { depth: 1 });
  const N1 = node(3, 'narration', 'Nobody answers.', { depth: 2 });
  const P2 = node(4, 'player', 'I kick the door', { depth: 3 });
  const N2 = node(5, 'narration', 'It gives way.', { depth: 4 });
  const storyNode = (text: string) =>
    screen.getAllByTestId('story-node').find((n) => n.textContent?.includes(text) || within(n).queryByDisplayValue(text))!;
  const editButton = (depth: number) => screen.getByRole('button', { name: format(en['solo.edit.label'], { depth }) });
  const deleteButton = (depth: number) => screen.getByRole('button', { name: format(en['solo.delete.label'], { depth }) });
  const editBox = (depth: number) =>
    screen.getByRole('textbox', { name: format(en['solo.edit.text'], { depth }) }) as HTMLTextAreaElement;

  it('edits the text of a turn and shows the saved node with its takes and outcomes', async () => {
    const saved = node(3, 'narration', 'Gwen opens the door.', {
      depth: 2,
      takes: { index: 2, count: 2, ids: [9, 3] },
      outcomes: [{ path: 'npc.gwen.trust', status: 'applied', from: 50, to: 55 }],
    });
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, P1, N1])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'PATCH /api/actions/3': () => json(200, saved),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    // every node can be edited; every node but the opening can be deleted
    expect(screen.getAllByRole('button', { name: /^Edit this turn/ })).toHaveLength(3);
    expect(screen.getAllByRole('button', { name: /^Delete this turn/ })).toHaveLength(2);
    expect(within(storyNode('The mill wheel')).queryByRole('button', { name: /^Delete/ })).toBeNull();

    fireEvent.click(editButton(2));
    expect(editBox(2).value).toBe('Nobody answers.');
    expect(document.activeElement).toBe(editBox(2));
    fireEvent.change(editBox(2), { target: { value: 'Gwen opens the door.' } });
    fireEvent.click(within(storyNode('Gwen opens the door.')).getByRole('button', { name: en['common.save'] }));

    await waitFor(() => expect(callsTo('PATCH', '/api/actions/3')).toHaveLength(1));
    expect(callsTo('PATCH', '/api/actions/3')[0]!.body).toEqual({ text: 'Gwen opens the door.' });
    await waitFor(() => expect(screen.queryByRole('textbox', { name: /^Text of this turn/ })).toBeNull());
    expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.', 'I knock', 'Gwen opens the door.']);
    expect(screen.getByTestId('take-pager').textContent).toBe('2/2');
    expect(chips()).toEqual(['trust +5']);
    expect(document.activeElement).toBe(editButton(2));
    // the page was not reloaded: the answer is the node
    expect(callsTo('GET', '/api/adventures/7')).toHaveLength(1);
  });

  it('edits the opening and a player action; cancel leaves the text as it was', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, P1, N1])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'PATCH /api/actions/1': (body) => json(200, { ...OPENING, text: (body as { text: string }).text }),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');

    fireEvent.click(editButton(1));
    fireEvent.change(editBox(1), { target: { value: 'I knock twice' } });
    fireEvent.click(within(storyNode('I knock twice')).getByRole('button', { name: en['common.cancel'] }));
    expect(screen.queryByRole('textbox', { name: /^Text of this turn/ })).toBeNull();
    expect(nodeTexts()[1]).toBe('I knock');
    expect(document.activeElement).toBe(editButton(1));

    fireEvent.click(editButton(0));
    fireEvent.change(editBox(0), { target: { value: 'The mill is silent.' } });
    fireEvent.submit(editBox(0).closest('form')!);
    await waitFor(() => expect(nodeTexts()[0]).toBe('The mill is silent.'));
    expect(callsTo('PATCH', '/api/actions/1')[0]!.body).toEqual({ text: 'The mill is silent.' });
    expect(calls.filter((c) => c.method === 'PATCH')).toHaveLength(1);
  });

  it('shows a refused edit at its node by code and keeps the draft', async () => {
    const answers = [apiError(422, 'turn_text_invalid'), apiError(409, 'action_not_on_line')];
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, P1, N1])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'PATCH /api/actions/2': () => answers.shift()!,
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    fireEvent.click(editButton(1));
    fireEvent.change(editBox(1), { target: { value: 'x'.repeat(30) } });
    fireEvent.click(within(storyNode('x'.repeat(30))).getByRole('button', { name: en['common.save'] }));

    const alert = await within(storyNode('x'.repeat(30))).findByRole('alert');
    expect(alert.textContent).toContain(en['solo.edit.failed']);
    expect(alert.textContent).toContain(errorsEn.turn_text_invalid);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    expect(editBox(1).value).toBe('x'.repeat(30));

    fireEvent.click(within(storyNode('x'.repeat(30))).getByRole('button', { name: en['common.save'] }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain(errorsEn.action_not_on_line));
    expect(callsTo('PATCH', '/api/actions/2')).toHaveLength(2);

    // cancelling forgets the failure
    fireEvent.click(screen.getByRole('button', { name: en['common.cancel'] }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(nodeTexts()[1]).toBe('I knock');
  });

  it('an edit refused because a turn is being written shows why and reloads the page', async () => {
    let gets = 0;
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, P1, N1], { turn_in_progress: ++gets > 1 })),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'PATCH /api/actions/3': () => apiError(409, 'turn_in_progress'),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    fireEvent.click(editButton(2));
    fireEvent.change(editBox(2), { target: { value: 'Somebody answers.' } });
    fireEvent.click(screen.getByRole('button', { name: en['common.save'] }));
    expect((await screen.findByRole('alert')).textContent).toContain(errorsEn.turn_in_progress);
    await waitFor(() => expect(callsTo('GET', '/api/adventures/7')).toHaveLength(2));
    expect(await screen.findByTestId('turn-elsewhere')).toBeTruthy();
    // the draft survives the reload
    expect(editBox(2).value).toBe('Somebody answers.');
  });

  it('deletes a turn after an inline confirmation and shows the page the server answers', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, P1, N1, P2, N2], { state_line: 'hp 55/100 (wounded)' })),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'DELETE /api/actions/4': () => json(200, page([OPENING, P1, N1, { ...N2, depth: 3 }], { state_line: 'hp 60/100 (wounded)' })),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('It gives way.');

    fireEvent.click(deleteButton(3));
    const confirm = screen.getByRole('group', { name: format(en['solo.delete.label'], { depth: 3 }) });
    expect(confirm.textContent).toContain(en['solo.delete.confirm']);
    expect(document.activeElement).toBe(within(confirm).getByRole('button', { name: en['common.no'] }));
    fireEvent.click(within(confirm).getByRole('button', { name: en['common.no'] }));
    expect(screen.queryByRole('group', { name: format(en['solo.delete.label'], { depth: 3 }) })).toBeNull();
    expect(document.activeElement).toBe(deleteButton(3));
    expect(callsTo('DELETE', '/api/actions/4')).toHaveLength(0);

    fireEvent.click(deleteButton(3));
    fireEvent.click(within(screen.getByRole('group', { name: /^Delete this turn/ })).getByRole('button', { name: en['common.yes'] }));
    await waitFor(() => expect(stateLine()).toBe('hp 60/100 (wounded)'));
    expect(callsTo('DELETE', '/api/actions/4')).toHaveLength(1);
    expect(callsTo('DELETE', '/api/actions/4')[0]!.body).toBeUndefined();
    expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.', 'I knock', 'Nobody answers.', 'It gives way.']);
    expect(screen.queryByText('I kick the door')).toBeNull();
  });

  it('shows why a turn another branch continues from cannot be deleted', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, P1, N1])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'DELETE /api/actions/2': () => apiError(409, 'action_not_editable'),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    fireEvent.click(deleteButton(1));
    fireEvent.click(screen.getByRole('button', { name: en['common.yes'] }));
    const alert = await within(storyNode('I knock')).findByRole('alert');
    expect(alert.textContent).toContain(en['solo.delete.notEditable']);
    expect(alert.textContent).toContain(errorsEn.action_not_editable);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    // the confirmation closed, the turn stays
    expect(screen.queryByRole('group', { name: /^Delete this turn/ })).toBeNull();
    expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.', 'I knock', 'Nobody answers.']);
    // focus comes back once the confirmation has closed (an effect after the
    // alert renders, so a loaded machine may see the alert first)
    await waitFor(() => expect(document.activeElement).toBe(deleteButton(1)));
  });

  it('locks the edit, delete, rename and settings controls while a turn streams', async () => {
    const stream = sse();
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING, P1, N1])),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => stream.response,
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    await screen.findAllByTestId('branch');
    fireEvent.click(editButton(2));
    pickMore(en['solo.settings.open']);
    const settings = screen.getByTestId('adventure-settings');
    fireEvent.change(within(settings).getByLabelText(en['solo.persona.name']), { target: { value: 'Bea' } });

    fireEvent.change(turnBox(), { target: { value: 'I wait' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    const disabled = (el: HTMLElement) => (el as HTMLButtonElement).disabled;
    for (const b of screen.getAllByRole('button', { name: /^(Edit|Delete) this turn/ })) expect(disabled(b)).toBe(true);
    expect(disabled(within(storyNode('Nobody answers.')).getByRole('button', { name: en['common.save'] }))).toBe(true);
    expect(disabled(within(settings).getByRole('button', { name: en['solo.settings.save'] }))).toBe(true);
    for (const b of screen.getAllByRole('button', { name: /^Rename / })) expect(disabled(b)).toBe(true);

    await stream.send({ type: 'player', action: node(6, 'player', 'I wait', { depth: 3 }) });
    await stream.send({ type: 'done', action: node(7, 'narration', 'Time passes.', { depth: 4 }), adventure: adventure({ head_depth: 4 }) });
    await stream.close();
    await waitFor(() => expect(screen.queryByTestId('live-turn')).toBeNull());
    expect(disabled(editButton(4))).toBe(false);
    expect(disabled(deleteButton(4))).toBe(false);
    expect(disabled(within(settings).getByRole('button', { name: en['solo.settings.save'] }))).toBe(false);
    // the open editor and the settings draft lived through the turn
    expect(editBox(2).value).toBe('Nobody answers.');
    expect((within(settings).getByLabelText(en['solo.persona.name']) as HTMLInputElement).value).toBe('Bea');
  });
});

describe('branch names', () => {
  it('renames a branch in place and reloads the list', async () => {
    let named = '';
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => {
        const b = branches();
        b.branches[1]!.name = named;
        return json(200, b);
      },
      'PATCH /api/adventures/7/branches/2': (body) => {
        named = (body as { name: string }).name;
        return json(200, { ...branches().branches[1], name: named });
      },
    });
    renderApp('/solo/adventures/7');
    await screen.findAllByTestId('branch');
    fireEvent.click(screen.getByRole('button', { name: 'Rename Branch 2' }));
    const input = screen.getByRole('textbox', { name: format(en['solo.branches.newName'], { name: 'Branch 2' }) }) as HTMLInputElement;
    expect(input.value).toBe('');
    expect(document.activeElement).toBe(input);
    const save = within(input.closest('form')!).getByRole('button', { name: en['common.save'] }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.change(input, { target: { value: '  The cellar  ' } });
    fireEvent.click(save);

    await waitFor(() => expect(callsTo('PATCH', '/api/adventures/7/branches/2')).toHaveLength(1));
    expect(callsTo('PATCH', '/api/adventures/7/branches/2')[0]!.body).toEqual({ name: 'The cellar' });
    await waitFor(() => expect(screen.getAllByTestId('branch')[1]!.textContent).toContain('The cellar'));
    expect(callsTo('GET', '/api/adventures/7/branches')).toHaveLength(2);
    expect(screen.queryByRole('textbox', { name: /^New name for/ })).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Rename The cellar' })));
    expect(screen.getByRole('button', { name: 'Switch to The cellar' })).toBeTruthy();
  });

  it('shows a refused name by code and keeps the form open', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'PATCH /api/adventures/7/branches/1': () => apiError(422, 'invalid_request'),
    });
    renderApp('/solo/adventures/7');
    await screen.findAllByTestId('branch');
    fireEvent.click(screen.getByRole('button', { name: 'Rename Main line' }));
    const input = screen.getByRole('textbox', { name: 'New name for Main line' });
    fireEvent.change(input, { target: { value: 'y'.repeat(20) } });
    fireEvent.submit(input.closest('form')!);
    const alert = await within(screen.getByTestId('branches')).findByRole('alert');
    expect(alert.textContent).toContain(en['solo.branches.renameFailed']);
    expect(alert.textContent).toContain(errorsEn.invalid_request);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getAllByTestId('branch')[0]!.textContent).toContain('Main line');
  });
});

describe('adventure settings', () => {
  it('sends only the changed fields and shows the adventure the server answers', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page([OPENING], { authors_note: 'Dark.' })),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'PATCH /api/adventures/7': (body) =>
        json(200, adventure({ authors_note: 'Grim.', persona_desc: 'A miller’s daughter.', title: 'The Old Mill, retold', ...(body as object) })),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    pickMore(en['solo.settings.open']);
    const panel = screen.getByRole('region', { name: en['solo.settings.title'] });
    const field = (label: string) => within(panel).getByLabelText(label) as HTMLInputElement | HTMLTextAreaElement;
    expect(field(en['solo.editor.authorsNote']).value).toBe('Dark.');
    expect(document.activeElement).toBe(field(en['solo.editor.authorsNote']));
    expect(field(en['solo.persona.name']).value).toBe('Ann');
    expect(field(en['solo.persona.pronouns']).value).toBe('she/her');
    expect(field(en['solo.persona.desc']).value).toBe('');
    const save = within(panel).getByRole('button', { name: en['solo.settings.save'] }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);

    fireEvent.change(field(en['solo.editor.authorsNote']), { target: { value: 'Grim.' } });
    fireEvent.change(field(en['solo.persona.desc']), { target: { value: 'A miller’s daughter.' } });
    // a name typed back to what it was is no change
    fireEvent.change(field(en['solo.persona.name']), { target: { value: 'Ann ' } });
    expect(save.disabled).toBe(false);
    fireEvent.click(save);

    await waitFor(() => expect(callsTo('PATCH', '/api/adventures/7')).toHaveLength(1));
    expect(callsTo('PATCH', '/api/adventures/7')[0]!.body).toEqual({
      authors_note: 'Grim.',
      persona_desc: 'A miller’s daughter.',
    });
    // the answer replaces the adventure of the page
    expect(await screen.findByRole('heading', { level: 1, name: 'The Old Mill, retold' })).toBeTruthy();
    expect(within(panel).getByRole('status').textContent).toBe(en['common.saved']);
    expect(save.disabled).toBe(true);
    expect(field(en['solo.persona.name']).value).toBe('Ann');

    fireEvent.click(within(panel).getByRole('button', { name: en['solo.settings.close'] }));
    expect(screen.queryByRole('region', { name: en['solo.settings.title'] })).toBeNull();
    // the toggle is in the overflow menu, closed by now: focus goes to the menu's button
    expect(document.activeElement).toBe(screen.getByRole('button', { name: en['reader.more'] }));
  });

  it('shows a refused change by code and marks the field', async () => {
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'PATCH /api/adventures/7': () =>
        json(422, { error: { code: 'scenario_invalid', message: 'SERVER TEXT', fields: { persona_name: 'is too long' } } }),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    pickMore(en['solo.settings.open']);
    const panel = screen.getByTestId('adventure-settings');
    const name = within(panel).getByLabelText(en['solo.persona.name']);
    fireEvent.change(name, { target: { value: 'z'.repeat(200) } });
    fireEvent.click(within(panel).getByRole('button', { name: en['solo.settings.save'] }));
    const alert = await within(panel).findByRole('alert');
    expect(callsTo('PATCH', '/api/adventures/7')[0]!.body).toEqual({ persona_name: 'z'.repeat(200) });
    expect(alert.textContent).toContain(format(en['solo.editor.badFields'], { fields: en['solo.persona.name'] }));
    expect(alert.textContent).toContain(errorsEn.scenario_invalid);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('heading', { level: 1, name: 'The Old Mill' })).toBeTruthy();
  });
});

// ---- narrator settings -----------------------------------------------------

const SETTINGS: ProviderSettingsView = narratorSettings({ api_key_set: true, token_ratio: 4 });

describe('narrator settings', () => {
  function stubSolo(settings = SETTINGS) {
    return stubServer({
      'GET /api/scenarios': () => json(200, { scenarios: [] }),
      'GET /api/adventures': () => json(200, { adventures: [] }),
      'GET /api/solo/settings': () => json(200, settings),
      'PUT /api/solo/settings': (body) => {
        const { api_key, ...rest } = body as Record<string, unknown>;
        return json(200, { ...rest, api_key_set: api_key === undefined ? true : api_key !== '' });
      },
    });
  }
  const keyField = () => screen.getByLabelText(en['solo.provider.apiKey']) as HTMLInputElement;
  const save = () => fireEvent.click(screen.getByRole('button', { name: en['solo.provider.save'] }));

  it('never shows a stored key and sends api_key only when one is typed', async () => {
    stubSolo();
    renderApp('/solo');
    expect((await screen.findByTestId('api-key-state')).textContent).toBe(en['solo.provider.keyStored']);
    expect(keyField().value).toBe('');
    expect(keyField().type).toBe('password');

    fireEvent.change(screen.getByLabelText(en['solo.provider.model']), { target: { value: 'fake' } });
    fireEvent.change(screen.getByLabelText(en['solo.provider.temperature']), { target: { value: '1.1' } });
    save();
    await waitFor(() => expect(callsTo('PUT', '/api/solo/settings')).toHaveLength(1));
    expect(callsTo('PUT', '/api/solo/settings')[0]!.body).toEqual({
      base_url: 'http://127.0.0.1:11434/v1',
      model: 'fake',
      context_budget: 8000,
      max_output_tokens: 600,
      temperature: 1.1,
      top_p: 0.95,
      embedding_model: '',
      memory_top_k: 5,
      memory_capacity: 200,
      reasoning_effort: '',
    });
    await screen.findByText(en['common.saved']);

    fireEvent.change(keyField(), { target: { value: 'sk-new-secret' } });
    save();
    await waitFor(() => expect(callsTo('PUT', '/api/solo/settings')).toHaveLength(2));
    expect((callsTo('PUT', '/api/solo/settings')[1]!.body as { api_key: string }).api_key).toBe('sk-new-secret');
    await waitFor(() => expect(keyField().value).toBe(''));
    expect(document.body.innerHTML).not.toContain('sk-new-secret');
    expect(screen.getByTestId('api-key-state').textContent).toBe(en['solo.provider.keyStored']);
  });

  it('clears the stored key only when asked', async () => {
    stubSolo();
    renderApp('/solo');
    fireEvent.click(await screen.findByLabelText(en['solo.provider.clearKey']));
    save();
    await waitFor(() => expect(callsTo('PUT', '/api/solo/settings')).toHaveLength(1));
    expect((callsTo('PUT', '/api/solo/settings')[0]!.body as { api_key: string }).api_key).toBe('');
    await waitFor(() => expect(screen.getByTestId('api-key-state').textContent).toBe(en['solo.provider.keyNotStored']));
    expect(screen.queryByLabelText(en['solo.provider.clearKey'])).toBeNull();
  });
});

// ---- scenario editor -------------------------------------------------------

const INPUT_SCRIPT =
  "const modifier = (text) => { state.count = (state.count || 0) + 1; log('turn', state.count); return { text: text.replace('goblin', 'dragon') } }\nmodifier(text)";
const OUTPUT_SCRIPT = "const modifier = (text) => ({ text: text + ' (scripted)' })\nmodifier(text)";
const CONTEXT_SCRIPT = 'const modifier = (text) => ({ text })\nmodifier(text)\n';

describe('scenario editor', () => {
  it('builds the ScenarioInput (stats with bands, cards with split keys), then plays it', async () => {
    let stored: ScenarioView | null = null;
    stubServer({
      'POST /api/scenarios': (body) => {
        const input = body as Omit<ScenarioView, 'id' | 'cards' | 'created_at' | 'updated_at'> & {
          cards: ScenarioView['cards'];
        };
        stored = {
          ...input,
          id: 5,
          cards: input.cards.map((c, i) => ({ ...c, id: 40 + i })),
          created_at: T0,
          updated_at: T0,
        };
        return json(201, stored);
      },
      'GET /api/scenarios/5': () => json(200, stored),
      'POST /api/scenarios/5/play': () => json(201, page()),
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
    });
    renderApp('/solo/scenarios/new');
    const field = (label: string) => screen.getByLabelText(label);
    const type = (el: HTMLElement, value: string) => fireEvent.change(el, { target: { value } });

    type(await screen.findByLabelText(en['solo.editor.scenarioTitle']), ' The Old Mill ');
    type(field(en['solo.editor.premise']), 'A mill at night.');
    type(field(en['solo.editor.opening']), 'The mill wheel creaks in the dark.');

    fireEvent.click(screen.getByRole('button', { name: en['solo.stats.add'] }));
    const stat = screen.getByTestId('stat-row');
    type(within(stat).getByLabelText(en['solo.stats.path']), 'player.hp');
    type(within(stat).getByLabelText(en['solo.stats.min']), '0');
    type(within(stat).getByLabelText(en['solo.stats.max']), '100');
    type(within(stat).getByLabelText(en['solo.stats.initial']), '90');
    type(within(stat).getByLabelText(en['solo.stats.cooldown']), '2');
    fireEvent.click(within(stat).getByRole('button', { name: en['solo.bands.add'] }));
    fireEvent.click(within(stat).getByRole('button', { name: en['solo.bands.add'] }));
    fireEvent.click(within(stat).getByRole('button', { name: en['solo.bands.add'] }));
    const bands = within(stat).getAllByTestId('band-row');
    const band = (row: HTMLElement, lo: string, hi: string, label: string) => {
      type(within(row).getByLabelText(en['solo.bands.lo']), lo);
      type(within(row).getByLabelText(en['solo.bands.hi']), hi);
      type(within(row).getByLabelText(en['solo.bands.label']), label);
    };
    band(bands[0]!, '0', '30', 'badly hurt');
    band(bands[1]!, '99', '99', 'scratch');
    band(bands[2]!, '30', '100', 'fine');
    fireEvent.click(within(screen.getAllByTestId('band-row')[1]!).getByRole('button', { name: en['solo.bands.remove'] }));

    fireEvent.click(screen.getByRole('button', { name: en['solo.stats.add'] }));
    const second = screen.getAllByTestId('stat-row')[1]!;
    type(within(second).getByLabelText(en['solo.stats.path']), 'player.gold');
    fireEvent.click(within(second).getByRole('button', { name: 'Remove player.gold' }));

    fireEvent.click(screen.getByRole('button', { name: en['solo.cards.add'] }));
    const card = screen.getByTestId('card-row');
    type(within(card).getByLabelText(en['solo.cards.cardTitle']), 'Gwen');
    type(within(card).getByLabelText(en['solo.cards.keys']), 'Gwen, the smith，smith ,');
    type(within(card).getByLabelText(en['solo.cards.type']), 'character');
    type(within(card).getByLabelText(en['solo.cards.entry']), 'The village smith.');

    // scripts: four tabs, one monospace box each; arrows move between tabs
    const tablist = screen.getByRole('tablist', { name: en['solo.scripts.tabs'] });
    const tabs = within(tablist).getAllByRole('tab');
    expect(tabs.map((x) => x.textContent)).toEqual(['Library', 'Input', 'Context', 'Output']);
    expect(tabs.map((x) => x.getAttribute('aria-selected'))).toEqual(['true', 'false', 'false', 'false']);
    const codeBox = (hook: 'library' | 'input' | 'context' | 'output') => {
      const panel = screen.getByRole('tabpanel', { name: en[`solo.scripts.tab.${hook}`] });
      return within(panel).getByLabelText(format(en['solo.scripts.code'], { hook: en[`solo.scripts.tab.${hook}`] }));
    };
    expect(screen.getAllByRole('tabpanel')).toHaveLength(1);
    expect(codeBox('library').getAttribute('spellcheck')).toBe('false');
    // (a pointer's press focuses the tab, as in a browser)
    within(tablist).getByRole('tab', { name: en['solo.scripts.tab.input'] }).focus();
    fireEvent.click(within(tablist).getByRole('tab', { name: en['solo.scripts.tab.input'] }));
    expect(screen.getByRole('tabpanel').textContent).toContain(en['solo.scripts.about.input']);
    type(codeBox('input'), INPUT_SCRIPT);
    fireEvent.keyDown(within(tablist).getByRole('tab', { name: en['solo.scripts.tab.input'] }), { key: 'ArrowRight' });
    expect(within(tablist).getByRole('tab', { name: en['solo.scripts.tab.context'] }).getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(within(tablist).getByRole('tab', { name: en['solo.scripts.tab.context'] }));
    fireEvent.keyDown(document.activeElement!, { key: 'End' });
    type(codeBox('output'), OUTPUT_SCRIPT);
    expect(screen.getAllByRole('tabpanel')).toHaveLength(1);

    fireEvent.click(screen.getByRole('button', { name: en['solo.editor.save'] }));
    await waitFor(() => expect(callsTo('POST', '/api/scenarios')).toHaveLength(1));
    expect(callsTo('POST', '/api/scenarios')[0]!.body).toEqual({
      title: 'The Old Mill',
      premise: 'A mill at night.',
      plot_essentials: '',
      ai_instructions: '',
      authors_note: '',
      opening: 'The mill wheel creaks in the dark.',
      stat_schema: {
        'player.hp': {
          min: 0,
          max: 100,
          initial: 90,
          cooldown: 2,
          bands: [
            [0, 30, 'badly hurt'],
            [30, 100, 'fine'],
          ],
        },
      },
      cards: [{ title: 'Gwen', keys: ['Gwen', 'the smith', 'smith'], type: 'character', entry: 'The village smith.' }],
      scripts: { library: '', input: INPUT_SCRIPT, context: '', output: OUTPUT_SCRIPT },
    });

    // the saved scenario opens at its own address (loaded anew), then Play asks who you are
    await waitFor(() => expect(callsTo('GET', '/api/scenarios/5')).toHaveLength(1));
    expect(await screen.findByRole('heading', { level: 1, name: 'The Old Mill' })).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe(en['solo.editor.saved']);
    fireEvent.click(screen.getByRole('button', { name: en['solo.play.button'] }));
    const dialog = await screen.findByRole('dialog');
    type(within(dialog).getByLabelText(en['solo.persona.name']), 'Ann');
    type(within(dialog).getByLabelText(en['solo.persona.pronouns']), 'she/her');
    type(within(dialog).getByLabelText(en['solo.persona.desc']), 'A miller’s daughter.');
    fireEvent.click(within(dialog).getByRole('button', { name: en['solo.play.start'] }));
    await waitFor(() => expect(callsTo('POST', '/api/scenarios/5/play')).toHaveLength(1));
    expect(callsTo('POST', '/api/scenarios/5/play')[0]!.body).toEqual({
      persona_name: 'Ann',
      persona_pronouns: 'she/her',
      persona_desc: 'A miller’s daughter.',
    });
    expect(await screen.findByTestId('state-line')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'The Old Mill' })).toBeTruthy();
  });

  it('loads a stored scenario into the form and sends cards without their ids', async () => {
    const stored = scenarioView({
      premise: 'p',
      plot_essentials: 'e',
      ai_instructions: 'i',
      authors_note: 'n',
      opening: 'o',
      stat_schema: { 'player.hp': { min: 0, max: 100, initial: 100, bands: [[0, 50, 'hurt']] } },
      cards: [{ id: 40, title: 'Gwen', keys: ['Gwen', 'smith'], entry: 'A smith.', type: 'character' }],
      scripts: { library: 'const shout = (s) => s.toUpperCase()\n', input: '', context: CONTEXT_SCRIPT, output: OUTPUT_SCRIPT },
    });
    stubServer({
      'GET /api/scenarios/5': () => json(200, stored),
      'PUT /api/scenarios/5': () => json(200, stored),
    });
    renderApp('/solo/scenarios/5');
    expect(((await screen.findByLabelText(en['solo.cards.keys'])) as HTMLInputElement).value).toBe('Gwen, smith');
    fireEvent.click(screen.getByRole('button', { name: en['solo.editor.save'] }));
    await waitFor(() => expect(callsTo('PUT', '/api/scenarios/5')).toHaveLength(1));
    const body = callsTo('PUT', '/api/scenarios/5')[0]!.body as { cards: unknown[]; stat_schema: unknown; scripts: unknown };
    expect(body.cards).toEqual([{ title: 'Gwen', keys: ['Gwen', 'smith'], type: 'character', entry: 'A smith.' }]);
    expect(body.stat_schema).toEqual({ 'player.hp': { min: 0, max: 100, initial: 100, bands: [[0, 50, 'hurt']] } });
    expect(body.scripts).toEqual(stored.scripts);
  });

  it('loads the stored scripts into their tabs and saves an edit of one', async () => {
    const stored = scenarioView({
      scripts: { library: 'const shout = (s) => s.toUpperCase()\n', input: '', context: CONTEXT_SCRIPT, output: OUTPUT_SCRIPT },
    });
    stubServer({
      'GET /api/scenarios/5': () => json(200, stored),
      'PUT /api/scenarios/5': (body) => json(200, { ...stored, ...(body as object) }),
    });
    renderApp('/solo/scenarios/5');
    const tablist = await screen.findByRole('tablist', { name: en['solo.scripts.tabs'] });
    const label = (hook: 'library' | 'input' | 'context' | 'output') =>
      format(en['solo.scripts.code'], { hook: en[`solo.scripts.tab.${hook}`] });
    // every panel stays in the page, the hidden ones too
    expect((screen.getByLabelText(label('library')) as HTMLTextAreaElement).value).toBe(stored.scripts.library);
    expect((screen.getByLabelText(label('input')) as HTMLTextAreaElement).value).toBe('');
    expect((screen.getByLabelText(label('context')) as HTMLTextAreaElement).value).toBe(CONTEXT_SCRIPT);
    expect((screen.getByLabelText(label('output')) as HTMLTextAreaElement).value).toBe(OUTPUT_SCRIPT);
    fireEvent.click(within(tablist).getByRole('tab', { name: en['solo.scripts.tab.output'] }));
    const output = within(screen.getByRole('tabpanel', { name: en['solo.scripts.tab.output'] })).getByLabelText(label('output'));
    fireEvent.change(output, { target: { value: '' } });
    expect(screen.getByRole('status').textContent).toBe(en['solo.editor.unsaved']);
    fireEvent.click(screen.getByRole('button', { name: en['solo.editor.save'] }));
    await waitFor(() => expect(callsTo('PUT', '/api/scenarios/5')).toHaveLength(1));
    expect((callsTo('PUT', '/api/scenarios/5')[0]!.body as { scripts: unknown }).scripts).toEqual({
      library: stored.scripts.library,
      input: '',
      context: CONTEXT_SCRIPT,
      output: '',
    });
  });
});

// ---- Stop and the waiting action --------------------------------------------

describe('stop and failed turns', () => {
  it('Stop takes the place of Send while the narrator streams; the partial take is kept and marked stopped, with Continue and Retry at hand', async () => {
    const stream = sse();
    const next = sse();
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => (callsTo('POST', '/api/adventures/7/turns').length === 1 ? stream.response : next.response),
      'POST /api/adventures/7/turn/stop': () => json(200, { stopped: true }),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    expect(screen.queryByTestId('stop-turn')).toBeNull();
    fireEvent.change(turnBox(), { target: { value: 'I open the door' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    const player = node(2, 'player', 'I open the door', { depth: 1 });
    await stream.send({ type: 'player', action: player });
    await stream.send({ type: 'chunk', text: 'The door creaks' });

    const stop = screen.getByRole('button', { name: en['solo.stop.label'] }) as HTMLButtonElement;
    expect(stop.disabled).toBe(false);
    expect(screen.queryByRole('button', { name: en['solo.send'] })).toBeNull();
    fireEvent.click(stop);
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turn/stop')).toHaveLength(1));
    expect(screen.getByTestId('stop-turn').textContent).toBe(en['solo.stopping']);
    expect((screen.getByTestId('stop-turn') as HTMLButtonElement).disabled).toBe(true);

    // the server ends the stream: stopped (player), then done with the take
    await stream.send({ type: 'stopped', reason: 'player', message: 'SERVER TEXT' });
    expect(within(screen.getByTestId('live-turn')).queryByTestId('cut-short')).toBeNull();
    const partial = node(3, 'narration', 'The door creaks', { depth: 2, stopped: true });
    await stream.send({ type: 'done', action: partial, adventure: adventure({ head_depth: 2 }) });
    await stream.close();
    await waitFor(() => expect(screen.queryByTestId('live-turn')).toBeNull());
    expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.', 'I open the door', 'The door creaks']);
    const taken = screen.getAllByTestId('story-node')[2]!;
    expect(taken.getAttribute('data-stopped')).toBe('true');
    expect(within(taken).getByTestId('stopped-take').textContent).toContain(en['solo.story.stopped']);
    expect(screen.queryByTestId('stop-turn')).toBeNull();
    expect(screen.getByRole('button', { name: en['solo.send'] })).toBeTruthy();
    expect(turnBox().value).toBe('');
    expect(screen.queryByRole('alert')).toBeNull();

    expect(within(taken).getByRole('button', { name: en['solo.story.stoppedRetry'] })).toBeTruthy();
    // Continue at the stopped take narrates on from it
    fireEvent.click(within(taken).getByRole('button', { name: en['solo.story.stoppedContinue'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(2));
    expect(callsTo('POST', '/api/adventures/7/turns')[1]!.body).toEqual({ mode: 'continue', text: '' });
    // while it streams, the in-place buttons step aside
    expect(within(taken).queryByRole('button', { name: en['solo.story.stoppedRetry'] })).toBeNull();
  });

  it('a stop before any text leaves the player action waiting for narration, with Retry and Undo at it', async () => {
    const stream = sse();
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => stream.response,
      'POST /api/adventures/7/turn/stop': () => json(200, { stopped: true }),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    fireEvent.change(turnBox(), { target: { value: 'I wait' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    await stream.send({ type: 'player', action: node(2, 'player', 'I wait', { depth: 1 }) });
    fireEvent.click(screen.getByTestId('stop-turn'));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turn/stop')).toHaveLength(1));
    await stream.send({ type: 'stopped', reason: 'player', message: 'x' });
    await stream.send({ type: 'done', adventure: adventure({ head_depth: 1 }) });
    await stream.close();
    await waitFor(() => expect(screen.queryByTestId('live-turn')).toBeNull());
    expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.', 'I wait']);
    const waiting = screen.getAllByTestId('story-node')[1]!;
    expect(waiting.getAttribute('data-waiting')).toBe('true');
    expect(within(waiting).getByRole('button', { name: en['solo.story.waitingRetry'] })).toBeTruthy();
    expect(within(waiting).getByRole('button', { name: en['solo.story.waitingUndo'] })).toBeTruthy();
  });

  it('a failed turn says the action is kept and waits for narration; Retry and Undo are at the action', async () => {
    const stream = sse();
    const player = node(2, 'player', 'I knock', { depth: 1 });
    let story = [OPENING];
    stubServer({
      'GET /api/adventures/7': () => json(200, page(story)),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => {
        story = [OPENING, player];
        return stream.response;
      },
      'POST /api/adventures/7/undo': () => json(200, page([OPENING])),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    fireEvent.change(turnBox(), { target: { value: 'I knock' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    await stream.send({ type: 'player', action: player });
    await stream.send({ type: 'error', code: 'provider_unavailable', message: 'down' });
    await stream.close();

    await waitFor(() => expect(callsTo('GET', '/api/adventures/7')).toHaveLength(2));
    const alert = await screen.findByRole('alert');
    await waitFor(() => expect(alert.textContent).toContain(en['solo.turn.failedKept']));
    expect(alert.textContent).not.toContain(en['solo.turn.failed']);
    const waiting = screen.getAllByTestId('story-node')[1]!;
    expect(waiting.getAttribute('data-waiting')).toBe('true');
    expect(within(waiting).getByTestId('awaiting-narration').textContent).toContain(en['solo.story.waiting']);
    expect(within(waiting).getByRole('button', { name: en['solo.story.waitingRetry'] })).toBeTruthy();
    fireEvent.click(within(waiting).getByRole('button', { name: en['solo.story.waitingUndo'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/undo')).toHaveLength(1));
    await waitFor(() => expect(nodeTexts()).toEqual(['The mill wheel creaks in the dark.']));
    expect(screen.queryByTestId('awaiting-narration')).toBeNull();
  });

  it('a stop the server did not need (stopped false) lets Stop be pressed again', async () => {
    const stream = sse();
    stubServer({
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, branches()),
      'POST /api/adventures/7/turns': () => stream.response,
      'POST /api/adventures/7/turn/stop': () => json(200, { stopped: false }),
    });
    renderApp('/solo/adventures/7');
    await screen.findByText('The mill wheel creaks in the dark.');
    fireEvent.change(turnBox(), { target: { value: 'I wait' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.send'] }));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    await stream.send({ type: 'chunk', text: 'Time' });
    fireEvent.click(screen.getByTestId('stop-turn'));
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turn/stop')).toHaveLength(1));
    await waitFor(() => expect((screen.getByTestId('stop-turn') as HTMLButtonElement).disabled).toBe(false));
    expect(screen.getByTestId('stop-turn').textContent).toBe(en['solo.stop']);
  });
});
