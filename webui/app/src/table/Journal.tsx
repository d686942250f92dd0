import { BookOpen, Check, Pencil, Plus, Search, Trash2 } from 'lucide-react';
import { useCallback, useId, useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/messages';
import { format } from '../i18n/messages';
import { useAction } from '../useAction';
import { usePageTitle } from '../usePageTitle';
import { usePolled } from '../usePolled';
import {
  JOURNAL_KINDS,
  addJournalEntry,
  confirmJournalEntry,
  deleteJournalEntry,
  editJournalEntry,
  listJournal,
  type JournalAudience,
  type JournalEntry,
  type JournalView,
} from './api';

// The server's limits (gameplay/table/journal.go).
export const JOURNAL_LIMITS = { title: 120, text: 2000, query: 100 };

// How often an open journal looks again: another player's entry shows up
// within this (journal writes are not table events).
const JOURNAL_POLL_MS = 10_000;

type Seat = JournalView['seats'][number];

// seatName is a seat as the journal names it: its character, else its label.
const seatName = (s: Seat | undefined, fallback: string) => (s ? s.character || s.label : fallback);

// JournalPanel is a campaign's journal: the entries its reader may see,
// newest first, filtered by kind and words; a form to write one (the DM
// for any audience, a player a proposal for the table or some players
// including themselves); edit, confirm and delete where allowed. `page`
// is the campaign's journal page (a wider layout, no link to itself).
export function JournalPanel({ campaignId, page = false }: { campaignId: number; page?: boolean }) {
  const { t } = useI18n();
  const [kind, setKind] = useState('');
  const [query, setQuery] = useState('');
  const [typed, setTyped] = useState('');
  const [writing, setWriting] = useState<JournalEntry | 'new' | null>(null);
  const load = useCallback((signal: AbortSignal) => listJournal(campaignId, { kind, q: query }, signal), [campaignId, kind, query]);
  const journal = usePolled(load, JOURNAL_POLL_MS);
  const view = journal.data;
  const id = useId();

  const search = (e: FormEvent) => {
    e.preventDefault();
    setQuery(typed.trim());
  };
  const done = () => {
    setWriting(null);
    journal.reload();
  };

  return (
    <section className={`journal${page ? ' journal-page' : ''}`} aria-labelledby={`${id}-title`} data-testid="journal">
      <div className="journal-head">
        {!page && (
          <h2 id={`${id}-title`}>
            <BookOpen aria-hidden="true" size={18} /> {t('journal.title')}
          </h2>
        )}
        {page && view && <JournalPageHead view={view} titleId={`${id}-title`} />}
        {view && view.audiences.length > 0 && writing === null && (
          <button type="button" className="primary" onClick={() => setWriting('new')} data-testid="journal-add">
            <Plus aria-hidden="true" size={16} />
            {t('journal.add')}
          </button>
        )}
      </div>
      <div className="journal-filters">
        <div className="chips" role="group" aria-label={t('journal.filter')}>
          {['', ...JOURNAL_KINDS].map((k) => (
            <button key={k || 'all'} type="button" className="chip" aria-pressed={kind === k} onClick={() => setKind(k)}>
              {k ? t(`journal.kind.${k}` as MessageKey) : t('journal.filter.all')}
            </button>
          ))}
        </div>
        <form role="search" className="journal-search" onSubmit={search}>
          <input
            type="search"
            aria-label={t('journal.search')}
            placeholder={t('journal.search')}
            value={typed}
            maxLength={JOURNAL_LIMITS.query}
            onChange={(e) => {
              setTyped(e.target.value);
              if (e.target.value === '') setQuery('');
            }}
          />
          <button type="submit" className="icon-button" aria-label={t('journal.search')}>
            <Search aria-hidden="true" size={16} />
          </button>
        </form>
      </div>
      {writing !== null && view && (
        <EntryForm campaignId={campaignId} view={view} entry={writing === 'new' ? null : writing} onDone={done} onCancel={() => setWriting(null)} />
      )}
      {journal.error !== null && <ErrorNotice code={journal.error} lead={t('journal.failed')} onRetry={journal.reload} />}
      {view && (
        <>
          {view.audiences.length === 0 && <p className="hint">{t('journal.readOnly')}</p>}
          {view.entries.length === 0 ? (
            <p className="journal-empty hint" data-testid="journal-empty">
              {kind || query ? t('journal.emptyFiltered') : t('journal.empty')}
            </p>
          ) : (
            <ul className="journal-entries">
              {view.entries.map((e) => (
                <li key={e.id}>
                  <Entry entry={e} view={view} onEdit={() => setWriting(e)} onChanged={journal.reload} />
                </li>
              ))}
            </ul>
          )}
          {view.has_more && <p className="hint">{t('journal.more')}</p>}
          {!page && (
            <p className="journal-link">
              <Link to={`/campaigns/${campaignId}/journal`}>{t('journal.openPage')}</Link>
            </p>
          )}
        </>
      )}
    </section>
  );
}

// JournalPageHead heads the campaign's journal page: the way back to the
// room and the campaign's name.
function JournalPageHead({ view, titleId }: { view: JournalView; titleId: string }) {
  const { t } = useI18n();
  usePageTitle('title.journal', view.campaign_name);
  return (
    <div>
      <p className="crumbs">
        <Link to={`/rooms/${view.room_id}`}>{t('journal.page.back')}</Link>
      </p>
      <h1 id={titleId}>{format(t('journal.page.title'), { campaign: view.campaign_name })}</h1>
      <p className="hint">{t('journal.hint')}</p>
    </div>
  );
}

// Entry is one journal entry with what its reader may do to it.
function Entry({ entry, view, onEdit, onChanged }: { entry: JournalEntry; view: JournalView; onEdit: () => void; onChanged: () => void }) {
  const { t } = useI18n();
  const action = useAction();
  const [asking, setAsking] = useState(false);
  const seats = useMemo(() => new Map(view.seats.map((s) => [s.id, s])), [view.seats]);
  const audience =
    entry.audience === 'dm'
      ? t('journal.audience.dm')
      : entry.audience === 'seats'
        ? format(t('journal.knownBy'), { names: entry.seat_ids.map((id) => seatName(seats.get(id), `#${id}`)).join(', ') })
        : t('journal.audience.table');
  const author = entry.author_seat_id != null ? seats.get(entry.author_seat_id) : undefined;
  const run = async (call: () => Promise<unknown>) => {
    if ((await action.run(call)) !== undefined) onChanged();
  };
  return (
    <article className="journal-entry" data-testid="journal-entry" data-kind={entry.kind} data-confirmed={entry.confirmed}>
      <header>
        <span className={`journal-kind kind-${entry.kind}`}>{t(`journal.kind.${entry.kind}` as MessageKey)}</span>
        <h3>{entry.title}</h3>
        {!entry.confirmed && <span className="badge journal-proposed">{t('journal.proposed')}</span>}
      </header>
      {entry.text && <p className="journal-text">{entry.text}</p>}
      <p className="journal-meta">
        <span className={`journal-audience audience-${entry.audience}`}>{audience}</span>
        {author && author.role === 'player' && <span> · {format(t('journal.by'), { name: seatName(author, '') })}</span>}
      </p>
      {(entry.can_edit || entry.can_confirm) && !asking && (
        <div className="journal-actions">
          {entry.can_confirm && (
            <button type="button" disabled={action.busy} onClick={() => void run(() => confirmJournalEntry(entry.id))}>
              <Check aria-hidden="true" size={16} />
              {t('journal.confirm')}
            </button>
          )}
          {entry.can_edit && (
            <>
              <button type="button" disabled={action.busy} onClick={onEdit}>
                <Pencil aria-hidden="true" size={16} />
                {t('journal.edit')}
              </button>
              <button type="button" disabled={action.busy} onClick={() => setAsking(true)}>
                <Trash2 aria-hidden="true" size={16} />
                {t('journal.delete')}
              </button>
            </>
          )}
        </div>
      )}
      {asking && (
        <div className="journal-actions" role="group" aria-label={format(t('journal.deleteAsk'), { title: entry.title })}>
          <span>{format(t('journal.deleteAsk'), { title: entry.title })}</span>
          <button type="button" className="danger" disabled={action.busy} onClick={() => void run(() => deleteJournalEntry(entry.id))}>
            {t('journal.delete')}
          </button>
          <button type="button" onClick={() => setAsking(false)}>
            {t('journal.cancel')}
          </button>
        </div>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </article>
  );
}

// EntryForm writes a new entry or changes one. The audiences offered are
// the ones the server says the reader may write for; a player writing for
// some players always counts themselves in.
function EntryForm({
  campaignId,
  view,
  entry,
  onDone,
  onCancel,
}: {
  campaignId: number;
  view: JournalView;
  entry: JournalEntry | null;
  onDone: () => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const action = useAction();
  const id = useId();
  const mine = view.dm ? null : (view.seat_id ?? null);
  const [kind, setKind] = useState(entry?.kind ?? 'npc');
  const [title, setTitle] = useState(entry?.title ?? '');
  const [text, setText] = useState(entry?.text ?? '');
  const [audience, setAudience] = useState<JournalAudience>((entry?.audience as JournalAudience) ?? 'table');
  const [seatIds, setSeatIds] = useState<number[]>(entry?.seat_ids ?? (mine != null ? [mine] : []));
  const players = view.seats.filter((s) => s.role === 'player');
  const toggle = (seat: number, on: boolean) => setSeatIds((ids) => (on ? [...ids, seat] : ids.filter((x) => x !== seat)));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const seats = audience === 'seats' ? seatIds : [];
    const saved = await action.run(() =>
      entry
        ? editJournalEntry(entry.id, { kind, title, text, audience, seat_ids: seats })
        : addJournalEntry(campaignId, { kind, title, text, audience, seat_ids: seats }),
    );
    if (saved) onDone();
  };
  return (
    <form className="journal-form" onSubmit={submit} aria-labelledby={`${id}-legend`} data-testid="journal-form">
      <p id={`${id}-legend`} className="journal-form-title">
        {entry ? format(t('journal.editing'), { title: entry.title }) : t('journal.add')}
      </p>
      {!view.dm && <p className="hint">{t('journal.proposalHint')}</p>}
      <div className="journal-form-row">
        <label>
          {t('journal.field.kind')}
          <select value={kind} onChange={(e) => setKind(e.target.value)}>
            {JOURNAL_KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`journal.kind.${k}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label className="grow">
          {t('journal.field.title')}
          <input value={title} required maxLength={JOURNAL_LIMITS.title} onChange={(e) => setTitle(e.target.value)} />
        </label>
      </div>
      <label>
        {t('journal.field.text')}
        <textarea value={text} rows={3} maxLength={JOURNAL_LIMITS.text} onChange={(e) => setText(e.target.value)} />
      </label>
      <fieldset className="journal-audiences">
        <legend>{t('journal.field.audience')}</legend>
        {view.audiences.map((a) => (
          <label key={a} className="radio">
            <input type="radio" name={`${id}-audience`} value={a} checked={audience === a} onChange={() => setAudience(a as JournalAudience)} />
            {t(`journal.audience.${a}` as MessageKey)}
          </label>
        ))}
      </fieldset>
      {audience === 'seats' && (
        <fieldset className="journal-seats">
          <legend>{t('journal.field.seats')}</legend>
          {players.map((s) => (
            <label key={s.id} className="check">
              <input
                type="checkbox"
                checked={seatIds.includes(s.id)}
                disabled={s.id === mine}
                onChange={(e) => toggle(s.id, e.target.checked)}
              />
              {seatName(s, s.label)}
            </label>
          ))}
        </fieldset>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
      <div className="journal-form-actions">
        <button type="submit" className="primary" disabled={action.busy || title.trim() === ''}>
          {t('journal.save')}
        </button>
        <button type="button" onClick={onCancel}>
          {t('journal.cancel')}
        </button>
      </div>
    </form>
  );
}
