// Browser journey on a HOSTED server (accounts): play as a guest, register in
// place, log out, log in on a second browser, everything still there; log out
// everywhere from the second browser and the first becomes a guest. The
// server runs hosted behind a pretend TLS proxy (see hostedEnv in harness.mjs).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { chromiumOrSkip, eventually, journey, skipLine } from './harness.mjs';

const haveChromium = chromiumOrSkip();

const GUEST_LINK = 'Guest — Register or log in';

describe('accounts on a hosted server', { skip: !haveChromium && skipLine() }, () => {
  const j = journey({ hosted: true });
  const { url, pageErrors } = j;

  // person opens a browser of its own (a context: its own cookies); the
  // journey fails on its uncaught page errors and CSP refusals.
  const person = (name, viewport = { width: 1280, height: 900 }) => j.open(name, { viewport });

  const accountLink = (page) => page.getByTestId('account-link');
  const linkText = async (page) => (await accountLink(page).textContent()).trim();
  const waitLink = (page, re) => eventually(async () => assert.match(await linkText(page), re));
  const fitsWidth = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const sessionCookie = async (context) =>
    (await context.cookies()).find((c) => c.name === '__Host-at_session' || c.name === 'at_session');

  test('guest → register → log out → log in elsewhere → log out everywhere', async () => {
    const caps = await (await fetch(url('api/meta/capabilities'))).json();
    assert.equal(caps.accounts, true, `a hosted server offers accounts: ${JSON.stringify(caps)}`);

    const email = `e2e-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'correct horse battery staple';
    const roomName = `Guest table ${randomBytes(2).toString('hex')}`;

    // ---- A plays as a guest: a room, made without any account ---------------
    const a = await person('A', { width: 390, height: 844 });
    await a.page.goto(url('tables'));
    await waitLink(a.page, new RegExp(`^${GUEST_LINK}$`));
    const cookie = await sessionCookie(a.context);
    assert.ok(cookie, `the guest has a session cookie: ${JSON.stringify(await a.context.cookies())}`);
    assert.equal(cookie.secure, true, 'the hosted session cookie is Secure');
    assert.equal(cookie.httpOnly, true, 'the hosted session cookie is HttpOnly');
    await a.page.getByLabel('Room name').fill(roomName);
    await a.page.getByRole('button', { name: 'Create room' }).click();
    await a.page.getByRole('heading', { level: 1, name: roomName }).waitFor();

    // ---- A registers from the header link, by keyboard, at 390×844 ----------
    await accountLink(a.page).focus();
    await a.page.keyboard.press('Enter');
    await a.page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
    const register = a.page.getByTestId('register-form');
    await a.page.getByText('everything you played as a guest on this browser', { exact: false }).waitFor();
    assert.equal(await fitsWidth(a.page), true, 'the guest account page scrolls sideways at 390×844');
    // a password the server refuses is named at its field
    await register.getByLabel('Email').fill(email);
    await register.getByLabel('Password', { exact: true }).fill('short');
    await register.getByLabel('Confirm password').fill('short');
    await register.getByLabel('Confirm password').press('Enter');
    await register.getByText('Use a password of 10 to 256 characters, not only spaces.').waitFor();
    assert.equal(await register.getByLabel('Password', { exact: true }).getAttribute('aria-invalid'), 'true');
    await register.getByRole('alert').getByText('Enter a valid email and a password of at least 10 characters.').waitFor();

    await register.getByLabel('Password', { exact: true }).fill(password);
    await register.getByLabel('Confirm password').fill(password);
    await register.getByLabel('Confirm password').press('Enter');
    await a.page.getByTestId('account-notice').getByText(`You are registered as ${email}.`, { exact: false }).waitFor();
    await waitLink(a.page, new RegExp(email.replace(/[.]/g, '\\.')));
    assert.equal(await fitsWidth(a.page), true, 'the account page scrolls sideways at 390×844');
    // registered in place: the guest's room is still A's
    await a.page.getByRole('navigation').getByRole('link', { name: 'Tables', exact: true }).click();
    await a.page.getByTestId('room-list').getByRole('link', { name: roomName }).waitFor();

    // ---- A logs out: a new guest, without the room -------------------------
    await accountLink(a.page).click();
    await a.page.getByRole('button', { name: 'Log out', exact: true }).click();
    await a.page.getByTestId('account-notice').getByText('You are logged out.', { exact: false }).waitFor();
    await waitLink(a.page, new RegExp(`^${GUEST_LINK}$`));
    await a.page.getByRole('navigation').getByRole('link', { name: 'Tables', exact: true }).click();
    await a.page.getByTestId('tables-empty').waitFor();

    // ---- B logs in on a second browser: the room made as a guest is there ---
    const b = await person('B');
    await b.page.goto(url('account'));
    const login = b.page.getByTestId('login-form');
    await login.getByLabel('Email').fill(email);
    await login.getByLabel('Password').fill('not the password at all');
    await login.getByRole('button', { name: 'Log in' }).click();
    await login.getByRole('alert').getByText('The email or password is not right.').waitFor();
    await login.getByLabel('Password').fill(password);
    await login.getByRole('button', { name: 'Log in' }).click();
    await b.page.getByTestId('account-notice').getByText(`You are logged in as ${email}.`).waitFor();
    await waitLink(b.page, new RegExp(email.replace(/[.]/g, '\\.')));
    await b.page.getByRole('navigation').getByRole('link', { name: 'Tables', exact: true }).click();
    await b.page.getByTestId('room-list').getByRole('link', { name: roomName }).click();
    await b.page.getByRole('heading', { level: 1, name: roomName }).waitFor();

    // ---- A logs in again (two browsers on the account) ---------------------
    await a.page.goto(url('account'));
    await a.page.getByTestId('login-form').getByLabel('Email').fill(email);
    await a.page.getByTestId('login-form').getByLabel('Password').fill(password);
    await a.page.getByTestId('login-form').getByLabel('Password').press('Enter');
    await waitLink(a.page, new RegExp(email.replace(/[.]/g, '\\.')));
    await a.page.getByRole('navigation').getByRole('link', { name: 'Tables', exact: true }).click();
    await a.page.getByTestId('room-list').getByRole('link', { name: roomName }).waitFor();

    // ---- B sees both browsers logged in, itself marked; A's can be ended ----
    await accountLink(b.page).click();
    const sessionList = b.page.getByTestId('session-list');
    await eventually(async () => assert.equal(await sessionList.getByRole('listitem').count(), 2));
    const mine = sessionList.getByRole('listitem').filter({ hasText: 'This browser' });
    assert.equal(await mine.count(), 1, 'exactly one session is this browser');
    assert.equal(await mine.getByRole('button').count(), 0, 'this browser has no End button');
    assert.match(await mine.textContent(), /Chrome on Linux/);
    const others = sessionList.getByRole('listitem').filter({ hasNotText: 'This browser' });
    assert.equal(await others.getByRole('button', { name: 'End' }).count(), 1, "A's session has an End button");

    // ---- B logs out everywhere: B and A are guests --------------------------
    await b.page.getByRole('button', { name: 'Log out everywhere' }).click();
    await b.page.getByTestId('account-notice').getByText('You are logged out on every browser.', { exact: false }).waitFor();
    await waitLink(b.page, new RegExp(`^${GUEST_LINK}$`));

    // A, still showing the account, notices when its tab is looked at again
    assert.match(await linkText(a.page), new RegExp(email.replace(/[.]/g, '\\.')));
    await a.page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await waitLink(a.page, new RegExp(`^${GUEST_LINK}$`));
    await a.page.getByTestId('tables-empty').waitFor();
    assert.equal(await a.page.getByText(email).count(), 0, 'A no longer shows the email');
    // and after a reload too
    await a.page.reload();
    await waitLink(a.page, new RegExp(`^${GUEST_LINK}$`));
    await a.page.getByTestId('tables-empty').waitFor();
    assert.equal(await a.page.getByText(email).count(), 0, 'A no longer shows the email after a reload');

    assert.deepEqual(pageErrors, [], 'uncaught errors or CSP refusals in the pages');
  });
});
