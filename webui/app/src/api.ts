// Thin client for the Go server's JSON API. Errors carry the server's stable
// code; the UI shows text from its own code→message map, never the server's
// message field.
import type { components } from './api/schema';
import { loadErrors, storedLanguage } from './i18n/messages';

// The API's types are generated from the server's OpenAPI document
// (src/api/schema.d.ts, npm run gen:api); never write them by hand.
export type Schemas = components['schemas'];

export type Health = Schemas['Health'];
export type Capabilities = Schemas['Capabilities'];

// CAPABILITY_AREAS orders the capabilities for display.
export const CAPABILITY_AREAS = [
  'table',
  'ai_actor',
  'solo',
  'scripting',
  'combat',
  'timeline',
  'mcp',
  'api_docs',
] as const satisfies readonly (keyof Capabilities)[];
export type CapabilityArea = (typeof CAPABILITY_AREAS)[number];

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly fields: Record<string, unknown>;
  // details carries machine-readable facts about the error (e.g. a limit or a position)
  readonly details: Record<string, unknown>;

  constructor(code: string, status: number, fields: Record<string, unknown> = {}, details: Record<string, unknown> = {}) {
    super(`api error ${status}: ${code}`);
    this.name = 'ApiError';
    // the error texts load with the first error (the page will most
    // likely show it), not with the page
    loadErrors(storedLanguage()).catch(() => {});
    this.code = code;
    this.status = status;
    this.fields = fields;
    this.details = details;
  }
}

// NETWORK_ERROR is not a server code: it has no entry in the error maps and so
// falls back to the generic message.
export const NETWORK_ERROR = 'network_error';

interface RequestOptions {
  json?: unknown;
  // raw is sent as the body as is (uploads), with its own content type.
  raw?: Blob;
  signal?: AbortSignal;
}

// request sends one request and returns the parsed JSON body, or throws an
// ApiError carrying the server's stable code.
async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  let res: Response;
  const { json, raw, signal } = opts;
  const headers: Record<string, string> = { Accept: 'application/json' };
  const init: RequestInit = { method, headers, signal };
  if (raw !== undefined) {
    headers['Content-Type'] = raw.type || 'application/octet-stream';
    init.body = raw;
  } else if (json !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(json);
  }
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError(NETWORK_ERROR, 0);
  }
  let parsed: unknown = null;
  try {
    parsed = await res.json();
  } catch (e) {
    if (signal?.aborted) throw e;
    parsed = null;
  }
  if (!res.ok) {
    const err = (parsed as { error?: { code?: unknown; fields?: unknown; details?: unknown } } | null)?.error;
    const code = typeof err?.code === 'string' ? err.code : '';
    const fields = err?.fields && typeof err.fields === 'object' ? (err.fields as Record<string, unknown>) : {};
    const details = err?.details && typeof err.details === 'object' ? (err.details as Record<string, unknown>) : {};
    throw new ApiError(code, res.status, fields, details);
  }
  if (parsed === null) throw new ApiError('', res.status);
  return parsed as T;
}

export const apiGet = <T,>(path: string, signal?: AbortSignal) => request<T>('GET', path, { signal });
export const apiSend = <T,>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  request<T>(method, path, { json: body });
// apiUpload POSTs raw bytes (e.g. an image file) as the request body.
export const apiUpload = <T,>(path: string, data: Blob) => request<T>('POST', path, { raw: data });

export const getHealth = (signal?: AbortSignal) => apiGet<Health>('/api/health', signal);
export const getCapabilities = (signal?: AbortSignal) => apiGet<Capabilities>('/api/meta/capabilities', signal);
