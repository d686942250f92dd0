// Names and lines the server makes for people arrive as codes with
// parameters (issue 16): a guest's name, the DM seat's default label, the
// DM's /check announcement. The zh-TW page shows them in Chinese; a name a
// person chose, or a code this build does not know, shows the server's text.
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../src/i18n/en';
import { format, LANGUAGE_STORAGE_KEY, type MessageKey } from '../src/i18n/messages';
import { controllerName, messageText, personName, seatLabel, serverText } from '../src/i18n/serverText';
import { zhTW } from '../src/i18n/zh-TW';
import { resetIdentity } from '../src/identity';
import type { RoomView } from '../src/table/api';
import { tableNames } from '../src/table/names';
import { json, renderApp, resume, seat, stubServer, T0 } from './fixtures';

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const zh = (key: MessageKey) => zhTW[key];
const english = (key: MessageKey) => en[key];
const GUEST = { display_name: 'Guest 0421', name_code: 'user.guest', name_params: { number: '0421' } };

describe('server text helpers', () => {
  it('write a guest name, the DM seat label and the /check line from their codes', () => {
    expect(personName(zh, GUEST)).toBe('訪客 0421');
    expect(personName(english, GUEST)).toBe('Guest 0421');
    expect(personName(zh, { display_name: 'Ann' })).toBe('Ann');
    expect(seatLabel(zh, { label: 'DM', label_code: 'seat.dm' })).toBe(zhTW['server.seat.dm']);
    expect(seatLabel(zh, { label: 'Front row' })).toBe('Front row');
    expect(
      controllerName(zh, { controller_display_name: 'Guest 0421', controller_name_code: 'user.guest', controller_name_params: { number: '0421' } }),
    ).toBe('訪客 0421');
    expect(controllerName(zh, { controller_display_name: null })).toBeNull();

    const check = { text: 'Everyone: roll perception.', text_code: 'check.everyone', text_params: { check: 'perception' } };
    expect(messageText(zh, check)).toBe(format(zhTW['server.check.everyone'], { check: zhTW['skill.perception'] }));
    expect(messageText(zh, check)).toBe('所有人：擲察覺檢定。');
    expect(messageText(english, check)).toBe('Everyone: roll Perception.');
    // An ability, and a check this build does not name, stay readable.
    expect(messageText(zh, { ...check, text_params: { check: 'wis' } })).toBe(format(zhTW['server.check.everyone'], { check: zhTW['ability.wis'] }));
    expect(messageText(zh, { ...check, text_params: { check: 'luck' } })).toBe(format(zhTW['server.check.everyone'], { check: 'luck' }));
    // A line a person typed, or a code from a newer server: the server's text.
    expect(messageText(zh, { text: 'Everyone: roll perception.' })).toBe('Everyone: roll perception.');
    expect(serverText(zh, 'check.someday', {}, 'As sent.')).toBe('As sent.');
  });

  it('tableNames writes the DM seat label in the reader’s language when given t', () => {
    const r = resume('dm');
    r.seats[0] = { ...r.seats[0]!, label: 'DM', label_code: 'seat.dm' };
    const marked = (key: MessageKey) => `«${key}»`;
    expect(tableNames(r, marked).bySeat(8)).toBe('«server.seat.dm»');
    expect(tableNames(r).bySeat(8)).toBe('DM');
    expect(tableNames(r, marked).bySeat(9)).toBe('Mira');
  });
});

const room = {
  id: 2,
  name: 'Friday group',
  owner_user_id: 1,
  allow_self_claim: false,
  active_campaign_id: 4,
  invite_code: 'abc123',
  my_access: { id: 5, authority: 'owner', status: 'active' },
  members: [
    { access_id: 5, user_id: 1, ...GUEST, authority: 'owner', status: 'active', joined_at: T0 },
    { access_id: 6, user_id: 2, display_name: 'Bob', authority: 'member', status: 'active', joined_at: T0 },
  ],
  campaigns: [
    {
      id: 4,
      name: 'Lost Mine',
      status: 'active',
      open_session: null,
      seats: [
        seat({ id: 8, role: 'dm', label: 'DM', label_code: 'seat.dm', controller_access_id: 5, controller_display_name: 'Guest 0421', controller_name_code: 'user.guest', controller_name_params: { number: '0421' } }),
        seat({ id: 9, label: 'Seat A', controller_access_id: 6, controller_display_name: 'Bob' }),
      ],
    },
  ],
} as unknown as RoomView;

describe('the zh-TW pages', () => {
  it('room: a guest member and seat controller go by the Chinese guest name, a chosen name as chosen', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    stubServer({
      'GET /api/rooms/2': () => json(200, room),
      'GET /api/characters': () => json(200, { characters: [] }),
    });
    renderApp('/rooms/2');
    const members = await screen.findAllByTestId('member');
    expect(members[0]!.textContent).toContain('訪客 0421');
    expect(members[0]!.textContent).not.toContain('Guest');
    expect(members[1]!.textContent).toContain('Bob');
    const dm = screen.getAllByTestId('seat').find((r) => r.dataset.seatId === '8')!;
    expect(within(dm).getByTestId('seat-controller').textContent).toContain('訪客 0421');
    expect(dm.textContent).toContain(zhTW['server.seat.dm']);
    // The assign menu names members the same way.
    expect(within(dm).getByRole('option', { name: '訪客 0421' })).toBeTruthy();
  });

  it('account: a guest is told their Chinese guest name', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    stubServer({
      'GET /api/meta/capabilities': () =>
        json(200, { table: true, ai_actor: true, solo: true, scripting: true, mcp: true, api_docs: true, accounts: true }),
      'GET /api/me': () => json(200, { id: 1, ...GUEST, email: null, registered: false }),
      'GET /api/rooms': () => json(200, { rooms: [] }),
      'GET /api/characters': () => json(200, { characters: [] }),
    });
    renderApp('/account');
    const lead = await screen.findByTestId('account-state');
    expect(lead.textContent).toBe(format(zhTW['account.guest.lead'], { name: '訪客 0421' }));
  });

  it('table: the DM card names its guest controller in Chinese', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    const r = resume('player');
    r.seats[0] = {
      ...r.seats[0]!,
      label_code: 'seat.dm',
      controller_display_name: 'Guest 0421',
      controller_name_code: 'user.guest',
      controller_name_params: { number: '0421' },
    };
    stubServer({ 'GET /api/sessions/12': () => json(200, r) });
    renderApp('/sessions/12');
    const card = await screen.findByTestId('dm-card');
    expect(within(card).getByTestId('controller').textContent).toContain('訪客 0421');
    expect(card.textContent).not.toContain('Guest 0421');
  });
});
