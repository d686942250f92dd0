// Thin client for the Go server's JSON API. Errors carry the server's stable
// code; the UI shows text from its own code→message map, never the server's
// message field.

export interface Health {
  status: string;
  mode: string;
  version: string;
  schema_version: number;
  database: { dialect: string; reachable: boolean };
}

export type Capabilities = Record<string, boolean>;

export const CAPABILITY_AREAS = [
  'table',
  'ai_actor',
  'solo',
  'scripting',
  'combat',
  'timeline',
  'mcp',
  'api_docs',
] as const;
export type CapabilityArea = (typeof CAPABILITY_AREAS)[number];

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly fields: Record<string, unknown>;

  constructor(code: string, status: number, fields: Record<string, unknown> = {}) {
    super(`api error ${status}: ${code}`);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.fields = fields;
  }
}

// NETWORK_ERROR is not a server code: it has no entry in the error maps and so
// falls back to the generic message.
export const NETWORK_ERROR = 'network_error';

export async function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { headers: { Accept: 'application/json' }, signal });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError(NETWORK_ERROR, 0);
  }
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) {
    const err = (body as { error?: { code?: unknown; fields?: unknown } } | null)?.error;
    const code = typeof err?.code === 'string' ? err.code : '';
    const fields = err?.fields && typeof err.fields === 'object' ? (err.fields as Record<string, unknown>) : {};
    throw new ApiError(code, res.status, fields);
  }
  if (body === null) throw new ApiError('', res.status);
  return body as T;
}

export const getHealth = (signal?: AbortSignal) => apiGet<Health>('/api/health', signal);
export const getCapabilities = (signal?: AbortSignal) => apiGet<Capabilities>('/api/meta/capabilities', signal);
