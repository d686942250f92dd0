// The signed-in account of this browser on a hosted server. The provider asks
// the server whether it has accounts at all (GET /api/meta/capabilities): a
// local server has none, and then nothing here calls /api/me or shows anything.
//
// After a login, logout, registration, password change or deletion the app
// "switches": identity.ts forgets its bootstrap (so the next identity call
// first lets exactly one GET /api/me settle the browser's new cookie), /api/me
// is read again, and when the user changed the pages remount (generation) so
// they load the new user's rooms and adventures. /api/me is also read again on
// every navigation and when the tab comes back into view, so a browser logged
// out from elsewhere shows the guest it has become.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { ApiError, getCapabilities } from '../api';
import { ensureIdentity, resetIdentity } from '../identity';
import type { MessageKey } from '../i18n/messages';
import { accountsOffered, getAccountMe, type AccountMe } from './api';

export interface AccountState {
  // loading: capabilities not read yet; off: no accounts (local server); on: hosted accounts
  status: 'loading' | 'off' | 'on';
  // me is null until /api/me has answered (and while status is not 'on')
  me: AccountMe | null;
  // error is the code of a failed /api/me while me is still unknown (null: none)
  error: string | null;
  // refresh reads /api/me again
  refresh: () => void;
  // generation grows whenever the browser's user changes; the pages are keyed on it
  generation: number;
  // notice is the outcome of the last account action, shown on the account page
  notice: MessageKey | null;
  // switched re-reads the identity after an account action and records its notice
  switched: (notice: MessageKey) => Promise<void>;
}

const AccountContext = createContext<AccountState | null>(null);

export function AccountProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<AccountState['status']>('loading');
  const [me, setMe] = useState<AccountMe | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [notice, setNotice] = useState<MessageKey | null>(null);
  const known = useRef<AccountMe | null>(null);
  const latest = useRef(0);
  const { pathname } = useLocation();

  // loadMe reads /api/me; only the newest of overlapping reads is kept.
  const loadMe = useCallback(async () => {
    const n = ++latest.current;
    let next: AccountMe;
    try {
      next = await getAccountMe();
    } catch (e) {
      // keep what is shown; the pages report their own failures
      if (n === latest.current) setError(e instanceof ApiError ? e.code : '');
      return;
    }
    if (n !== latest.current) return;
    const prev = known.current;
    known.current = next;
    setMe(next);
    setError(null);
    if (prev !== null && prev.id !== next.id) setGeneration((g) => g + 1);
  }, []);

  useEffect(() => {
    const ctrl = new AbortController();
    // After the identity bootstrap, so that a fresh browser's first call is
    // GET /api/me alone (see identity.ts).
    ensureIdentity()
      .then(() => getCapabilities(ctrl.signal))
      .then(
        (caps) => setStatus(accountsOffered(caps) ? 'on' : 'off'),
        () => {
          if (!ctrl.signal.aborted) setStatus('off');
        },
      );
    return () => ctrl.abort();
  }, []);

  // A navigation re-reads who this browser is and drops the last notice.
  useEffect(() => {
    setNotice(null);
    if (status === 'on') void loadMe();
  }, [status, pathname, loadMe]);

  useEffect(() => {
    if (status !== 'on') return;
    const onVisible = () => {
      if (document.visibilityState === 'visible') void loadMe();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [status, loadMe]);

  const switched = useCallback(
    async (next: MessageKey) => {
      resetIdentity();
      await loadMe();
      setNotice(next);
    },
    [loadMe],
  );

  const refresh = useCallback(() => void loadMe(), [loadMe]);

  const value = useMemo<AccountState>(
    () => ({ status, me: status === 'on' ? me : null, error, refresh, generation, notice, switched }),
    [status, me, error, refresh, generation, notice, switched],
  );
  return <AccountContext.Provider value={value}>{children}</AccountContext.Provider>;
}

export function useAccount(): AccountState {
  const ctx = useContext(AccountContext);
  if (!ctx) throw new Error('useAccount must be used inside <AccountProvider>');
  return ctx;
}
