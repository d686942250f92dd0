// The API calls of identity routes: each first awaits the one-time identity
// bootstrap (see identity.ts) so a fresh browser gets exactly one guest.
import { apiGet as rawGet, apiSend as rawSend, apiUpload as rawUpload } from './api';
import { ensureIdentity } from './identity';

export async function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  await ensureIdentity();
  return rawGet<T>(path, signal);
}

export async function apiSend<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  await ensureIdentity();
  return rawSend<T>(method, path, body);
}

export async function apiUpload<T>(path: string, data: Blob): Promise<T> {
  await ensureIdentity();
  return rawUpload<T>(path, data);
}
