// Story cards in play against a fake server at the fetch boundary: the
// Story cards drawer of the play screen (what the last prompt did with each
// card, edit, set aside, bring back, add, refusals), the token counter and
// the context-fill bar under the player's box, and the reasoning setting of
// the narrator.
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import errorsEn from '../src/i18n/errors.en.json';
import { format } from '../src/i18n/messages';
import { resetIdentity } from '../src/identity';
import type { AdventurePage, CardEdit, CardInput, PlayCard, PlayCards } from '../src/solo/api';
import { adventureView, apiError, callsTo, json, narratorSettings, pickMore, renderApp, storyNode, stubServer } from './fixtures';

const PAGE: AdventurePage = {
  adventure: adventureView(),
  story: [
    storyNode(1, 'opening', 'Rain drums on the roof of the Gilded Goose.', { depth: 0 }),
    storyNode(2, 'player', 'I greet Bram', { depth: 1 }),
    storyNode(3, 'narration', 'Bram nods at the door.', { depth: 2, has_prompt: true }),
  ],
  has_more: false,
};

function card(id: number, title: string, over: Partial<PlayCard> = {}): PlayCard {
  return {
    id,
    title,
    keys: [title],
    entry: `${title} entry.`,
    type: 'character',
    enabled: true,
    source: 'scenario',
    player_authored: false,
    last_turn: null,
    ...over,
  };
}

const BRAM = card(11, 'Bram', { entry: 'Bram keeps the inn.', last_turn: { trigger: 'Bram', tokens: 8, included: true } });
const GWEN = card(12, 'Gwen', { last_turn: { trigger: 'guard', tokens: 900, included: false } });
const MOON = card(13, 'Moon', { source: 'script', keys: [] });

function cards(over: Partial<PlayCards> = {}): PlayCards {
  return {
    cards: [BRAM, GWEN, MOON],
    max_cards: 500,
    last_build: { action_id: 3, budget: 8000, used: 2000, estimated: false },
    ...over,
  };
}

// stubCards answers the play screen and a card list that PATCH and POST
// change the way the server does; the first refuse writes are refused with
// code.
function stubCards(start: PlayCards = cards(), refuse = 0, code = 'card_invalid') {
  let state = structuredClone(start);
  let refused = 0;
  const edit = (id: number) => (body: unknown) => {
    if (refused++ < refuse) return apiError(code === 'turn_in_progress' ? 409 : 400, code);
    const e = body as CardEdit;
    const old = state.cards.find((c) => c.id === id)!;
    const content = e.title !== undefined || e.keys !== undefined || e.entry !== undefined || e.type !== undefined;
    const next: PlayCard = {
      ...old,
      ...(e.title !== undefined ? { title: e.title!.trim() } : {}),
      ...(e.keys !== undefined ? { keys: e.keys! } : {}),
      ...(e.entry !== undefined ? { entry: e.entry! } : {}),
      ...(e.type !== undefined ? { type: e.type! } : {}),
      ...(e.enabled !== undefined ? { enabled: e.enabled! } : {}),
      player_authored: old.player_authored || content,
    };
    state = { ...state, cards: state.cards.map((c) => (c.id === id ? next : c)) };
    return json(200, { ...next, last_turn: null });
  };
  return stubServer({
    'GET /api/adventures/7': () => json(200, PAGE),
    'GET /api/adventures/7/branches': () => json(200, { branches: [] }),
    'GET /api/adventures/7/cards': () => json(200, state),
    'POST /api/adventures/7/cards': (body) => {
      if (refused++ < refuse) return apiError(400, code);
      const input = body as CardInput;
      const c = card(100 + state.cards.length, input.title, { ...input, source: 'player', player_authored: true });
      state = { ...state, cards: [...state.cards, c] };
      return json(201, c);
    },
    'POST /api/solo/tokens': (body) =>
      json(200, { tokens: Math.ceil((body as { text: string }).text.length / 4), token_ratio: 1.25 }),
    ...Object.fromEntries(start.cards.map((c) => [`PATCH /api/adventures/7/cards/${c.id}`, edit(c.id)])),
  });
}

async function openLore() {
  renderApp('/solo/adventures/7');
  await screen.findByText('Bram nods at the door.');
  pickMore(en['solo.lore.open']);
  const drawer = await screen.findByRole('dialog', { name: en['solo.lore.title'] });
  await within(drawer).findByTestId('lore-count');
  return drawer;
}

const cardItem = (drawer: HTMLElement, id: number) => {
  const li = within(drawer)
    .getAllByTestId('lore-card')
    .find((x) => x.dataset.cardId === String(id));
  if (!li) throw new Error(`no card ${id}`);
  return li;
};
const btn = (scope: HTMLElement, name: string) => within(scope).getByRole('button', { name });
const tags = (li: HTMLElement) => [...li.querySelectorAll('.tag')].map((t) => t.textContent);

beforeEach(() => {
  resetIdentity();
  localStorage.clear();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('story cards in play', () => {
  it('lists the cards with what the last prompt did with each, and how full it was', async () => {
    stubCards();
    const drawer = await openLore();
    expect(within(drawer).getByTestId('lore-count').textContent).toBe(format(en['solo.lore.count'], { n: 3, max: 500 }));
    const bram = cardItem(drawer, 11);
    expect(bram.dataset.used).toBe('true');
    expect(tags(bram)).toContain(`${en['solo.lore.used']} ${format(en['solo.lore.trigger'], { key: 'Bram' })}`);
    expect(tags(cardItem(drawer, 12))).toContain(
      `${en['solo.lore.notFitted']} ${format(en['solo.lore.trigger'], { key: 'guard' })}`,
    );
    const moon = cardItem(drawer, 13);
    expect(tags(moon)).toContain(en['solo.lore.source.script']);
    expect(within(moon).getByText(en['solo.lore.noKeys'])).toBeTruthy();
    const fill = within(drawer).getByTestId('context-fill');
    expect(within(fill).getByTestId('context-fill-value').textContent).toBe(
      format(en['solo.lore.fillValue'], { used: 2000, budget: 8000, pct: 25 }),
    );
    expect(within(fill).getByTestId('context-fill-meter').getAttribute('value')).toBe('2000');
  });

  it('edits a card: the edit is sent, shown and marked as the player’s', async () => {
    stubCards();
    const drawer = await openLore();
    const bram = cardItem(drawer, 11);
    fireEvent.click(btn(bram, en['solo.lore.edit']));
    const form = within(bram).getByTestId('lore-edit');
    fireEvent.change(within(form).getByLabelText(en['solo.lore.field.entry']), { target: { value: 'Bram is a spy.' } });
    fireEvent.change(within(form).getByLabelText(en['solo.lore.field.keys']), { target: { value: 'Bram, innkeeper, ' } });
    fireEvent.click(btn(form, en['solo.lore.save']));
    await within(bram).findByText('Bram is a spy.');
    expect(callsTo('PATCH', '/api/adventures/7/cards/11')[0]!.body).toEqual({
      title: 'Bram',
      keys: ['Bram', 'innkeeper'],
      entry: 'Bram is a spy.',
      type: 'character',
      // every rule is said, so an edit can clear one
      secondary_keys: [],
      logic: 'and_any',
      constant: false,
      priority: 0,
    });
    // The mark comes with the card's refreshed state, which may render after
    // the entry does.
    await waitFor(() => expect(tags(cardItem(drawer, 11))).toContain(en['solo.lore.edited']));
    // what the last prompt did with it stays shown
    expect(cardItem(drawer, 11).dataset.used).toBe('true');
  });

  it('edits when a card fires: secondary keys, logic, priority and always in', async () => {
    stubCards();
    const drawer = await openLore();
    const bram = cardItem(drawer, 11);
    fireEvent.click(btn(bram, en['solo.lore.edit']));
    const form = within(bram).getByTestId('lore-edit');
    const logic = within(form).getByLabelText(en['solo.rules.logic']) as HTMLSelectElement;
    expect(logic.disabled).toBe(true); // no secondary keys yet
    fireEvent.change(within(form).getByLabelText(en['solo.rules.secondary']), { target: { value: 'peace, treaty' } });
    expect(logic.disabled).toBe(false);
    fireEvent.change(logic, { target: { value: 'not_any' } });
    fireEvent.change(within(form).getByLabelText(en['solo.rules.priority']), { target: { value: '250' } });
    fireEvent.click(within(form).getByLabelText(en['solo.rules.constant']));
    expect(within(form).getByTestId('card-rules').textContent).toContain(
      format(en['solo.rules.with.not_any'], { keys: 'peace, treaty' }),
    );
    fireEvent.click(btn(form, en['solo.lore.save']));
    await waitFor(() => expect(callsTo('PATCH', '/api/adventures/7/cards/11')).toHaveLength(1));
    expect(callsTo('PATCH', '/api/adventures/7/cards/11')[0]!.body).toMatchObject({
      secondary_keys: ['peace', 'treaty'],
      logic: 'not_any',
      constant: true,
      priority: 250,
    });
  });

  it('sets a card aside and brings it back', async () => {
    stubCards();
    const drawer = await openLore();
    const gwen = cardItem(drawer, 12);
    fireEvent.click(btn(gwen, en['solo.lore.disable']));
    await waitFor(() => expect(gwen.dataset.enabled).toBe('false'));
    expect(callsTo('PATCH', '/api/adventures/7/cards/12')[0]!.body).toEqual({ enabled: false });
    expect(tags(gwen)).toContain(en['solo.lore.setAside']);
    fireEvent.click(btn(gwen, en['solo.lore.enable']));
    await waitFor(() => expect(gwen.dataset.enabled).toBe('true'));
    expect(callsTo('PATCH', '/api/adventures/7/cards/12')[1]!.body).toEqual({ enabled: true });
  });

  it('adds a card of the player’s', async () => {
    stubCards();
    const drawer = await openLore();
    const add = within(drawer).getByTestId('lore-add');
    const submit = btn(add, en['solo.lore.add.submit']) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.change(within(add).getByLabelText(en['solo.lore.field.title']), { target: { value: ' Lantern ' } });
    fireEvent.change(within(add).getByLabelText(en['solo.lore.field.keys']), { target: { value: 'lantern，lamp' } });
    fireEvent.change(within(add).getByLabelText(en['solo.lore.field.entry']), { target: { value: 'It never goes out.' } });
    fireEvent.click(submit);
    await waitFor(() => expect(within(drawer).getAllByTestId('lore-card')).toHaveLength(4));
    expect(callsTo('POST', '/api/adventures/7/cards')[0]!.body).toEqual({
      title: 'Lantern',
      keys: ['lantern', 'lamp'],
      entry: 'It never goes out.',
      type: '',
    });
    expect(tags(cardItem(drawer, 103))).toContain(en['solo.lore.source.player']);
    expect((within(add).getByLabelText(en['solo.lore.field.title']) as HTMLInputElement).value).toBe('');
  });

  it('shows a refusal with its code and keeps the card as it was', async () => {
    stubCards(cards(), 1, 'turn_in_progress');
    const drawer = await openLore();
    const gwen = cardItem(drawer, 12);
    fireEvent.click(btn(gwen, en['solo.lore.disable']));
    await within(gwen).findByText(errorsEn.turn_in_progress);
    expect(gwen.dataset.enabled).toBe('true');
  });

  it('shows a bad card’s code on adding', async () => {
    stubCards(cards(), 1, 'card_invalid');
    const drawer = await openLore();
    const add = within(drawer).getByTestId('lore-add');
    fireEvent.change(within(add).getByLabelText(en['solo.lore.field.title']), { target: { value: 'x' } });
    fireEvent.click(btn(add, en['solo.lore.add.submit']));
    await within(add).findByText(errorsEn.card_invalid);
    expect(within(drawer).getAllByTestId('lore-card')).toHaveLength(3);
  });
});

describe('token counter and context fill under the input', () => {
  it('counts what is typed once typing pauses, marked ≈, and shows the last prompt’s fill', async () => {
    stubCards(cards({ last_build: { action_id: 3, budget: 4000, used: 3900, estimated: true } }));
    renderApp('/solo/adventures/7');
    await screen.findByText('Bram nods at the door.');
    const meter = screen.getByTestId('token-meter');
    await within(meter).findByTestId('context-fill-value');
    expect(within(meter).getByTestId('context-fill-value').textContent).toBe(
      format(en['solo.lore.fillEstimate'], { used: 3900, budget: 4000, pct: 98 }),
    );
    const box = screen.getByPlaceholderText(en['solo.prompt.do']);
    fireEvent.change(box, { target: { value: 'I open' } });
    fireEvent.change(box, { target: { value: 'I open the door' } });
    await waitFor(() =>
      expect(within(meter).getByTestId('token-count').textContent).toBe(format(en['solo.tokens.count'], { n: 4 })),
    );
    // one count for the pause, not one per keystroke
    expect(callsTo('POST', '/api/solo/tokens').map((c) => c.body)).toEqual([{ text: 'I open the door' }]);
    expect(within(meter).getByTestId('token-count').title).toBe(format(en['solo.tokens.hint'], { ratio: '1.25' }));
  });

  it('says no prompt was built yet before the first turn', async () => {
    stubCards(cards({ last_build: null }));
    renderApp('/solo/adventures/7');
    await screen.findByText('Bram nods at the door.');
    const meter = screen.getByTestId('token-meter');
    await within(meter).findByText(`${en['solo.lore.fill']}: ${en['solo.lore.fillNone']}`);
  });
});

describe('reasoning in the narrator settings', () => {
  it('sends the chosen reasoning effort, and none when unset', async () => {
    const view = narratorSettings({ model: 'gpt-oss', reasoning_effort: 'low' });
    stubServer({
      'GET /api/scenarios': () => json(200, { scenarios: [] }),
      'GET /api/adventures': () => json(200, { adventures: [] }),
      'GET /api/solo/settings': () => json(200, view),
      'PUT /api/solo/settings': (body) => json(200, { ...(body as object), api_key_set: false, token_ratio: 1 }),
    });
    renderApp('/solo');
    const effort = (await screen.findByLabelText(en['solo.provider.reasoning'])) as HTMLSelectElement;
    expect(effort.value).toBe('low');
    expect([...effort.options].map((o) => o.textContent)).toEqual([
      en['solo.provider.reasoning.unset'],
      en['solo.provider.reasoning.low'],
      en['solo.provider.reasoning.medium'],
      en['solo.provider.reasoning.high'],
    ]);
    fireEvent.change(effort, { target: { value: 'high' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.provider.save'] }));
    await waitFor(() => expect(callsTo('PUT', '/api/solo/settings')).toHaveLength(1));
    expect(callsTo('PUT', '/api/solo/settings')[0]!.body).toMatchObject({ reasoning_effort: 'high' });
    await screen.findByText(en['common.saved']);
    fireEvent.change(effort, { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: en['solo.provider.save'] }));
    await waitFor(() => expect(callsTo('PUT', '/api/solo/settings')).toHaveLength(2));
    expect(callsTo('PUT', '/api/solo/settings')[1]!.body).toMatchObject({ reasoning_effort: '' });
  });
});
