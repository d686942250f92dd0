// Calls of the hosted-mode account routes (register, log in, log out, change
// password, delete). The server answers a logged-in browser's /api/me with its
// email; a guest's email is null. Every call is an identity route (see
// ../identityApi.ts): a fresh browser first becomes one guest.
import type { Capabilities } from '../api';
import { apiGet, apiSend } from '../identityApi';

// AccountMe is GET /api/me on a server with accounts.
export interface AccountMe {
  id: number;
  display_name: string;
  email: string | null;
  registered: boolean;
}

// accountsOffered: the server has accounts (hosted mode). A local server has
// none, and then the app shows no account UI at all.
export const accountsOffered = (caps: Capabilities): boolean =>
  (caps as Capabilities & { accounts?: boolean }).accounts === true;

export const getAccountMe = (signal?: AbortSignal) => apiGet<AccountMe>('/api/me', signal);

export const register = (email: string, password: string) =>
  apiSend<AccountMe>('POST', '/api/account/register', { email, password });

export const login = (email: string, password: string) => apiSend<AccountMe>('POST', '/api/account/login', { email, password });

// logout ends this browser's session, or with everywhere every session of the
// account; the browser continues as a new guest on its next request.
export const logout = (everywhere: boolean) =>
  apiSend<{ logged_out: boolean }>('POST', '/api/account/logout', { everywhere });

export const changePassword = (current_password: string, new_password: string) =>
  apiSend<AccountMe>('PUT', '/api/account/password', { current_password, new_password });

export const deleteAccount = (password: string) => apiSend<{ deleted: boolean }>('DELETE', '/api/account', { password });
