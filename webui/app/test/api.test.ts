import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NETWORK_ERROR, apiGet } from '../src/api';

afterEach(() => vi.unstubAllGlobals());

const jsonResponse = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('apiGet', () => {
  it('returns the JSON body on success', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => jsonResponse(200, { status: 'ok' })));
    await expect(apiGet('/api/health')).resolves.toEqual({ status: 'ok' });
  });

  it('throws an ApiError with the server code, status and fields', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        jsonResponse(422, { error: { code: 'invalid_request', message: 'bad', fields: { name: 'required' } } }),
      ),
    );
    const err = await apiGet('/api/x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'invalid_request', status: 422, fields: { name: 'required' } });
  });

  it('gives an empty code for a non-JSON error body', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('<html>bad gateway</html>', { status: 502 })));
    await expect(apiGet('/api/x')).rejects.toMatchObject({ code: '', status: 502 });
  });

  it('maps a network failure to the network code', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(apiGet('/api/x')).rejects.toMatchObject({ code: NETWORK_ERROR, status: 0 });
  });
});
