import { Component, useEffect, useState, type ReactNode } from 'react';
import { ErrorNotice } from './components/ErrorNotice';
import { useI18n } from './i18n/I18nProvider';
import { NETWORK_ERROR } from './api';

// LOADING_DELAY_MS is how long a page's script may take before the page
// says it is loading: a quick one (the usual case, or a cached one) shows
// no placeholder at all, so nothing flashes.
const LOADING_DELAY_MS = 400;

// PageLoading stands in for a page while its script arrives: nothing at
// first, then a quiet line. Moving between pages keeps the old page on
// screen instead (the router navigates in a transition), so this shows on
// a deep link only.
export function PageLoading() {
  const { t } = useI18n();
  const [late, setLate] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setLate(true), LOADING_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  if (!late) return null;
  return (
    <p className="page-loading" aria-busy="true">
      {t('common.loading')}
    </p>
  );
}

// PageFailed shows an error, with a retry that loads the page again,
// when a page fails to render: its script did not arrive (offline, or a
// new build replaced it; main.tsx reloads once for that) or it threw.
// The app's header stays usable; the error clears on the next page (at).
export class PageFailed extends Component<{ at: string; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  // The failure is still reported as the page's uncaught error, as it was
  // before the boundary caught it (the browser tests watch for those).
  componentDidCatch(err: unknown) {
    globalThis.reportError?.(err);
  }

  componentDidUpdate(prev: { at: string }) {
    if (this.state.failed && prev.at !== this.props.at) this.setState({ failed: false });
  }

  render() {
    if (!this.state.failed) return this.props.children;
    return <ErrorNotice code={NETWORK_ERROR} onRetry={() => window.location.reload()} />;
  }
}
