// Hosted-mode accounts in the web app: the header link and the account page
// (register, log in, log out here or everywhere, change password, delete), and
// none of it on a server without accounts. A fake server at the fetch boundary
// keeps who the browser is, as the real one does with its cookie.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetIdentity } from '../src/identity';
import { en } from '../src/i18n/en';
import errorsEn from '../src/i18n/errors.en.json';
import { LANGUAGE_STORAGE_KEY } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';
import { calls, callsTo, json, renderApp, stubServer, type Handler } from './fixtures';

const CAPS = { table: true, ai_actor: true, solo: true, scripting: true, combat: false, timeline: false, mcp: true, api_docs: true };

interface Me {
  id: number;
  display_name: string;
  email: string | null;
  registered: boolean;
}

const guest = (id: number): Me => ({ id, display_name: `Guest ${id}`, email: null, registered: false });
const account = (id: number, email: string): Me => ({ id, display_name: `Guest ${id}`, email, registered: true });

const refusal = (status: number, code: string, extra: Record<string, unknown> = {}) =>
  json(status, { error: { code, message: `SERVER TEXT ${code}`, ...extra } });

// server is the fake hosted server's state: who this browser is, and the
// rooms of each user.
let me: Me;
let nextGuest: number;
const rooms: Record<number, string[]> = {};

// sessions are the browsers logged in to the account, as GET
// /api/account/sessions lists them (the first one is this browser).
interface BrowserSession {
  id: number;
  browser: string;
  os: string;
  created_at: string;
  last_seen_at: string;
  current: boolean;
}
let sessions: BrowserSession[] = [];
const browserSession = (id: number, browser: string, os: string, current = false): BrowserSession => ({
  id,
  browser,
  os,
  created_at: '2026-03-01T10:00:00Z',
  last_seen_at: '2026-03-02T12:30:00Z',
  current,
});

function hosted(routes: Record<string, Handler> = {}, caps: Record<string, unknown> = { ...CAPS, accounts: true }) {
  return stubServer({
    'GET /api/meta/capabilities': () => json(200, caps),
    'GET /api/me': () => json(200, me),
    'GET /api/rooms': () =>
      json(200, {
        rooms: (rooms[me.id] ?? []).map((name, i) => ({ id: i + 1, name, my_access: { id: i + 1, authority: 'owner', status: 'active' } })),
      }),
    'GET /api/characters': () => json(200, { characters: [] }),
    'GET /api/account/sessions': () => json(200, { sessions }),
    ...routes,
  });
}

// becomeNewGuest is what the real server does to a browser whose session ended.
const becomeNewGuest = () => {
  me = guest(nextGuest++);
};

const accountLink = () => screen.findByTestId('account-link');
const setField = (form: HTMLElement, label: string, value: string) =>
  fireEvent.change(within(form).getByLabelText(label), { target: { value } });
const submitIn = (form: HTMLElement, name: string) =>
  act(async () => fireEvent.click(within(form).getByRole('button', { name })));

// openForm renders the account page and finds the form with this test id.
const openForm = async (testId: string) => {
  renderApp('/account');
  return screen.findByTestId(testId);
};

// submitRegister fills the register form (the confirmation is the password
// unless given) and submits it.
const submitRegister = async (form: HTMLElement, email: string, password: string, confirm = password) => {
  setField(form, en['account.email'], email);
  setField(form, en['account.password'], password);
  setField(form, en['account.password.confirm'], confirm);
  await submitIn(form, en['account.register.submit']);
};

const submitLogin = async (form: HTMLElement, email: string, password: string) => {
  setField(form, en['account.email'], email);
  setField(form, en['account.password'], password);
  await submitIn(form, en['account.login.submit']);
};

// annWithLogout: this browser is Ann's account on the account page, and a
// logout (here or everywhere) makes it a new guest.
const annWithLogout = () => {
  me = account(9, 'ann@example.com');
  hosted({
    'POST /api/account/logout': () => {
      becomeNewGuest();
      return json(200, { logged_out: true });
    },
  });
  renderApp('/account');
};

beforeEach(() => {
  localStorage.clear();
  resetIdentity();
  me = guest(5);
  nextGuest = 50;
  sessions = [browserSession(1, 'Firefox', 'Linux', true)];
  for (const k of Object.keys(rooms)) delete rooms[Number(k)];
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('accounts: absent on a server without them', () => {
  for (const [name, caps] of [
    ['accounts: false', { ...CAPS, accounts: false }],
    ['no accounts field', CAPS],
  ] as const) {
    it(`shows no account UI when the capabilities say ${name}`, async () => {
      hosted({}, caps);
      renderApp('/settings');
      await screen.findByRole('heading', { level: 1, name: en['settings.title'] });
      await waitFor(() => expect(callsTo('GET', '/api/meta/capabilities').length).toBeGreaterThanOrEqual(1));
      // let the capabilities answer settle
      await act(async () => new Promise((r) => setTimeout(r, 30)));
      expect(screen.queryByTestId('account-link')).toBeNull();
      expect(screen.queryByText(en['account.nav.guest'])).toBeNull();
      expect(screen.queryByText(/log in/i)).toBeNull();
      expect(calls.filter((c) => c.path.startsWith('/api/account'))).toEqual([]);
      cleanup();

      // /account says there are no accounts here and leads home: no login screen for a laptop user
      renderApp('/account');
      await screen.findByRole('heading', { level: 1, name: en['account.local.title'] });
      expect(screen.getByText(en['account.local.body'])).toBeTruthy();
      expect(screen.getByRole('link', { name: en['account.local.home'] }).getAttribute('href')).toBe('/');
      expect(screen.queryByRole('heading', { name: en['notFound.title'] })).toBeNull();
      expect(screen.queryByRole('textbox')).toBeNull();
      expect(screen.queryByLabelText(en['account.password'])).toBeNull();
    });
  }
});

describe('accounts: hosted', () => {
  it('the header invites a guest to register or log in and leads to the account page', async () => {
    hosted();
    renderApp('/');
    const link = await accountLink();
    await waitFor(() => expect(link.textContent).toBe(en['account.nav.guest']));
    expect(link.getAttribute('href')).toBe('/account');
    await act(async () => fireEvent.click(link));
    await screen.findByRole('heading', { level: 1, name: en['account.title'] });
    expect(screen.getByTestId('account-state').textContent).toContain('Guest 5');
    expect(screen.getByRole('heading', { name: en['account.register.title'] })).toBeTruthy();
    expect(screen.getByRole('heading', { name: en['account.login.title'] })).toBeTruthy();
    // the registration explains that what was played as a guest stays
    expect(screen.getByText(en['account.register.intro'])).toBeTruthy();
  });

  it('register sends the email and password and then shows the account, in place', async () => {
    rooms[5] = ['Friday group'];
    hosted({
      'POST /api/account/register': (body) => {
        const { email } = body as { email: string };
        me = account(me.id, email.toLowerCase());
        return json(200, me);
      },
    });
    const form = await openForm('register-form');
    // a confirmation that differs is caught before anything is sent
    await submitRegister(form, '  ann@example.com ', 'correct horse battery', 'correct horse batter');
    expect(within(form).getByText(en['account.password.mismatch'])).toBeTruthy();
    expect(within(form).getByLabelText(en['account.password.confirm']).getAttribute('aria-invalid')).toBe('true');
    expect(callsTo('POST', '/api/account/register')).toHaveLength(0);

    setField(form, en['account.password.confirm'], 'correct horse battery');
    await submitIn(form, en['account.register.submit']);
    expect(callsTo('POST', '/api/account/register').map((c) => c.body)).toEqual([
      { email: 'ann@example.com', password: 'correct horse battery' },
    ]);

    const notice = await screen.findByTestId('account-notice');
    await waitFor(() =>
      expect(notice.textContent).toBe(en['account.register.done'].replace('{email}', 'ann@example.com')),
    );
    expect(document.activeElement).toBe(notice);
    await waitFor(() => expect(screen.getByTestId('account-link').textContent).toContain('ann@example.com'));
    expect(screen.getByTestId('account-state').textContent).toContain('ann@example.com');
    expect(screen.getByRole('heading', { name: en['account.logout.title'] })).toBeTruthy();
    expect(screen.queryByTestId('register-form')).toBeNull();

    // same user: the guest's room is still there
    await act(async () => fireEvent.click(screen.getByRole('link', { name: en['nav.tables'] })));
    expect(within(await screen.findByTestId('room-list')).getByText('Friday group')).toBeTruthy();
    expect(screen.getByTestId('account-link').textContent).toContain('ann@example.com');
  });

  it('account_invalid marks the email and password fields with their own texts', async () => {
    hosted({
      'POST /api/account/register': () =>
        refusal(400, 'account_invalid', { fields: { email: 'SERVER TEXT not an email', password: 'SERVER TEXT too short' } }),
    });
    const form = await openForm('register-form');
    await submitRegister(form, 'ann', 'short');

    const email = within(form).getByLabelText(en['account.email']);
    const password = within(form).getByLabelText(en['account.password']);
    await waitFor(() => expect(email.getAttribute('aria-invalid')).toBe('true'));
    expect(password.getAttribute('aria-invalid')).toBe('true');
    expect(within(form).getByText(en['account.field.email']).id).toBe(email.getAttribute('aria-describedby'));
    expect(password.getAttribute('aria-describedby')).toContain(within(form).getByText(en['account.field.password']).id);
    const alert = within(form).getByRole('alert');
    expect(alert.textContent).toContain(en['account.register.failed']);
    expect(alert.textContent).toContain(errorsEn.account_invalid);
    expect(form.textContent).not.toContain('SERVER TEXT');
    expect(within(form).getByLabelText(en['account.password.confirm']).getAttribute('aria-invalid')).toBeNull();
  });

  it('email_taken and rate_limited show their texts (and how long to wait)', async () => {
    let answer = () => refusal(409, 'email_taken', { fields: { email: 'already registered' } });
    hosted({ 'POST /api/account/register': () => answer() });
    const form = await openForm('register-form');
    await submitRegister(form, 'ann@example.com', 'correct horse battery');
    await waitFor(() => expect(within(form).getByRole('alert').textContent).toContain(errorsEn.email_taken));
    expect(within(form).getByLabelText(en['account.email']).getAttribute('aria-invalid')).toBe('true');

    answer = () => refusal(429, 'rate_limited', { details: { retry_after_seconds: 40, limit: 'ip' } });
    await submitIn(form, en['account.register.submit']);
    await waitFor(() => expect(within(form).getByRole('alert').textContent).toContain(errorsEn.rate_limited));
    expect(within(form).getByTestId('error-detail').textContent).toBe(en['account.retryAfterSeconds'].replace('{n}', '40'));
  });

  it('a failed login shows the login_failed text next to the form and stays a guest', async () => {
    hosted({ 'POST /api/account/login': () => refusal(401, 'login_failed') });
    const form = await openForm('login-form');
    await submitLogin(form, 'ann@example.com', 'wrong password!');
    const alert = await within(form).findByRole('alert');
    expect(alert.textContent).toContain(en['account.login.failed']);
    expect(alert.textContent).toContain(errorsEn.login_failed);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    expect(callsTo('POST', '/api/account/login').map((c) => c.body)).toEqual([
      { email: 'ann@example.com', password: 'wrong password!' },
    ]);
    expect(screen.getByTestId('account-link').textContent).toBe(en['account.nav.guest']);
  });

  it('a login switches the browser to the account: identity bootstrap again, the pages show its rooms', async () => {
    rooms[5] = ['Guest room'];
    rooms[9] = ['Ann’s campaign'];
    hosted({
      'POST /api/account/login': () => {
        me = account(9, 'ann@example.com');
        return json(200, me);
      },
    });
    const form = await openForm('login-form');
    const meCallsBefore = callsTo('GET', '/api/me').length;
    await submitLogin(form, 'Ann@Example.com', 'correct horse battery');
    await waitFor(() =>
      expect(screen.getByTestId('account-notice').textContent).toBe(en['account.login.done'].replace('{email}', 'ann@example.com')),
    );
    expect(screen.getByTestId('account-link').textContent).toContain('ann@example.com');
    // identity.ts forgot its bootstrap: the next identity call asked /api/me first
    expect(callsTo('GET', '/api/me').length).toBeGreaterThanOrEqual(meCallsBefore + 2);

    await act(async () => fireEvent.click(screen.getByRole('link', { name: en['nav.tables'] })));
    const list = await screen.findByTestId('room-list');
    expect(within(list).getByText('Ann’s campaign')).toBeTruthy();
    expect(within(list).queryByText('Guest room')).toBeNull();
  });

  it('log out everywhere sends {everywhere: true}; the browser becomes a new guest', async () => {
    annWithLogout();
    await waitFor(() => expect(screen.getByTestId('account-link').textContent).toContain('ann@example.com'));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['account.logout.everywhere'] })));
    expect(callsTo('POST', '/api/account/logout').map((c) => c.body)).toEqual([{ everywhere: true }]);
    await waitFor(() => expect(screen.getByTestId('account-notice').textContent).toBe(en['account.logout.everywhereDone']));
    expect(screen.getByTestId('account-link').textContent).toBe(en['account.nav.guest']);
    expect(screen.getByTestId('account-state').textContent).toContain('Guest 50');
    expect(screen.queryByText('ann@example.com')).toBeNull();
  });

  it('log out (this browser) sends {everywhere: false}', async () => {
    annWithLogout();
    await screen.findByRole('heading', { name: en['account.logout.title'] });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['account.logout.submit'] })));
    expect(callsTo('POST', '/api/account/logout').map((c) => c.body)).toEqual([{ everywhere: false }]);
    await waitFor(() => expect(screen.getByTestId('account-link').textContent).toBe(en['account.nav.guest']));
  });

  it('a browser logged out from elsewhere shows its new guest when it comes back into view', async () => {
    me = account(9, 'ann@example.com');
    rooms[9] = ['Ann’s campaign'];
    hosted();
    renderApp('/tables');
    expect(within(await screen.findByTestId('room-list')).getByText('Ann’s campaign')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('account-link').textContent).toContain('ann@example.com'));

    becomeNewGuest(); // "log out everywhere" in another browser
    await act(async () => document.dispatchEvent(new Event('visibilitychange')));
    await waitFor(() => expect(screen.getByTestId('account-link').textContent).toBe(en['account.nav.guest']));
    // the page reloaded for the new user
    await screen.findByTestId('tables-empty');
    expect(screen.queryByText('Ann’s campaign')).toBeNull();
  });

  it('change password sends both passwords; a wrong current one is marked at its field', async () => {
    me = account(9, 'ann@example.com');
    let wrong = true;
    hosted({
      'PUT /api/account/password': () =>
        wrong
          ? refusal(400, 'account_invalid', { fields: { current_password: 'not your current password' } })
          : json(200, me),
    });
    const form = await openForm('password-form');
    setField(form, en['account.password.current'], 'not it at all');
    setField(form, en['account.password.new'], 'a brand new secret');
    setField(form, en['account.password.newConfirm'], 'a brand new secret');
    await submitIn(form, en['account.password.submit']);
    await waitFor(() =>
      expect(within(form).getByLabelText(en['account.password.current']).getAttribute('aria-invalid')).toBe('true'),
    );
    expect(within(form).getByText(en['account.field.current'])).toBeTruthy();
    expect(within(form).getByRole('alert').textContent).toContain(en['account.fieldsMarked']);
    expect(within(form).getByLabelText(en['account.password.new']).getAttribute('aria-invalid')).toBeNull();

    wrong = false;
    setField(form, en['account.password.current'], 'correct horse battery');
    await submitIn(form, en['account.password.submit']);
    expect(callsTo('PUT', '/api/account/password').map((c) => c.body)).toEqual([
      { current_password: 'not it at all', new_password: 'a brand new secret' },
      { current_password: 'correct horse battery', new_password: 'a brand new secret' },
    ]);
    await waitFor(() => expect(screen.getByTestId('account-notice').textContent).toBe(en['account.password.done']));
    expect((within(form).getByLabelText(en['account.password.current']) as HTMLInputElement).value).toBe('');
  });

  it('delete asks for a confirmation that names what is deleted and for the password', async () => {
    me = account(9, 'ann@example.com');
    let wrong = true;
    hosted({
      'DELETE /api/account': () => {
        if (wrong) return refusal(400, 'account_invalid', { fields: { password: 'not your current password' } });
        becomeNewGuest();
        return json(200, { deleted: true });
      },
    });
    renderApp('/account');
    const open = await screen.findByRole('button', { name: en['account.delete.open'] });
    await act(async () => fireEvent.click(open));
    expect(callsTo('DELETE', '/api/account')).toHaveLength(0);

    const form = screen.getByTestId('delete-form');
    expect(form.textContent).toContain(en['account.delete.confirm'].replace('{email}', 'ann@example.com'));
    const items = within(screen.getByTestId('delete-what'))
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(items).toEqual([
      en['account.delete.what.account'],
      en['account.delete.what.rooms'],
      en['account.delete.what.characters'],
      en['account.delete.what.solo'],
      en['account.delete.what.agents'],
      en['account.delete.what.memberships'],
    ]);
    const password = within(form).getByLabelText(en['account.delete.password']);
    expect(document.activeElement).toBe(password);
    const confirm = within(form).getByRole('button', { name: en['account.delete.submit'] }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true); // not without the password

    // cancel closes it and sends nothing
    await act(async () => fireEvent.click(within(form).getByRole('button', { name: en['common.cancel'] })));
    expect(screen.queryByTestId('delete-form')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: en['account.delete.open'] }));
    expect(callsTo('DELETE', '/api/account')).toHaveLength(0);

    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['account.delete.open'] })));
    const again = screen.getByTestId('delete-form');
    setField(again, en['account.delete.password'], 'wrong one');
    await submitIn(again, en['account.delete.submit']);
    await waitFor(() => expect(within(again).getByText(en['account.field.current'])).toBeTruthy());
    expect(screen.getByTestId('account-link').textContent).toContain('ann@example.com');

    wrong = false;
    setField(again, en['account.delete.password'], 'correct horse battery');
    await submitIn(again, en['account.delete.submit']);
    expect(callsTo('DELETE', '/api/account').map((c) => c.body)).toEqual([
      { password: 'wrong one' },
      { password: 'correct horse battery' },
    ]);
    await waitFor(() => expect(screen.getByTestId('account-notice').textContent).toBe(en['account.delete.done']));
    expect(screen.getByTestId('account-link').textContent).toBe(en['account.nav.guest']);
  });

  it('speaks zh-TW', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    hosted();
    renderApp('/account');
    await waitFor(() => expect(screen.getByTestId('account-link').textContent).toBe(zhTW['account.nav.guest']));
    expect(screen.getByRole('heading', { level: 1, name: zhTW['account.title'] })).toBeTruthy();
    expect(screen.getByText(zhTW['account.register.intro'])).toBeTruthy();
    expect(screen.getAllByLabelText(zhTW['account.email'])).toHaveLength(2);
  });
});

describe('accounts: the browsers logged in', () => {
  const endRoute = (): Record<string, Handler> => {
    const routes: Record<string, Handler> = {};
    for (const s of sessions)
      routes[`DELETE /api/account/sessions/${s.id}`] = () => {
        sessions = sessions.filter((x) => x.id !== s.id);
        return json(200, { ended: true });
      };
    return routes;
  };

  it('lists each browser, marks this one, and ends another with its End button', async () => {
    me = account(9, 'ann@example.com');
    sessions = [browserSession(1, 'Firefox', 'Linux', true), browserSession(2, 'Chrome', 'Android'), browserSession(3, '', '')];
    hosted(endRoute());
    renderApp('/account');
    const list = await screen.findByTestId('session-list');
    const items = within(list).getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('.session-name')?.textContent)).toEqual([
      'Firefox on Linux',
      'Chrome on Android',
      en['account.sessions.unknownBrowser'],
    ]);
    // this browser: marked, no End button (logout ends it)
    expect(within(items[0]!).getByText(en['account.sessions.current'])).toBeTruthy();
    expect(within(items[0]!).queryByRole('button')).toBeNull();
    expect(within(items[1]!).getAllByRole('button')).toHaveLength(1);
    expect(within(items[2]!).getAllByRole('button')).toHaveLength(1);

    const end = within(items[1]!).getByRole('button', { name: /Chrome on Android/ });
    expect(end.textContent).toBe(en['account.sessions.end']);
    await act(async () => fireEvent.click(end));
    expect(callsTo('DELETE', '/api/account/sessions/2')).toHaveLength(1);
    await waitFor(() => expect(within(screen.getByTestId('session-list')).getAllByRole('listitem')).toHaveLength(2));
    expect(screen.queryByText('Chrome on Android')).toBeNull();
    expect(screen.getByTestId('sessions-status').textContent).toBe(
      en['account.sessions.ended'].replace('{name}', 'Chrome on Android'),
    );
  });

  it('a session already ended elsewhere is a refusal, and the list is read again', async () => {
    me = account(9, 'ann@example.com');
    sessions = [browserSession(1, 'Firefox', 'Linux', true), browserSession(2, 'Safari', 'iOS')];
    hosted({
      'DELETE /api/account/sessions/2': () => {
        sessions = sessions.slice(0, 1);
        return refusal(404, 'not_found');
      },
    });
    renderApp('/account');
    const list = await screen.findByTestId('session-list');
    await act(async () => fireEvent.click(within(list).getByRole('button', { name: /Safari on iOS/ })));
    await screen.findByText(en['account.sessions.endFailed']);
    await waitFor(() => expect(within(screen.getByTestId('session-list')).getAllByRole('listitem')).toHaveLength(1));
  });

  it('writes the family the zh-TW way', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    me = account(9, 'ann@example.com');
    sessions = [browserSession(1, 'Firefox', 'Linux', true), browserSession(2, 'Chrome', 'Android')];
    hosted();
    renderApp('/account');
    const list = await screen.findByTestId('session-list');
    expect(within(list).getByText('Android 上的 Chrome')).toBeTruthy();
    expect(within(list).getByText(zhTW['account.sessions.current'])).toBeTruthy();
    expect(within(list).getByRole('button', { name: /Android 上的 Chrome/ }).textContent).toBe(zhTW['account.sessions.end']);
  });

  it('a guest sees no session list', async () => {
    hosted();
    renderApp('/account');
    await screen.findByTestId('register-form');
    expect(screen.queryByTestId('sessions-panel')).toBeNull();
    expect(callsTo('GET', '/api/account/sessions')).toHaveLength(0);
  });
});
