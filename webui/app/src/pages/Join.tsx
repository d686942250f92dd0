import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { joinRoom } from '../table/api';

// JoinPage is the target of an invite link: it joins and goes to the room.
export function JoinPage() {
  const { t } = useI18n();
  usePageTitle('title.join');
  const { code = '' } = useParams();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    setError(null);
    joinRoom(code).then(
      (room) => {
        if (!cancelled) navigate(`/rooms/${room.id}`, { replace: true });
      },
      (e: unknown) => {
        if (!cancelled) setError(e instanceof ApiError ? e.code : '');
      },
    );
    return () => {
      cancelled = true;
    };
  }, [code, navigate]);

  return (
    <>
      <h1>{t('join.title')}</h1>
      {error === null ? (
        <p aria-busy="true">{t('join.working')}</p>
      ) : (
        <>
          <ErrorNotice code={error} lead={t('join.failed')} />
          <p>
            <Link to="/tables">{t('join.back')}</Link>
          </p>
        </>
      )}
    </>
  );
}
