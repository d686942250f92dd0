// The campaign journal panel: what each reader sees of an entry (its kind,
// who knows it, a player's proposal), the actions the server allows them,
// and the form that writes an entry for the audiences the server offers (a
// player writing for some players always counts themselves in).
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../src/i18n/I18nProvider';
import type { JournalEntry, JournalView } from '../src/table/api';
import { JournalPanel } from '../src/table/Journal';
import { callsTo, json, stubServer } from './fixtures';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const entry = (id: number, over: Partial<JournalEntry>): JournalEntry => ({
  id,
  campaign_id: 5,
  kind: 'npc',
  title: `Entry ${id}`,
  text: '',
  audience: 'table',
  seat_ids: [],
  author_seat_id: 1,
  source_session_id: null,
  source_seq: null,
  confirmed: true,
  created_at: '2026-12-04T10:00:00Z',
  updated_at: '2026-12-04T10:00:00Z',
  can_edit: false,
  can_confirm: false,
  ...over,
});

const seats = [
  { id: 1, role: 'dm', label: 'DM' },
  { id: 2, role: 'player', label: 'Player 1', character: 'Aria' },
  { id: 3, role: 'player', label: 'Player 2', character: 'Borin' },
];

const view = (dm: boolean, entries: JournalEntry[]): JournalView => ({
  campaign_id: 5,
  campaign_name: 'Lantern Road',
  room_id: 9,
  entries,
  has_more: false,
  dm,
  seat_id: dm ? 1 : 2,
  audiences: dm ? ['table', 'seats', 'dm'] : ['table', 'seats'],
  seats,
});

const show = () =>
  render(
    <MemoryRouter>
      <I18nProvider>
        <JournalPanel campaignId={5} />
      </I18nProvider>
    </MemoryRouter>,
  );

describe('JournalPanel', () => {
  it('shows a player who knows each entry, their proposals, and only their own to change', async () => {
    stubServer({
      'GET /api/campaigns/5/journal': () =>
        json(
          200,
          view(false, [
            entry(3, { kind: 'clue', title: 'Muddy boots', author_seat_id: 2, confirmed: false, can_edit: true }),
            entry(2, { kind: 'item', title: 'Silver key', audience: 'seats', seat_ids: [2, 3], text: 'Under the mat.' }),
            entry(1, { title: 'Innkeeper Bram' }),
          ]),
        ),
    });
    show();
    const items = await screen.findAllByTestId('journal-entry');
    expect(items.map((e) => e.querySelector('h3')?.textContent)).toEqual(['Muddy boots', 'Silver key', 'Innkeeper Bram']);
    const [mine, key, bram] = items as [HTMLElement, HTMLElement, HTMLElement];
    expect(within(mine).getByText('Proposed')).toBeTruthy();
    expect(within(mine).getByText(/by Aria/)).toBeTruthy();
    expect(within(mine).getByRole('button', { name: 'Edit' })).toBeTruthy();
    expect(within(key).getByText('Known to Aria, Borin')).toBeTruthy();
    expect(within(key).getByText('Under the mat.')).toBeTruthy();
    expect(within(bram).getByText('The whole table')).toBeTruthy();
    for (const e of [key, bram]) {
      expect(within(e).queryByRole('button')).toBeNull();
      expect(within(e).queryByText('Proposed')).toBeNull();
    }
  });

  it('lets a player write for some players, themselves always among them, and never for the DM alone', async () => {
    stubServer({
      'GET /api/campaigns/5/journal': () => json(200, view(false, [])),
      'POST /api/campaigns/5/journal': () => json(201, entry(4, { confirmed: false })),
    });
    show();
    expect((await screen.findByTestId('journal-empty')).textContent).toMatch(/Nothing in the journal yet/);
    fireEvent.click(screen.getByTestId('journal-add'));
    const form = screen.getByTestId('journal-form');
    expect(within(form).getByText(/proposals until the DM confirms/)).toBeTruthy();
    expect(within(form).queryByLabelText('DM only')).toBeNull();
    fireEvent.click(within(form).getByLabelText('Some players'));
    const me = within(form).getByLabelText('Aria') as HTMLInputElement;
    expect(me.checked && me.disabled).toBe(true);
    fireEvent.click(within(form).getByLabelText('Borin'));
    fireEvent.change(within(form).getByLabelText('Kind'), { target: { value: 'clue' } });
    fireEvent.change(within(form).getByLabelText('Name or title'), { target: { value: 'The ferryman lies' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(callsTo('POST', '/api/campaigns/5/journal')).toHaveLength(1));
    expect(callsTo('POST', '/api/campaigns/5/journal')[0]!.body).toEqual({
      kind: 'clue',
      title: 'The ferryman lies',
      text: '',
      audience: 'seats',
      seat_ids: [2, 3],
    });
    await vi.waitFor(() => expect(screen.queryByTestId('journal-form')).toBeNull());
  });

  it('lets the DM confirm a proposal and filters by kind on the server', async () => {
    stubServer({
      'GET /api/campaigns/5/journal': () => json(200, view(true, [entry(3, { title: 'Muddy boots', author_seat_id: 2, confirmed: false, can_edit: true, can_confirm: true })])),
      'POST /api/journal/3/confirm': () => json(200, entry(3, { confirmed: true })),
    });
    show();
    const item = await screen.findByTestId('journal-entry');
    fireEvent.click(within(item).getByRole('button', { name: 'Confirm' }));
    await vi.waitFor(() => expect(callsTo('POST', '/api/journal/3/confirm')).toHaveLength(1));
    fireEvent.click(screen.getByRole('button', { name: 'Clue' }));
    await vi.waitFor(() => expect(callsTo('GET', '/api/campaigns/5/journal').some((c) => c.query.get('kind') === 'clue')).toBe(true));
  });
});
