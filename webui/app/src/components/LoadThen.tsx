import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useI18n } from '../i18n/I18nProvider';
import { useApi } from '../useApi';
import { ErrorNotice } from './ErrorNotice';

// LoadThen loads one record for an editor page and renders it, or the
// loading line, or the error with a retry and a link back to the list.
// `load` must be stable (useCallback) so the record is fetched once.
export function LoadThen<T>({
  load,
  title,
  failed,
  back,
  backLabel,
  children,
}: {
  load: (signal: AbortSignal) => Promise<T>;
  title: string;
  failed: string;
  back: string;
  backLabel: string;
  children: (data: T) => ReactNode;
}) {
  const { t } = useI18n();
  const [loaded, reload] = useApi(load);
  if (loaded.state === 'loading') return <p aria-busy="true">{t('common.loading')}</p>;
  if (loaded.state === 'error')
    return (
      <>
        <h1>{title}</h1>
        <ErrorNotice code={loaded.code} lead={failed} onRetry={reload} />
        <p>
          <Link to={back}>{backLabel}</Link>
        </p>
      </>
    );
  return <>{children(loaded.data)}</>;
}
