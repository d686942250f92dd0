// The solo reader and its first run, against a fake server at the fetch
// boundary: the icon actions and the overflow menu, Edit on the newest turn,
// the reading options remembered in localStorage, the "You" mark, red damage
// chips, the link from a model error to the model settings (with their extras
// under Advanced), and the starter stories on /solo.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en';
import { format } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';
import type { AdventurePage } from '../src/solo/api';
import { chipTrend } from '../src/solo/outcomes';
import { READER_STORAGE_KEY } from '../src/solo/readerPrefs';
import {
  adventureView,
  apiError,
  callsTo,
  json,
  narratorSettings,
  renderApp,
  resetEachTest,
  storyNode as node,
  stubServer,
  type Handler,
} from './fixtures';

resetEachTest();

const STORY = [
  node(1, 'opening', 'The bazaar opens like a pocket watch.'),
  node(2, 'player', 'I bow to the merchant', { depth: 1 }),
  node(3, 'narration', 'He bows back, steaming.', {
    depth: 2,
    outcomes: [
      { path: 'player.hp', status: 'applied', from: 10, to: 7 },
      { path: 'player.memories', status: 'applied', from: 3, to: 4 },
    ],
  }),
];

function page(): AdventurePage {
  return { adventure: adventureView({ id: 7, head_depth: 2 }), story: STORY, has_more: false };
}

function stubPlay(routes: Record<string, Handler> = {}) {
  return stubServer({
    'GET /api/adventures/7': () => json(200, page()),
    'GET /api/adventures/7/branches': () => json(200, { branches: [] }),
    ...routes,
  });
}

const button = (name: string) => screen.getByRole('button', { name });

describe('the reader', () => {
  it('offers retry, undo, continue and edit as named icon buttons, and the rest in one overflow menu', async () => {
    stubPlay();
    renderApp('/solo/adventures/7');
    await screen.findByText('He bows back, steaming.');
    const controls = screen.getByRole('group', { name: en['solo.controls'] });
    for (const name of [en['solo.retry'], en['solo.undo'], en['solo.continue'], en['reader.edit']]) {
      const b = within(controls).getByRole('button', { name });
      expect(b.textContent).toBe('');
      expect(b.querySelector('svg')).not.toBeNull();
    }
    const more = within(controls).getByRole('button', { name: en['reader.more'] });
    expect(more.getAttribute('aria-haspopup')).toBe('true');
    expect(screen.queryByRole('menu')).toBeNull();
    fireEvent.click(more);
    expect(more.getAttribute('aria-expanded')).toBe('true');
    const items = screen.getByRole('menu', { name: en['reader.more'] });
    expect(within(items).getAllByRole('menuitem').map((i) => i.textContent)).toEqual([
      en['solo.insights.last'],
      en['solo.memory.open'],
      en['solo.lore.open'],
      en['solo.console.open'],
      en['agents.open'],
      en['solo.settings.open'],
      en['solo.refresh.open'],
      en['solo.bundle.exportAdventure'],
    ]);
    // picking an item closes the menu
    fireEvent.click(within(items).getByRole('menuitem', { name: en['solo.settings.open'] }));
    expect(more.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByRole('menu')).toBeNull();
  });

  it('Edit opens the newest turn’s text for editing', async () => {
    stubPlay();
    renderApp('/solo/adventures/7');
    await screen.findByText('He bows back, steaming.');
    expect(screen.queryByRole('textbox', { name: format(en['solo.edit.text'], { depth: 2 }) })).toBeNull();
    fireEvent.click(button(en['reader.edit']));
    const box = screen.getByRole('textbox', { name: format(en['solo.edit.text'], { depth: 2 }) }) as HTMLTextAreaElement;
    expect(box.value).toBe('He bows back, steaming.');
  });

  it('marks what the player wrote with “You”, not by colour alone, and shows damage as a loss', async () => {
    stubPlay();
    renderApp('/solo/adventures/7');
    await screen.findByText('He bows back, steaming.');
    const nodes = screen.getAllByTestId('story-node');
    expect(within(nodes[1]!).getByTestId('author-mark').textContent).toBe(en['reader.you']);
    expect(within(nodes[2]!).queryByTestId('author-mark')).toBeNull();
    const chips = screen.getAllByTestId('stat-chip');
    expect(chips.map((c) => [c.textContent, c.getAttribute('data-trend')])).toEqual([
      ['hp \u22123', 'loss'],
      ['memories +1', 'gain'],
    ]);
    expect(chips[0]!.classList.contains('trend-loss')).toBe(true);
  });

  it('remembers the reading font and size in this browser', async () => {
    stubPlay();
    const first = renderApp('/solo/adventures/7');
    await screen.findByText('He bows back, steaming.');
    const reader = screen.getByTestId('solo-reader');
    expect([reader.getAttribute('data-font'), reader.getAttribute('data-size')]).toEqual(['serif', 'm']);
    fireEvent.click(button(en['reader.options']));
    const options = screen.getByTestId('reader-options');
    fireEvent.click(within(options).getByLabelText(en['reader.font.hyperlegible']));
    fireEvent.click(within(options).getByLabelText(en['reader.size.xl']));
    expect([reader.getAttribute('data-font'), reader.getAttribute('data-size')]).toEqual(['hyperlegible', 'xl']);
    expect(JSON.parse(localStorage.getItem(READER_STORAGE_KEY)!)).toEqual({ font: 'hyperlegible', size: 'xl' });
    first.unmount();

    renderApp('/solo/adventures/7');
    await screen.findByText('He bows back, steaming.');
    expect(screen.getByTestId('solo-reader').getAttribute('data-font')).toBe('hyperlegible');
  });

  it('reads anything else stored as the default choice', async () => {
    localStorage.setItem(READER_STORAGE_KEY, '{"font":"comic","size":9}');
    stubPlay();
    renderApp('/solo/adventures/7');
    await screen.findByText('He bows back, steaming.');
    const reader = screen.getByTestId('solo-reader');
    expect([reader.getAttribute('data-font'), reader.getAttribute('data-size')]).toEqual(['serif', 'm']);
  });

  it('a turn the model endpoint could not take links to the model settings', async () => {
    stubPlay({ 'POST /api/adventures/7/turns': () => apiError(502, 'provider_unavailable') });
    renderApp('/solo/adventures/7');
    await screen.findByText('He bows back, steaming.');
    fireEvent.change(screen.getByPlaceholderText(en['solo.prompt.do']), { target: { value: 'I ask about my sister' } });
    fireEvent.click(button(en['solo.send']));
    const link = await screen.findByRole('link', { name: en['modelSettings.link'] });
    expect(link.getAttribute('href')).toBe('/solo#model-settings');
  });

  it('an error the model settings cannot fix has no such link', async () => {
    stubPlay({ 'POST /api/adventures/7/turns': () => apiError(409, 'turn_in_progress') });
    renderApp('/solo/adventures/7');
    await screen.findByText('He bows back, steaming.');
    fireEvent.change(screen.getByPlaceholderText(en['solo.prompt.do']), { target: { value: 'again' } });
    fireEvent.click(button(en['solo.send']));
    await screen.findByRole('alert');
    expect(screen.queryByRole('link', { name: en['modelSettings.link'] })).toBeNull();
  });
});

describe('chipTrend', () => {
  it('is a loss when a number goes down, a gain when it goes up, else a setting', () => {
    expect(chipTrend({ path: 'hp', status: 'applied', from: 5, to: 2 })).toBe('loss');
    expect(chipTrend({ path: 'hp', status: 'clamped', from: 5, to: 9 })).toBe('gain');
    expect(chipTrend({ path: 'hp', status: 'rejected', from: 5, to: 2 })).toBe('set');
    expect(chipTrend({ path: 'door', status: 'applied', from: false, to: true })).toBe('set');
  });
});

// ---- the solo page ---------------------------------------------------------

const STARTERS = {
  starters: [
    { slug: 'clockwork-bazaar', title: 'The Clockwork Bazaar', premise: 'A bazaar of brass.', has_scripts: true, cards: 3 },
    { slug: 'frost-road', title: 'The Frost Road', premise: 'A caravan in the snow.', has_scripts: false, cards: 4 },
  ],
};

function stubSolo(adventures: unknown[], routes: Record<string, Handler> = {}) {
  return stubServer({
    'GET /api/scenarios': () => json(200, { scenarios: [] }),
    'GET /api/adventures': () => json(200, { adventures }),
    'GET /api/solo/settings': () => json(200, narratorSettings()),
    'GET /api/solo/starters': () => json(200, STARTERS),
    ...routes,
  });
}

describe('starter stories', () => {
  it('come first for a newcomer; Start imports one and opens the new adventure', async () => {
    stubSolo([], {
      'POST /api/solo/starters/clockwork-bazaar/play': () => json(201, page()),
      'GET /api/adventures/7': () => json(200, page()),
      'GET /api/adventures/7/branches': () => json(200, { branches: [] }),
    });
    renderApp('/solo');
    const start = await screen.findByRole('button', { name: format(en['starters.startLabel'], { title: 'The Clockwork Bazaar' }) });
    const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings[0]).toBe(en['starters.title']);
    expect(within(screen.getAllByTestId('starter')[0]!).getByText(en['starters.scripted'])).toBeTruthy();
    expect(within(screen.getAllByTestId('starter')[1]!).queryByText(en['starters.scripted'])).toBeNull();
    fireEvent.click(start);
    await screen.findByText('He bows back, steaming.');
    expect(callsTo('POST', '/api/solo/starters/clockwork-bazaar/play')).toHaveLength(1);
  });

  it('stay below a player’s own adventures and scenarios once they have some', async () => {
    stubSolo([{ id: 7, title: 'The Old Mill', updated_at: '2025-01-01T10:00:00Z' }]);
    renderApp('/solo');
    await screen.findAllByTestId('starter');
    const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings.indexOf(en['starters.title'])).toBeGreaterThan(headings.indexOf(en['solo.scenarios.title']));
  });

  it('read in Chinese in zh-TW', async () => {
    localStorage.setItem('adventure-table.language', 'zh-TW');
    stubSolo([]);
    renderApp('/solo');
    expect(await screen.findByRole('heading', { name: zhTW['starters.title'] })).toBeTruthy();
    expect(await screen.findByRole('button', { name: format(zhTW['starters.startLabel'], { title: 'The Frost Road' }) })).toBeTruthy();
  });
});

describe('model settings', () => {
  it('keep the endpoint, model and key up front and the rest under Advanced', async () => {
    stubSolo([]);
    renderApp('/solo');
    const settings = await screen.findByTestId('provider-settings');
    await waitFor(() => expect(within(settings).getByLabelText(en['solo.provider.baseUrl'])).toBeTruthy());
    expect(settings.id).toBe('model-settings');
    const advanced = within(settings).getByTestId('provider-advanced') as HTMLDetailsElement;
    expect(advanced.open).toBe(false);
    for (const label of [en['solo.provider.topP'], en['solo.provider.temperature'], en['solo.provider.memoryTopK'], en['solo.provider.contextBudget']]) {
      expect(advanced.contains(within(settings).getByLabelText(label))).toBe(true);
    }
    for (const label of [en['solo.provider.baseUrl'], en['solo.provider.model'], en['solo.provider.apiKey']]) {
      expect(advanced.contains(within(settings).getByLabelText(label))).toBe(false);
    }
    expect(advanced.contains(within(settings).getByRole('button', { name: en['solo.provider.testConnection'] }))).toBe(false);
  });
});
