import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { CapabilityList } from '../components/CapabilityList';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { createRoom, listRooms, type Authority } from '../table/api';
import { useAction } from '../useAction';
import { useApi } from '../useApi';

export function TablesPage() {
  const { t } = useI18n();
  usePageTitle('title.tables');
  const [rooms, reload] = useApi(listRooms);
  return (
    <>
      <h1>{t('tables.title')}</h1>
      <p className="lead">{t('tables.intro')}</p>

      <section className="panel" aria-labelledby="rooms-title">
        <h2 id="rooms-title">{t('tables.mine')}</h2>
        {rooms.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
        {rooms.state === 'error' && <ErrorNotice code={rooms.code} lead={t('tables.failed')} onRetry={reload} />}
        {rooms.state === 'ok' &&
          (rooms.data.rooms.length === 0 ? (
            <div className="empty-state" data-testid="tables-empty">
              <p className="empty-title">{t('tables.empty')}</p>
              <p>{t('tables.explain')}</p>
            </div>
          ) : (
            <ul className="item-list" data-testid="room-list">
              {rooms.data.rooms.map((r) => (
                <li key={r.id}>
                  <Link to={`/rooms/${r.id}`}>{r.name}</Link>
                  <span className="badge">{t(`authority.${r.my_access.authority as Authority}`)}</span>
                  {r.my_access.status === 'revoked' && <span className="badge badge-off">{t('access.revoked')}</span>}
                </li>
              ))}
            </ul>
          ))}
      </section>

      <CreateRoom />
      <CapabilityList />
    </>
  );
}

function CreateRoom() {
  const { t } = useI18n();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const room = await action.run(() => createRoom(name.trim()));
    if (room) navigate(`/rooms/${room.id}`);
  };
  return (
    <section className="panel" aria-labelledby="create-room-title">
      <h2 id="create-room-title">{t('tables.create.title')}</h2>
      <form className="inline-form" onSubmit={submit}>
        <label>
          {t('tables.create.name')}
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
        </label>
        <button type="submit" disabled={action.busy}>
          {t('tables.create.submit')}
        </button>
      </form>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </section>
  );
}
