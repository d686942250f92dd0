// The memory bank against a fake server at the fetch boundary: the Memory
// drawer of the play screen (the line's memories with their marks, the
// running summary, the recall status, pin / forget / edit / add and their
// refusals), the memories a prompt carried in the Insights drawer, and the
// memory settings of the narrator model.
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import errorsEn from '../src/i18n/errors.en.json';
import { format } from '../src/i18n/messages';
import { resetIdentity } from '../src/identity';
import type {
  ActionView,
  AdventurePage,
  Insights,
  MemoryBank,
  MemoryChange,
  MemoryInput,
  MemoryView,
} from '../src/solo/api';
import { adventureView, apiError, callsTo, json, narratorSettings, pickMore, renderApp, stubServer, T0 } from './fixtures';

// ---- fixtures ------------------------------------------------------------

function node(id: number, kind: ActionView['kind'], text: string, depth: number): ActionView {
  return {
    id,
    kind,
    mode: kind === 'player' ? 'do' : '',
    text,
    depth,
    branch_id: 1,
    takes: { index: 1, count: 1, ids: [id] },
    outcomes: [],
    truncated: false,
    stopped: false,
    finish_reason: kind === 'narration' ? 'stop' : '',
    has_prompt: kind === 'narration',
    created_at: T0,
  };
}

const STORY = [
  node(1, 'opening', 'Rain drums on the roof of the Gilded Goose.', 0),
  node(2, 'player', 'I greet the innkeeper', 1),
  node(3, 'narration', 'Bram nods at the door.', 2),
];

const PAGE: AdventurePage = {
  adventure: adventureView(),
  story: STORY,
  has_more: false,
};

function memory(id: number, kind: MemoryView['kind'], text: string, over: Partial<MemoryView> = {}): MemoryView {
  return {
    id,
    kind,
    text,
    branch_id: 1,
    depth: 2,
    from_depth: 2,
    pinned: false,
    forgotten: false,
    stale: false,
    uses: 0,
    used_last_turn: false,
    embedded: false,
    created_at: T0,
    updated_at: T0,
    ...over,
  };
}

const BLOCK = memory(11, 'block', 'Mara met Bram the innkeeper at the Gilded Goose.', {
  depth: 5,
  from_depth: 0,
  uses: 3,
  used_last_turn: true,
});
const NOTE = memory(12, 'note', 'Mara promised Bram she would return.', { depth: 6, from_depth: 6, pinned: true });
const OLD = memory(13, 'block', 'Mara lost her purse on the road.', { depth: 11, from_depth: 6, forgotten: true, stale: true });
const SUMMARY = memory(20, 'summary', 'Mara reached the Gilded Goose on a rainy night.', { depth: 11, from_depth: 0 });


// PLAY answers the play screen of adventure 7.
const PLAY = {
  'GET /api/adventures/7': () => json(200, PAGE),
  'GET /api/adventures/7/branches': () => json(200, { branches: [] }),
};

// openDrawer opens the play screen and the drawer its button opens, and waits
// for the drawer's content (the test id ready).
async function openDrawer(open: () => void, title: string, ready: string) {
  renderApp('/solo/adventures/7');
  await screen.findByText('Bram nods at the door.');
  open();
  const drawer = await screen.findByRole('dialog', { name: title });
  await within(drawer).findByTestId(ready);
  return drawer;
}

function bank(over: Partial<MemoryBank> = {}): MemoryBank {
  return {
    memories: [BLOCK, NOTE, OLD],
    summary: SUMMARY,
    scorer: 'bm25',
    top_k: 5,
    capacity: 200,
    job: { pending: false, last_error: '', last_run_at: T0 },
    ...over,
  };
}

// stubBank answers the play screen and a memory bank that PATCH and POST
// change, the way the server does (a change answers the memory without its
// use marks); the first refuseAdds POSTs are refused with memory_invalid.
function stubBank(start: MemoryBank = bank(), routes: Parameters<typeof stubServer>[0] = {}, refuseAdds = 0) {
  let state = structuredClone(start);
  let nextId = 100;
  let refused = 0;
  return stubServer({
    ...PLAY,
    'GET /api/adventures/7/memories': () => json(200, state),
    'POST /api/adventures/7/memories': (body) => {
      if (refused++ < refuseAdds) return apiError(400, 'memory_invalid');
      const input = body as MemoryInput;
      const m = memory(nextId++, 'note', input.text.trim(), { pinned: input.pinned });
      state = { ...state, memories: [...state.memories, m], job: { ...state.job, pending: true } };
      return json(201, m);
    },
    ...Object.fromEntries(
      [...start.memories, ...(start.summary ? [start.summary] : [])].map((m) => [
        `PATCH /api/adventures/7/memories/${m.id}`,
        (body: unknown) => {
          const change = body as MemoryChange;
          const find = (x: MemoryView) => x.id === m.id;
          const old = state.memories.find(find) ?? state.summary!;
          const next: MemoryView = {
            ...old,
            ...(change.text != null ? { text: change.text.trim() } : {}),
            ...(change.pinned != null ? { pinned: change.pinned } : {}),
            ...(change.forgotten != null ? { forgotten: change.forgotten } : {}),
          };
          if (old.kind === 'summary') state = { ...state, summary: next };
          else state = { ...state, memories: state.memories.map((x) => (find(x) ? next : x)) };
          return json(200, { ...next, used_last_turn: false, uses: 0, embedded: false });
        },
      ]),
    ),
    ...routes,
  });
}

const openPanel = () => openDrawer(() => pickMore(en['solo.memory.open']), en['solo.memory.title'], 'memory-status');

const items = (panel: HTMLElement) => within(panel).getAllByTestId('memory');
const item = (panel: HTMLElement, text: string) => {
  const found = items(panel).find((li) => within(li).queryByTestId('memory-text')?.textContent === text);
  if (!found) throw new Error(`no memory ${text}`);
  return found;
};
const btn = (scope: HTMLElement, name: string) => within(scope).getByRole('button', { name });
const tags = (li: HTMLElement) => [...li.querySelectorAll('.tag')].map((t) => t.textContent);

// saveSummary edits the running summary to text and saves it.
function saveSummary(summary: HTMLElement, text: string) {
  fireEvent.click(btn(summary, en['solo.memory.edit']));
  fireEvent.change(within(summary).getByLabelText(en['solo.memory.editText']), { target: { value: text } });
  fireEvent.click(btn(summary, en['common.save']));
}

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

// ---- the Memory drawer -----------------------------------------------------

describe('memory drawer', () => {
  it('lists the line’s memories in story order with their marks, the summary on top, and the recall status', async () => {
    stubBank(bank({ job: { pending: false, last_error: 'provider_unavailable: connection refused', last_run_at: T0 } }));
    const panel = await openPanel();

    // the status line: the scorer, top-K and capacity, the failed run
    expect(within(panel).getByTestId('memory-recall').textContent).toBe(en['solo.memory.recall.bm25']);
    expect(within(panel).getByTestId('memory-limits').textContent).toBe(
      format(en['solo.memory.limits'], { k: 5, capacity: 200 }),
    );
    expect(within(panel).getByTestId('memory-job').textContent).toBe('');
    const warn = within(panel).getByTestId('memory-job-error');
    expect(warn.textContent).toContain(en['solo.memory.jobFailed']);
    expect(warn.textContent).toContain('connection refused');

    // the summary first, editable but neither pinned nor forgotten
    const summary = within(panel).getByTestId('memory-summary');
    expect(within(summary).getByTestId('memory-text').textContent).toBe(SUMMARY.text);
    expect(within(summary).getByTestId('memory-where').textContent).toBe(format(en['solo.memory.where.upTo'], { n: 11 }));
    expect(within(summary).getAllByRole('button').map((b) => b.textContent)).toEqual([en['solo.memory.edit']]);

    // the list, in story order
    const list = items(panel).filter((li) => !summary.contains(li));
    expect(list.map((li) => within(li).getByTestId('memory-text').textContent)).toEqual([BLOCK.text, NOTE.text, OLD.text]);
    expect(list.map((li) => within(li).getByTestId('memory-where').textContent)).toEqual([
      format(en['solo.memory.where.turns'], { from: 0, to: 5 }),
      format(en['solo.memory.where.turn'], { n: 6 }),
      format(en['solo.memory.where.turns'], { from: 6, to: 11 }),
    ]);
    const [block, note, old] = list as [HTMLElement, HTMLElement, HTMLElement];
    expect(tags(block)).toEqual([en['solo.memory.kind.block'], en['solo.memory.used']]);
    expect(block.getAttribute('data-used')).toBe('true');
    expect(block.textContent).toContain(format(en['solo.memory.uses'], { n: 3 }));
    expect(tags(note)).toEqual([en['solo.memory.kind.note'], en['solo.memory.pinned']]);
    expect(note.getAttribute('data-pinned')).toBe('true');
    expect(tags(old)).toEqual([en['solo.memory.kind.block'], en['solo.memory.forgotten'], en['solo.memory.stale']]);
    expect(old.className).toContain('is-forgotten');
    expect(old.getAttribute('data-stale')).toBe('true');
    // each memory's controls say what they would do to it
    expect(btn(block, en['solo.memory.pin'])).toBeTruthy();
    expect(btn(note, en['solo.memory.unpin'])).toBeTruthy();
    expect(btn(old, en['solo.memory.unforget'])).toBeTruthy();
    expect(btn(block, en['solo.memory.forget']).getAttribute('aria-describedby')).toBe(
      within(block).getByTestId('memory-text').id,
    );
  });

  it('names the embedding model, says when the bank is writing, and says when it is empty', async () => {
    const view = narratorSettings({ embedding_model: 'nomic-embed-text', memory_top_k: 8, memory_capacity: 500 });
    stubBank(
      bank({ memories: [], summary: null, scorer: 'embedding', top_k: 8, capacity: 500, job: { pending: true, last_error: '', last_run_at: null } }),
      { 'GET /api/solo/settings': () => json(200, view) },
    );
    const panel = await openPanel();
    expect(within(panel).getByTestId('memory-recall').textContent).toBe(
      format(en['solo.memory.recall.embedding'], { model: 'nomic-embed-text' }),
    );
    expect(within(panel).getByTestId('memory-limits').textContent).toBe(
      format(en['solo.memory.limits'], { k: 8, capacity: 500 }),
    );
    expect(within(panel).getByTestId('memory-job').textContent).toBe(en['solo.memory.pending']);
    expect(within(panel).queryByTestId('memory-job-error')).toBeNull();
    expect(within(panel).getByTestId('memory-empty').textContent).toBe(en['solo.memory.empty']);
    expect(within(panel).queryByTestId('memory-summary')).toBeNull();
  });

  it('pins with PATCH {pinned: true}, keeps the used mark, then unpins', async () => {
    stubBank();
    const panel = await openPanel();
    const block = () => item(panel, BLOCK.text);
    fireEvent.click(btn(block(), en['solo.memory.pin']));
    await waitFor(() => expect(callsTo('PATCH', '/api/adventures/7/memories/11')).toHaveLength(1));
    expect(callsTo('PATCH', '/api/adventures/7/memories/11')[0]!.body).toEqual({ pinned: true });
    await waitFor(() => expect(block().getAttribute('data-pinned')).toBe('true'));
    expect(tags(block())).toEqual([en['solo.memory.kind.block'], en['solo.memory.pinned'], en['solo.memory.used']]);

    fireEvent.click(btn(block(), en['solo.memory.unpin']));
    await waitFor(() => expect(callsTo('PATCH', '/api/adventures/7/memories/11')).toHaveLength(2));
    expect(callsTo('PATCH', '/api/adventures/7/memories/11')[1]!.body).toEqual({ pinned: false });
    await waitFor(() => expect(block().getAttribute('data-pinned')).toBe('false'));
    expect(btn(block(), en['solo.memory.pin'])).toBeTruthy();
  });

  it('forgets and un-forgets a memory', async () => {
    stubBank();
    const panel = await openPanel();
    const note = () => item(panel, NOTE.text);
    fireEvent.click(btn(note(), en['solo.memory.forget']));
    await waitFor(() => expect(note().getAttribute('data-forgotten')).toBe('true'));
    expect(callsTo('PATCH', '/api/adventures/7/memories/12')[0]!.body).toEqual({ forgotten: true });
    expect(note().className).toContain('is-forgotten');
    expect(tags(note())).toContain(en['solo.memory.forgotten']);

    fireEvent.click(btn(note(), en['solo.memory.unforget']));
    await waitFor(() => expect(note().getAttribute('data-forgotten')).toBe('false'));
    expect(callsTo('PATCH', '/api/adventures/7/memories/12')[1]!.body).toEqual({ forgotten: false });
    expect(note().className).not.toContain('is-forgotten');
    expect(btn(note(), en['solo.memory.forget'])).toBeTruthy();
  });

  it('edits a memory and the summary inline; cancel keeps the text', async () => {
    stubBank();
    const panel = await openPanel();
    const note = () => item(panel, NOTE.text);

    // cancel: nothing is sent
    fireEvent.click(btn(note(), en['solo.memory.edit']));
    const box = within(panel).getByLabelText(en['solo.memory.editText']) as HTMLTextAreaElement;
    expect(box.value).toBe(NOTE.text);
    fireEvent.change(box, { target: { value: 'Something else.' } });
    fireEvent.click(btn(panel, en['common.cancel']));
    expect(within(panel).queryByLabelText(en['solo.memory.editText'])).toBeNull();
    expect(note()).toBeTruthy();
    expect(callsTo('PATCH', '/api/adventures/7/memories/12')).toHaveLength(0);

    // save
    fireEvent.click(btn(note(), en['solo.memory.edit']));
    fireEvent.change(within(panel).getByLabelText(en['solo.memory.editText']), {
      target: { value: 'Mara promised Bram she would return by midsummer.' },
    });
    fireEvent.click(btn(panel, en['common.save']));
    await waitFor(() => expect(callsTo('PATCH', '/api/adventures/7/memories/12')).toHaveLength(1));
    expect(callsTo('PATCH', '/api/adventures/7/memories/12')[0]!.body).toEqual({
      text: 'Mara promised Bram she would return by midsummer.',
    });
    expect(await within(panel).findByText('Mara promised Bram she would return by midsummer.')).toBeTruthy();
    expect(within(panel).queryByLabelText(en['solo.memory.editText'])).toBeNull();

    // the running summary
    const summary = within(panel).getByTestId('memory-summary');
    saveSummary(summary, 'Mara is at the Gilded Goose.');
    await waitFor(() => expect(callsTo('PATCH', '/api/adventures/7/memories/20')).toHaveLength(1));
    expect(callsTo('PATCH', '/api/adventures/7/memories/20')[0]!.body).toEqual({ text: 'Mara is at the Gilded Goose.' });
    await waitFor(() => expect(within(summary).getByTestId('memory-text').textContent).toBe('Mara is at the Gilded Goose.'));
  });

  it('shows a refused change at its memory', async () => {
    stubBank(bank(), { 'PATCH /api/adventures/7/memories/20': () => apiError(400, 'memory_invalid') });
    const panel = await openPanel();
    const summary = within(panel).getByTestId('memory-summary');
    saveSummary(summary, 'x'.repeat(1001));
    const alert = await within(summary).findByRole('alert');
    expect(alert.textContent).toContain(en['solo.memory.changeFailed']);
    expect(alert.textContent).toContain(errorsEn.memory_invalid);
    // the draft stays for another try
    expect((within(summary).getByLabelText(en['solo.memory.editText']) as HTMLTextAreaElement).value).toBe('x'.repeat(1001));
  });

  it('adds a memory by hand (pinned); a 400 memory_invalid shows its text and keeps the draft', async () => {
    stubBank(bank({ memories: [BLOCK] }), {}, 1);
    const panel = await openPanel();

    const text = within(panel).getByLabelText(en['solo.memory.add.text']) as HTMLTextAreaElement;
    const submit = btn(panel, en['solo.memory.add.submit']) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.change(text, { target: { value: 'Mara promised Bram the innkeeper she would return to the Gilded Goose' } });
    fireEvent.click(within(panel).getByLabelText(en['solo.memory.add.pinned']));
    fireEvent.click(submit);
    const alert = await within(panel).findByRole('alert');
    expect(alert.textContent).toContain(en['solo.memory.add.failed']);
    expect(alert.textContent).toContain(errorsEn.memory_invalid);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    expect(text.value).toBe('Mara promised Bram the innkeeper she would return to the Gilded Goose');
    expect(text.getAttribute('aria-invalid')).toBe('true');

    fireEvent.click(submit);
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/memories')).toHaveLength(2));
    expect(callsTo('POST', '/api/adventures/7/memories')[1]!.body).toEqual({
      text: 'Mara promised Bram the innkeeper she would return to the Gilded Goose',
      pinned: true,
    });
    const added = await waitFor(() => item(panel, 'Mara promised Bram the innkeeper she would return to the Gilded Goose'));
    expect(added.getAttribute('data-kind')).toBe('note');
    expect(added.getAttribute('data-pinned')).toBe('true');
    expect(text.value).toBe('');
    expect((within(panel).getByLabelText(en['solo.memory.add.pinned']) as HTMLInputElement).checked).toBe(false);
    expect(within(panel).queryByRole('alert')).toBeNull();
    // the bank is reloaded: it now has work to do
    await waitFor(() => expect(within(panel).getByTestId('memory-job').textContent).toBe(en['solo.memory.pending']));
    expect(callsTo('GET', '/api/adventures/7/memories').length).toBeGreaterThanOrEqual(2);
  });

  it('closes on Escape and gives the focus back to the overflow menu that holds the Memory button', async () => {
    stubBank();
    const panel = await openPanel();
    expect(document.activeElement).toBe(btn(panel, en['solo.memory.close']));
    fireEvent.keyDown(panel, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: en['reader.more'] }));
  });
});

// ---- the Insights drawer ---------------------------------------------------

function insights(over: Partial<Insights> = {}): Insights {
  return {
    action_id: 3,
    budget: 8000,
    total_tokens: 1234,
    sections: [{ name: 'memories', tokens: 40, fixed: false }],
    cards: [],
    history_turns: 2,
    messages: [{ role: 'system', content: 'You narrate.' }],
    memories: [],
    usage: { prompt_tokens: 1200, completion_tokens: 90, cached_prompt_tokens: 10 },
    expired: false,
    ...over,
  };
}

function openInsights(ins: Insights) {
  stubServer({ ...PLAY, 'GET /api/actions/3/insights': () => json(200, ins) });
  return openDrawer(() => fireEvent.click(screen.getByRole('button', { name: en['solo.insights.open'] })), en['solo.insights.title'], 'insights-usage');
}

describe('insights: memories', () => {
  it('lists the memories the prompt carried with what chose each and its score', async () => {
    const drawer = await openInsights(
      insights({
        memories: [
          { id: 12, text: 'Mara promised Bram she would return.', scorer: 'pinned', score: 0 },
          { id: 11, text: 'Mara met Bram the innkeeper.', scorer: 'bm25', score: 3.14159 },
          { id: 14, text: 'The road is flooded.', scorer: 'embedding', score: 0.8765 },
        ],
      }),
    );
    expect(within(drawer).getByRole('heading', { name: en['solo.insights.memories'] })).toBeTruthy();
    const rows = within(within(drawer).getByTestId('insights-memories')).getAllByRole('row');
    expect(rows.map((r) => [...r.children].map((c) => c.textContent))).toEqual([
      [en['solo.insights.memory'], en['solo.insights.scorer'], en['solo.insights.score']],
      ['Mara promised Bram she would return.', en['solo.insights.scorer.pinned'], '0.00'],
      ['Mara met Bram the innkeeper.', en['solo.insights.scorer.bm25'], '3.14'],
      ['The road is flooded.', en['solo.insights.scorer.embedding'], '0.88'],
    ]);
    expect(within(drawer).getAllByTestId('insight-memory').map((r) => r.getAttribute('data-scorer'))).toEqual([
      'pinned',
      'bm25',
      'embedding',
    ]);
    expect(within(drawer).queryByTestId('insights-no-memories')).toBeNull();
  });

  it('says when no memory was relevant', async () => {
    const drawer = await openInsights(insights());
    expect(within(drawer).getByTestId('insights-no-memories').textContent).toBe(en['solo.insights.noMemories']);
    expect(within(drawer).queryByTestId('insights-memories')).toBeNull();
  });

  it('shows only the usage of a turn whose prompt expired', async () => {
    const drawer = await openInsights(
      insights({ expired: true, sections: [], messages: [], budget: 0, total_tokens: 0, history_turns: 0 }),
    );
    expect(within(drawer).getByTestId('insights-expired').textContent).toBe(en['solo.insights.expired']);
    expect(within(drawer).getByTestId('insights-usage').textContent).toContain('1200 / 90 / 10');
    expect(within(drawer).queryByTestId('insights-sections')).toBeNull();
    expect(within(drawer).queryByTestId('insights-budget')).toBeNull();
    expect(within(drawer).queryByText(en['solo.insights.memories'])).toBeNull();
    expect(drawer.querySelectorAll('pre')).toHaveLength(0);
  });
});

// ---- the memory settings of the narrator model ------------------------------

describe('narrator settings: memory', () => {
  it('shows and sends the embedding model, memories per turn and memory capacity', async () => {
    const view = narratorSettings();
    stubServer({
      'GET /api/scenarios': () => json(200, { scenarios: [] }),
      'GET /api/adventures': () => json(200, { adventures: [] }),
      'GET /api/solo/settings': () => json(200, view),
      'PUT /api/solo/settings': (body) => json(200, { ...view, ...(body as object) }),
    });
    renderApp('/solo');
    const embedding = (await screen.findByLabelText(en['solo.provider.embeddingModel'])) as HTMLInputElement;
    const topK = screen.getByLabelText(en['solo.provider.memoryTopK']) as HTMLInputElement;
    const capacity = screen.getByLabelText(en['solo.provider.memoryCapacity']) as HTMLInputElement;
    expect(embedding.value).toBe('');
    expect(embedding.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(embedding.getAttribute('aria-describedby')!)!.textContent).toBe(
      en['solo.provider.embeddingModelHint'],
    );
    expect(topK.value).toBe('5');
    expect(capacity.value).toBe('200');
    expect([topK.min, topK.max, capacity.min, capacity.max]).toEqual(['1', '20', '10', '10000']);

    fireEvent.change(embedding, { target: { value: ' nomic-embed-text ' } });
    fireEvent.change(topK, { target: { value: '8' } });
    fireEvent.change(capacity, { target: { value: '500' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.provider.save'] }));
    await waitFor(() => expect(callsTo('PUT', '/api/solo/settings')).toHaveLength(1));
    expect(callsTo('PUT', '/api/solo/settings')[0]!.body).toMatchObject({
      embedding_model: 'nomic-embed-text',
      memory_top_k: 8,
      memory_capacity: 500,
    });
    await screen.findByText(en['common.saved']);
    expect(embedding.value).toBe('nomic-embed-text');
  });
});
