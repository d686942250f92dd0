// Calls of the hosted-mode account routes (register, log in, log out, change
// password, delete). The server answers a logged-in browser's /api/me with its
// email; a guest's email is null. Every call is an identity route (see
// ../identityApi.ts): a fresh browser first becomes one guest.
import type { Capabilities, Schemas } from '../api';
import { apiGet, apiSend } from '../identityApi';

// AccountMe is GET /api/me (and the answer of register, login and a password
// change): email is null and registered false for a guest.
export type AccountMe = Schemas['AccountView'];

// accountsOffered: the server offers accounts (hosted mode). A local server
// does not, and then the app shows no account UI at all.
export const accountsOffered = (caps: Capabilities): boolean => caps.accounts === true;

export const getAccountMe = (signal?: AbortSignal) => apiGet<AccountMe>('/api/me', signal);

export const register = (email: string, password: string) =>
  apiSend<AccountMe>('POST', '/api/account/register', { email, password });

export const login = (email: string, password: string) => apiSend<AccountMe>('POST', '/api/account/login', { email, password });

// logout ends this browser's session, or with everywhere every session of the
// account; the browser continues as a new guest on its next request.
export const logout = (everywhere: boolean) =>
  apiSend<Schemas['LoggedOut']>('POST', '/api/account/logout', { everywhere });

export const changePassword = (current_password: string, new_password: string) =>
  apiSend<AccountMe>('PUT', '/api/account/password', { current_password, new_password });

export const deleteAccount = (password: string) => apiSend<Schemas['AccountDeleted']>('DELETE', '/api/account', { password });

// BrowserSession is one of the account's browser sessions (GET
// /api/account/sessions): the browser and system it began in (empty when the
// server could not tell), when, when last used, and whether it is this one.
export type BrowserSession = Schemas['BrowserSessionView'];

export const listSessions = (signal?: AbortSignal) =>
  apiGet<Schemas['BrowserSessionList']>('/api/account/sessions', signal).then((r) => r.sessions);

// endSession ends another browser's session: it is a new guest on its next
// request. This browser's own is ended by logout.
export const endSession = (id: number) =>
  apiSend<Schemas['BrowserSessionEnded']>('DELETE', `/api/account/sessions/${id}`);
