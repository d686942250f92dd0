// The play screen's reading aids: the per-turn action menu (⋯) driven from the
// keyboard, the keyboard shortcuts (retry, undo, continue, send) and the help
// popover that lists them.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en';
import { zhTW } from '../src/i18n/zh-TW';
import { format } from '../src/i18n/messages';
import type { ActionView, AdventurePage } from '../src/solo/api';
import { adventureView, callsTo, json, renderApp, resetEachTest, storyNode as node, stubServer } from './fixtures';


const STORY = [
  node(1, 'opening', 'The mill wheel creaks in the dark.'),
  node(2, 'player', 'I knock', { depth: 1 }),
  node(3, 'narration', 'Nobody answers.', { depth: 2 }),
];

function page(story: ActionView[] = STORY): AdventurePage {
  return {
    adventure: adventureView({
      title: 'The Old Mill',
      persona_name: 'Ann',
      persona_pronouns: 'she/her',
      head_depth: story[story.length - 1]?.depth ?? 0,
    }),
    story,
    has_more: false,
  };
}

// a stream that never ends: the turn stays live, which is all these tests need
const pending = () => new Response(new ReadableStream(), { status: 200, headers: { 'Content-Type': 'text/event-stream' } });

function serve() {
  stubServer({
    'GET /api/adventures/7': () => json(200, page()),
    'GET /api/adventures/7/branches': () => json(200, { branches: [] }),
    'POST /api/adventures/7/retry': pending,
    'POST /api/adventures/7/turns': pending,
    'POST /api/adventures/7/undo': () => json(200, page(STORY.slice(0, 1))),
  });
}

const menuButton = (depth: number) => screen.getByRole('button', { name: format(en['solo.menu.label'], { depth }) });
const forkButton = (depth: number) => screen.getByRole('button', { name: format(en['solo.fork.label'], { depth }) });
const editButton = (depth: number) => screen.getByRole('button', { name: format(en['solo.edit.label'], { depth }) });
const deleteButton = (depth: number) => screen.getByRole('button', { name: format(en['solo.delete.label'], { depth }) });
const turnBox = () => screen.getByPlaceholderText(en['solo.prompt.do']) as HTMLTextAreaElement;
// fireEvent wraps the key in act itself; async so the calls read alike
const key = async (el: Element | Document, k: string, over: KeyboardEventInit = {}) => {
  fireEvent.keyDown(el, { key: k, ...over });
};

resetEachTest();

describe('turn menu', () => {
  it('opens from ⋯ with the keyboard, moves with the arrows, Home and End, and Escape closes it back to ⋯', async () => {
    serve();
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    const toggle = menuButton(2);
    const menu = toggle.closest('[data-testid="turn-menu"]')!;
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(menu.classList.contains('is-open')).toBe(false);
    // the items belong to the menu, not to the reading text
    const items = within(menu as HTMLElement).getByRole('group', { name: format(en['solo.menu.items'], { depth: 2 }) });
    expect(within(items).getAllByRole('button').map((b) => b.textContent)).toEqual([
      en['solo.fork'],
      en['solo.insights.open'],
      en['solo.edit'],
      en['solo.delete'],
    ]);

    toggle.focus();
    await key(toggle, 'ArrowDown');
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(menu.classList.contains('is-open')).toBe(true);
    expect(document.activeElement).toBe(forkButton(2));
    await key(document.activeElement!, 'ArrowDown');
    expect(document.activeElement?.textContent).toBe(en['solo.insights.open']);
    await key(document.activeElement!, 'ArrowRight');
    expect(document.activeElement).toBe(editButton(2));
    await key(document.activeElement!, 'ArrowDown');
    expect(document.activeElement).toBe(deleteButton(2));
    // wraps around both ways
    await key(document.activeElement!, 'ArrowDown');
    expect(document.activeElement).toBe(forkButton(2));
    await key(document.activeElement!, 'ArrowUp');
    expect(document.activeElement).toBe(deleteButton(2));
    await key(document.activeElement!, 'Home');
    expect(document.activeElement).toBe(forkButton(2));
    await key(document.activeElement!, 'End');
    expect(document.activeElement).toBe(deleteButton(2));

    await key(document.activeElement!, 'Escape');
    expect(document.activeElement).toBe(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(menu.classList.contains('is-open')).toBe(false);
  });

  it('opens on click with the first item focused; its items still work and a delete waiting for its answer keeps it open', async () => {
    serve();
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    // the opening has no Delete; the player's turn has no Insights
    expect(within(menuButton(0).closest('[data-testid="turn-menu"]') as HTMLElement).queryByText(en['solo.delete'])).toBeNull();
    expect(within(menuButton(1).closest('[data-testid="turn-menu"]') as HTMLElement).queryByText(en['solo.insights.open'])).toBeNull();

    fireEvent.click(menuButton(1));
    expect(menuButton(1).getAttribute('aria-expanded')).toBe('true');
    expect(document.activeElement).toBe(forkButton(1));
    // ArrowUp from ⋯ lands on the last item
    await key(menuButton(1), 'ArrowUp');
    expect(document.activeElement).toBe(deleteButton(1));
    fireEvent.click(deleteButton(1));
    const confirm = screen.getByRole('group', { name: format(en['solo.delete.label'], { depth: 1 }) });
    expect(menuButton(1).getAttribute('aria-expanded')).toBe('true');
    fireEvent.click(within(confirm).getByRole('button', { name: en['common.no'] }));
    expect(document.activeElement).toBe(deleteButton(1));

    fireEvent.click(editButton(2));
    expect((screen.getByRole('textbox', { name: format(en['solo.edit.text'], { depth: 2 }) }) as HTMLTextAreaElement).value).toBe(
      'Nobody answers.',
    );
  });
});

describe('keyboard shortcuts', () => {
  it('r retries when no text field has focus; while the turn runs c and u wait like their buttons', async () => {
    serve();
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    await key(document.body, 'r');
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/retry')).toHaveLength(1));
    // a turn is live: the shortcuts wait like the buttons do
    await key(document.body, 'c');
    await key(document.body, 'u');
    expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(0);
    expect(callsTo('POST', '/api/adventures/7/undo')).toHaveLength(0);
  });

  it('c continues and u undoes; modifier keys and repeats are not shortcuts', async () => {
    serve();
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    await key(document.body, 'u', { ctrlKey: true });
    await key(document.body, 'c', { metaKey: true });
    await key(document.body, 'r', { altKey: true });
    await key(document.body, 'u', { repeat: true });
    expect(callsTo('POST', '/api/adventures/7/undo')).toHaveLength(0);
    expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(0);
    expect(callsTo('POST', '/api/adventures/7/retry')).toHaveLength(0);
    await key(document.body, 'u');
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/undo')).toHaveLength(1));
    await waitFor(() => expect(screen.queryByText('Nobody answers.')).toBeNull());
    await key(document.body, 'C');
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    expect(callsTo('POST', '/api/adventures/7/turns')[0]!.body).toEqual({ mode: 'continue', text: '' });
  });

  it('never fire while typing in a text field; Enter in the action box sends', async () => {
    serve();
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    const box = turnBox();
    box.focus();
    for (const k of ['r', 'u', 'c', '?']) await key(box, k);
    // a field elsewhere on the page (the menu's edit box) is no different
    fireEvent.click(editButton(2));
    const edit = screen.getByRole('textbox', { name: format(en['solo.edit.text'], { depth: 2 }) });
    for (const k of ['r', 'u', 'c', '?']) await key(edit, k);
    expect(callsTo('POST', '/api/adventures/7/retry')).toHaveLength(0);
    expect(callsTo('POST', '/api/adventures/7/undo')).toHaveLength(0);
    expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(0);
    expect(screen.queryByTestId('shortcuts-help')).toBeNull();

    // nor inside a drawer: the Insights drawer keeps its keys
    fireEvent.click(screen.getAllByRole('button', { name: en['solo.insights.open'] })[0]!);
    const drawer = await screen.findByRole('dialog', { name: en['solo.insights.title'] });
    const close = within(drawer).getByRole('button', { name: en['solo.insights.close'] });
    for (const k of ['r', 'u', 'c', '?']) await key(close, k);
    expect(callsTo('POST', '/api/adventures/7/retry')).toHaveLength(0);
    expect(callsTo('POST', '/api/adventures/7/undo')).toHaveLength(0);
    expect(screen.queryByTestId('shortcuts-help')).toBeNull();
    fireEvent.click(close);

    fireEvent.change(box, { target: { value: 'I wait' } });
    await key(box, 'Enter');
    await waitFor(() => expect(callsTo('POST', '/api/adventures/7/turns')).toHaveLength(1));
    expect(callsTo('POST', '/api/adventures/7/turns')[0]!.body).toEqual({ mode: 'do', text: 'I wait' });
  });
});

describe('shortcuts help', () => {
  it('lists the shortcuts in a popover the button and ? open, Escape closes back to the button', async () => {
    serve();
    renderApp('/solo/adventures/7');
    await screen.findByText('Nobody answers.');
    const button = screen.getByRole('button', { name: new RegExp(`^${en['solo.shortcuts']}`) });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    // (a pointer's press focuses the button first, as in a browser)
    button.focus();
    fireEvent.click(button);
    const help = screen.getByRole('dialog', { name: en['solo.shortcuts.label'] });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    const rows = [...help.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]);
    expect(rows).toEqual([
      ['Enter', en['solo.shortcuts.send']],
      ['R', en['solo.shortcuts.retry']],
      ['U', en['solo.shortcuts.undo']],
      ['C', en['solo.shortcuts.continue']],
      ['?', en['solo.shortcuts.help']],
    ]);
    expect(help.textContent).toContain(en['solo.shortcuts.note']);

    await key(help, 'Escape');
    expect(screen.queryByRole('dialog', { name: en['solo.shortcuts.label'] })).toBeNull();
    // (React Aria gives focus back on the next frame)
    await waitFor(() => expect(document.activeElement).toBe(button));

    await key(document.body, '?');
    expect(screen.getByRole('dialog', { name: en['solo.shortcuts.label'] })).toBeTruthy();
    await key(document.body, '?');
    expect(screen.queryByRole('dialog', { name: en['solo.shortcuts.label'] })).toBeNull();
  });

  it('has every string in Traditional Chinese too', () => {
    for (const k of [
      'solo.menu.label',
      'solo.menu.items',
      'solo.shortcuts',
      'solo.shortcuts.label',
      'solo.shortcuts.send',
      'solo.shortcuts.retry',
      'solo.shortcuts.undo',
      'solo.shortcuts.continue',
      'solo.shortcuts.help',
      'solo.shortcuts.note',
    ] as const) {
      expect(zhTW[k]).toBeTruthy();
      expect(zhTW[k]).not.toBe(en[k]);
    }
  });
});
