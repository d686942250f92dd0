// First runs: the home page's two calls to action and lists, a new table in
// one screen (one server call) with its invite link and Start, and sitting
// down by an invite link with a name and a character in one server call.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import errorsEn from '../src/i18n/errors.en.json';
import errorsZhTW from '../src/i18n/errors.zh-TW.json';
import { en } from '../src/i18n/en';
import { format } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';
import { apiError, callsTo, characterView, json, renderApp, resetEachTest, resume, stubServer } from './fixtures';

resetEachTest();

const HEALTH = { status: 'ok', mode: 'local', version: 'dev', schema_version: 22, database: { dialect: 'sqlite', reachable: true } };
const ROOM = {
  id: 2,
  name: 'Friday Night',
  owner_user_id: 1,
  allow_self_claim: true,
  active_campaign_id: 4,
  invite_code: 'abc123',
  my_access: { id: 5, authority: 'owner', status: 'active' },
  members: [],
  campaigns: [],
};

describe('home', () => {
  it('offers two calls to action, lists my tables and stories, and keeps the server facts at the bottom', async () => {
    stubServer({
      'GET /api/health': () => json(200, HEALTH),
      'GET /api/rooms': () => json(200, { rooms: [{ id: 2, name: 'Friday Night', my_access: { id: 5, authority: 'owner', status: 'active' } }] }),
      'GET /api/adventures': () => json(200, { adventures: [{ id: 7, title: 'The Drowned Bell', updated_at: '2025-01-01T00:00:00Z' }] }),
    });
    renderApp('/');
    const friends = screen.getByRole('link', { name: new RegExp(en['home.friends.title']) });
    expect(friends.getAttribute('href')).toBe('/tables/new');
    expect(screen.getByRole('link', { name: new RegExp(en['home.solo.title']) }).getAttribute('href')).toBe('/solo');
    const tables = await screen.findByTestId('home-tables');
    expect(within(tables).getByRole('link', { name: 'Friday Night' }).getAttribute('href')).toBe('/rooms/2');
    const stories = await screen.findByTestId('home-stories');
    expect(within(stories).getByRole('link', { name: 'The Drowned Bell' }).getAttribute('href')).toBe('/solo/adventures/7');
    // the server facts come after both lists
    const facts = await screen.findByTestId('status-panel');
    expect(stories.compareDocumentPosition(facts) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(friends.compareDocumentPosition(tables) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(screen.getByRole('link', { name: new RegExp(zhTW['home.friends.title']) })).toBeTruthy();
    expect(screen.getByRole('heading', { name: zhTW['home.tables.title'] })).toBeTruthy();
  });

  it('says honestly that there are no tables and no stories yet', async () => {
    stubServer({
      'GET /api/health': () => json(200, HEALTH),
      'GET /api/rooms': () => json(200, { rooms: [] }),
      'GET /api/adventures': () => json(200, { adventures: [] }),
    });
    renderApp('/');
    expect((await screen.findByTestId('home-tables-empty')).textContent).toBe(en['home.tables.empty']);
    expect((await screen.findByTestId('home-stories-empty')).textContent).toBe(en['home.stories.empty']);
  });
});

describe('new table', () => {
  it('creates the table in one call with seats named in my language, shows the invite link and starts', async () => {
    stubServer({
      'POST /api/tables': () => json(201, { room: ROOM, campaign_id: 4, session: { id: 12, status: 'lobby' }, invite_code: 'abc123' }),
      'POST /api/sessions/12/start': () => json(200, resume('dm')),
      'GET /api/sessions/12': () => json(200, resume('dm')),
    });
    renderApp('/tables/new');
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    // Ann (not a guest's server-made name) is offered as the DM's name
    await waitFor(() => expect((screen.getByLabelText(zhTW['newTable.me']) as HTMLInputElement).value).toBe('Ann'));
    fireEvent.change(screen.getByLabelText(zhTW['newTable.name']), { target: { value: ' Friday Night ' } });
    fireEvent.change(screen.getByLabelText(zhTW['newTable.seats']), { target: { value: '2' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: zhTW['newTable.submit'] })));
    expect(callsTo('POST', '/api/tables').map((c) => c.body)).toEqual([{ name: 'Friday Night', seat_labels: ['玩家 1', '玩家 2'], display_name: 'Ann' }]);

    const ready = await screen.findByTestId('table-ready');
    expect((within(ready).getByTestId('invite-link') as HTMLInputElement).value).toBe(`${window.location.origin}/join/abc123`);
    expect(within(ready).getByRole('button', { name: zhTW['room.invite.copy'] })).toBeTruthy();
    expect(within(ready).getByRole('link', { name: zhTW['newTable.room'] }).getAttribute('href')).toBe('/rooms/2');

    await act(async () => fireEvent.click(within(ready).getByRole('button', { name: zhTW['newTable.start'] })));
    expect(callsTo('POST', '/api/sessions/12/start')).toHaveLength(1);
    await waitFor(() => expect(callsTo('GET', '/api/sessions/12').length).toBeGreaterThan(0));
  });

  it('shows a refusal translated and stays on the form', async () => {
    stubServer({
      'GET /api/me': () => json(200, { id: 3, display_name: 'Guest 7049', name_code: 'user.guest', name_params: { number: '7049' } }),
      'POST /api/tables': () => apiError(400, 'room_name_invalid'),
    });
    renderApp('/tables/new');
    await waitFor(() => expect(callsTo('GET', '/api/me').length).toBeGreaterThan(0));
    fireEvent.change(screen.getByLabelText(en['newTable.name']), { target: { value: 'x' } });
    fireEvent.change(screen.getByLabelText(en['newTable.campaign']), { target: { value: 'Lost Mine' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['newTable.submit'] })));
    expect(callsTo('POST', '/api/tables')[0]!.body).toEqual({
      name: 'x',
      campaign: 'Lost Mine',
      seat_labels: ['Player 1', 'Player 2', 'Player 3', 'Player 4'],
    });
    expect((await screen.findByRole('alert')).textContent).toContain(errorsEn.room_name_invalid);
    expect(screen.queryByTestId('table-ready')).toBeNull();
  });
});

describe('sitting down by an invite link', () => {
  const preview = (over: Record<string, unknown> = {}) => ({
    room_name: 'Friday Night',
    campaign_name: 'Friday Night',
    dm_name: 'Ann',
    free_seats: 3,
    self_claim: true,
    session: { id: 12, status: 'active' },
    member: false,
    seat_id: null,
    revoked: false,
    ...over,
  });
  const templates = {
    templates: ['fighter', 'rogue', 'wizard', 'cleric'].map((key, i) => ({
      key,
      character: { ...characterView({ name: `Hero ${i}` }), hp: { max: 10 + i, current: 10 + i, temp: 0 } },
      derived: { ...characterView().derived, ac: 12 + i },
    })),
  };
  const routes = (over: Record<string, unknown> = {}, characters: unknown[] = []) => ({
    'GET /api/invites/abc123': () => json(200, preview(over)),
    'GET /api/me': () => json(200, { id: 3, display_name: 'Guest 7049', name_code: 'user.guest', name_params: { number: '7049' } }),
    'GET /api/characters': () => json(200, { characters }),
    'GET /api/characters/templates': () => json(200, templates),
    'GET /api/sessions/12': () => json(200, resume('player')),
  });

  it('asks a guest their name, offers the quick characters, and seats them in the running game in one call', async () => {
    stubServer({
      ...routes(),
      'POST /api/tables/sit': () => json(200, { room_id: 2, campaign_id: 4, seat_id: 9, character_id: 30, session: { id: 12, status: 'active' } }),
    });
    renderApp('/join/abc123');
    expect((await screen.findByTestId('invite-title')).textContent).toBe(format(en['join.invited'], { room: 'Friday Night' }));
    expect(screen.getByText(en['join.running'])).toBeTruthy();
    expect(screen.getByText(/DM: Ann/)).toBeTruthy();
    // a guest's server-made name is not offered as theirs
    const name = screen.getByLabelText(en['join.name']) as HTMLInputElement;
    expect(name.value).toBe('');
    // the first quick character is chosen; each shows its class, AC and HP
    const fighter = screen.getByRole('radio', { name: new RegExp(en['join.template.fighter']) }) as HTMLInputElement;
    expect(fighter.checked).toBe(true);
    expect(screen.getByRole('radio', { name: /Cleric.*AC 15 · HP 13/ })).toBeTruthy();
    fireEvent.click(screen.getByRole('radio', { name: new RegExp(en['join.template.wizard']) }));
    expect((screen.getByLabelText(en['join.characterName']) as HTMLInputElement).placeholder).toBe('Hero 2');
    fireEvent.change(screen.getByLabelText(en['join.characterName']), { target: { value: 'Nim' } });
    fireEvent.change(name, { target: { value: ' Bob ' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['join.submit'] })));
    expect(callsTo('POST', '/api/tables/sit').map((c) => c.body)).toEqual([
      { invite_code: 'abc123', display_name: 'Bob', template: 'wizard', character_name: 'Nim' },
    ]);
    await waitFor(() => expect(callsTo('GET', '/api/sessions/12').length).toBeGreaterThan(0));
  });

  it('offers my own characters first, and an imported file becomes the chosen one', async () => {
    stubServer({
      ...routes({ session: { id: 12, status: 'lobby' } }, [characterView({ id: 21, name: 'Sable', class: 'Monk' })]),
      'POST /api/characters/import': () => json(201, characterView({ id: 22, name: 'Imported Ivy' })),
      'POST /api/tables/sit': () => json(200, { room_id: 2, campaign_id: 4, seat_id: 9, character_id: 22, session: { id: 12, status: 'lobby' } }),
    });
    renderApp('/join/abc123');
    expect(((await screen.findByRole('radio', { name: /Sable/ })) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText(en['join.lobby'])).toBeTruthy();
    const file = new File(['{}'], 'ivy.character.json', { type: 'application/json' });
    await act(async () => fireEvent.change(screen.getByLabelText(en['join.import']), { target: { files: [file] } }));
    expect(((await screen.findByRole('radio', { name: /Imported Ivy/ })) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByRole('status').textContent).toBe(format(en['join.imported'], { name: 'Imported Ivy' }));
    fireEvent.change(screen.getByLabelText(en['join.name']), { target: { value: 'Bob' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['join.submit'] })));
    expect(callsTo('POST', '/api/tables/sit')[0]!.body).toEqual({ invite_code: 'abc123', display_name: 'Bob', character_id: 22 });
  });

  it('shows table_full translated and stays on the form', async () => {
    stubServer({ ...routes(), 'POST /api/tables/sit': () => apiError(409, 'table_full') });
    renderApp('/join/abc123');
    fireEvent.change(await screen.findByLabelText(en['join.name']), { target: { value: 'Bob' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['join.submit'] })));
    expect((await screen.findByRole('alert')).textContent).toContain(errorsEn.table_full);
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(screen.getByRole('alert').textContent).toContain(errorsZhTW.table_full);
    expect(screen.getByTestId('join-form')).toBeTruthy();
  });

  it('someone already seated is taken back to the table', async () => {
    stubServer(routes({ member: true, seat_id: 9 }));
    renderApp('/join/abc123');
    expect((await screen.findByTestId('join-seated')).textContent).toBe(en['join.seated']);
    expect(screen.getByRole('link', { name: en['join.goTable'] }).getAttribute('href')).toBe('/sessions/12');
    expect(screen.queryByTestId('join-form')).toBeNull();
  });
});
