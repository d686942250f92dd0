// Identity bootstrap. The server creates a guest user for a browser without
// a cookie on its first call to an identity route. A fresh browser opening a
// deep link would send several such calls at once and get one guest per call,
// so every identity call first awaits a single GET /api/me: the page waits for
// it, the cookie is set, and only then do the page's own calls go out.

let bootstrap: Promise<void> | null = null;

// ensureIdentity resolves once GET /api/me has answered (one call per page
// load). A failure does not block the page — its own calls then report the
// problem — but the next identity call tries the bootstrap again.
export function ensureIdentity(): Promise<void> {
  if (bootstrap) return bootstrap;
  const mine: Promise<void> = fetch('/api/me', { headers: { Accept: 'application/json' } }).then(
    (res) => {
      if (!res.ok && bootstrap === mine) bootstrap = null;
    },
    () => {
      if (bootstrap === mine) bootstrap = null;
    },
  );
  bootstrap = mine;
  return mine;
}

// resetIdentity forgets the bootstrap (tests start each case as a new browser).
export function resetIdentity(): void {
  bootstrap = null;
}
