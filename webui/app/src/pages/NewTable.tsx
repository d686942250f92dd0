import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { Field } from '../components/Field';
import { InviteLink } from '../components/InviteLink';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { createTable, getMe, startSession, type TableView } from '../table/api';
import { useAction } from '../useAction';
import { usePageTitle } from '../usePageTitle';
import './FirstRun.css';
import { focusOnMount } from '../focus';

const SEAT_CHOICES = [1, 2, 3, 4, 5, 6, 7, 8] as const;
const DEFAULT_SEATS = 4;

// NewTablePage makes a table ready to play in one step (one server call):
// the room, its campaign with the caller in the DM seat, free player seats
// and a lobby; then it shows the invite link and starts the game.
export function NewTablePage() {
  const { t } = useI18n();
  usePageTitle('title.newTable');
  const [made, setMade] = useState<TableView | null>(null);
  return (
    <div className="firstrun">
      <h1>{t('newTable.title')}</h1>
      {made === null ? <TableForm onMade={setMade} /> : <TableReady table={made} />}
    </div>
  );
}

function TableForm({ onMade }: { onMade: (v: TableView) => void }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [campaign, setCampaign] = useState('');
  const [seats, setSeats] = useState<number>(DEFAULT_SEATS);
  // The DM's name, as friends will see it; a guest still has the server's name.
  const [me, setMe] = useState('');
  const action = useAction();
  const ids = { name: useId(), campaign: useId(), campaignHint: useId(), seats: useId(), me: useId() };
  useEffect(() => {
    const ctrl = new AbortController();
    getMe(ctrl.signal).then(
      (u) => setMe((typed) => typed || (u.name_code ? '' : u.display_name)),
      () => {},
    );
    return () => ctrl.abort();
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const seat_labels = Array.from({ length: seats }, (_, i) => format(t('newTable.seatLabel'), { n: i + 1 }));
    const v = await action.run(() =>
      createTable({ name: name.trim(), campaign: campaign.trim() || undefined, seat_labels, display_name: me.trim() || undefined }),
    );
    if (v) onMade(v);
  };
  return (
    <>
      <p className="lead">{t('newTable.intro')}</p>
      <form className="panel firstrun-form" onSubmit={submit}>
        <Field label={t('newTable.name')} htmlFor={ids.name}>
          <input id={ids.name} value={name} onChange={(e) => setName(e.target.value)} maxLength={80} required ref={focusOnMount} />
        </Field>
        <Field label={t('newTable.me')} htmlFor={ids.me}>
          <input id={ids.me} value={me} onChange={(e) => setMe(e.target.value)} maxLength={80} autoComplete="nickname" />
        </Field>
        <Field label={t('newTable.campaign')} htmlFor={ids.campaign}>
          <input
            id={ids.campaign}
            value={campaign}
            onChange={(e) => setCampaign(e.target.value)}
            maxLength={80}
            placeholder={name}
            aria-describedby={ids.campaignHint}
          />
          <span id={ids.campaignHint} className="hint">
            {t('newTable.campaignHint')}
          </span>
        </Field>
        <Field label={t('newTable.seats')} htmlFor={ids.seats}>
          <select id={ids.seats} value={seats} onChange={(e) => setSeats(Number(e.target.value))}>
            {SEAT_CHOICES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </Field>
        <p>
          <button type="submit" className="firstrun-primary" disabled={action.busy}>
            {t('newTable.submit')}
          </button>
        </p>
        {action.error !== null && <ErrorNotice code={action.error} />}
      </form>
    </>
  );
}

function TableReady({ table }: { table: TableView }) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const start = useAction();
  const go = async () => {
    const res = await start.run(() => startSession(table.session.id));
    if (res) navigate(`/sessions/${res.session.id}`);
  };
  return (
    <section className="panel firstrun-ready" aria-labelledby="table-ready-title" data-testid="table-ready">
      <h2 id="table-ready-title">{t('newTable.ready.title')}</h2>
      <p className="firstrun-table-name" data-testid="table-name">
        {table.room.name}
      </p>
      <p>{t('newTable.ready.body')}</p>
      <InviteLink code={table.invite_code} />
      <p className="firstrun-actions">
        <button type="button" className="firstrun-primary" onClick={go} disabled={start.busy}>
          {t('newTable.start')}
        </button>
        <Link to={`/rooms/${table.room.id}`}>{t('newTable.room')}</Link>
      </p>
      {start.error !== null && <ErrorNotice code={start.error} />}
    </section>
  );
}
