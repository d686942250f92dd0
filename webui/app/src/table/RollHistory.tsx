import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api';
import { useCoalescedRun, type Alive } from '../useCoalesced';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { getRollResults, type RollHistoryPage, type RollRequestView, type RollResultView } from './api';
import { DiceView, Outcome, whoRolled } from './Dice';
import { naturalOf } from './Feed';
import { quickRollName, requestName } from './labels';
import type { TableNames } from './names';

// How many results one read of the history asks for.
export const ROLL_HISTORY_PAGE = 30;

// What the server answered so far: the results, newest first, and the cursor
// of the next older page.
interface Loaded {
  results: RollResultView[];
  before: number;
  hasMore: boolean;
}

const byNewest = (a: RollResultView, b: RollResultView) => b.id - a.id;

// mergeNewest puts a fresh first page in front of what is loaded. When the
// page does not reach down to what is loaded (more new rolls than a page),
// the older pages are dropped: "Load older" reads them again.
function mergeNewest(cur: Loaded | null, page: RollHistoryPage): Loaded {
  const fresh = { results: [...page.results].sort(byNewest), before: page.before, hasMore: page.has_more };
  if (!cur) return fresh;
  const top = cur.results[0]?.id ?? 0;
  if (page.has_more && page.before > top) return fresh;
  const byId = new Map(cur.results.map((r) => [r.id, r]));
  for (const r of page.results) byId.set(r.id, r);
  return { ...cur, results: [...byId.values()].sort(byNewest) };
}

function mergeOlder(cur: Loaded | null, page: RollHistoryPage): Loaded {
  const byId = new Map((cur?.results ?? []).map((r) => [r.id, r]));
  for (const r of page.results) if (!byId.has(r.id)) byId.set(r.id, r);
  return { results: [...byId.values()].sort(byNewest), before: page.before, hasMore: page.has_more };
}

// useRollHistory reads GET /roll-results: the newest page on mount and on
// refresh(), older pages on older(). Reads of the newest page never overlap; a
// refresh asked for during one runs once it is done.
function useRollHistory(sessionId: number) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  // the code of the last failed read ('' unknown) and which read it was
  const [error, setError] = useState<{ code: string; older: boolean } | null>(null);
  const [olderBusy, setOlderBusy] = useState(false);
  const run = useCallback(
    async (alive: Alive) => {
      try {
        const page = await getRollResults(sessionId, { limit: ROLL_HISTORY_PAGE });
        if (!alive.current) return;
        setLoaded((cur) => mergeNewest(cur, page));
        setError(null);
      } catch (e) {
        if (!alive.current) return;
        setError({ code: e instanceof ApiError ? e.code : '', older: false });
      }
    },
    [sessionId],
  );
  const { trigger: refresh, alive } = useCoalescedRun(run);

  const before = loaded?.before ?? 0;
  const older = useCallback(async () => {
    if (before <= 0) return;
    setOlderBusy(true);
    try {
      const page = await getRollResults(sessionId, { before, limit: ROLL_HISTORY_PAGE });
      if (!alive.current) return;
      setLoaded((cur) => mergeOlder(cur, page));
      setError(null);
    } catch (e) {
      if (alive.current) setError({ code: e instanceof ApiError ? e.code : '', older: true });
    } finally {
      if (alive.current) setOlderBusy(false);
    }
  }, [sessionId, before, alive]);

  return { loaded, error, olderBusy, refresh, older };
}

// RollHistory lists the session's rolls the reader may see, newest first, as
// the server answers them (it leaves out what the reader may not see), with
// "Load older" for earlier pages. `live` are the results the page learned
// since (board, events, own answers): new ones show at the top at once, and
// any change among them (a new roll, an outcome revealed) reads the newest
// page again.
export function RollHistory({
  sessionId,
  live,
  names,
  requests,
}: {
  sessionId: number;
  live: RollResultView[];
  names: TableNames;
  requests: Map<number, RollRequestView>;
}) {
  const { t } = useI18n();
  const h = useRollHistory(sessionId);
  const loaded = h.loaded;

  // a new result, or a known one that changed (success revealed), among the live ones
  const liveSig = live.map((r) => `${r.id}:${String(r.success)}`).join(',');
  const loadedRef = useRef(loaded);
  loadedRef.current = loaded;
  const { refresh } = h;
  useEffect(() => {
    const cur = loadedRef.current;
    if (!cur) return; // the first read is under way
    const known = new Map(cur.results.map((r) => [r.id, r]));
    const inRange = (r: RollResultView) => !cur.hasMore || r.id >= cur.before;
    const changed = (r: RollResultView) => !known.has(r.id) || known.get(r.id)!.success !== r.success;
    if (live.some((r) => inRange(r) && changed(r))) refresh();
    // only a change among the live results asks again (not each answer)
  }, [liveSig, refresh]);

  // the loaded pages, and live results newer than them that are not read yet
  // (before the first answer, or when it failed: the live results alone)
  const shown = (() => {
    const byId = new Map((loaded?.results ?? []).map((r) => [r.id, r]));
    const top = loaded?.results[0]?.id ?? 0;
    for (const r of live) if (!byId.has(r.id) && (!loaded?.hasMore || r.id > top)) byId.set(r.id, r);
    return [...byId.values()].sort(byNewest);
  })();

  return (
    <section className="roll-history" aria-labelledby="roll-history-title">
      <h3 id="roll-history-title">{t('dice.history')}</h3>
      {h.error !== null && (
        <ErrorNotice code={h.error.code} lead={t('dice.history.failed')} onRetry={h.error.older ? () => void h.older() : h.refresh} />
      )}
      {!loaded && h.error === null && shown.length === 0 && <p aria-busy="true">{t('common.loading')}</p>}
      {loaded && shown.length === 0 && !loaded.hasMore && <p className="hint">{t('dice.history.empty')}</p>}
      <ol className="roll-lines" data-testid="roll-history">
        {shown.map((r) => (
          <RollHistoryEntry key={r.id} r={r} names={names} request={r.roll_request_id != null ? requests.get(r.roll_request_id) : undefined} />
        ))}
      </ol>
      {loaded?.hasMore && (
        <button type="button" data-testid="roll-history-more" disabled={h.olderBusy} onClick={() => void h.older()}>
          {t('dice.history.more')}
        </button>
      )}
    </section>
  );
}

// RollHistoryEntry: who, what (the check's name, the attack or check a
// quick roll of the sheet rolled, or a quick roll), the
// formula, every die, the total, pass / fail when the reader may know it, and
// tags for a natural 20 or 1, own dice and a private roll.
function RollHistoryEntry({ r, names, request }: { r: RollResultView; names: TableNames; request: RollRequestView | undefined }) {
  const { t, lang } = useI18n();
  const what = request ? requestName(request, t) : r.source === 'quick' ? (quickRollName(r, t) ?? t('dice.quick')) : t('dice.check');
  const nat = naturalOf(r);
  const at = new Date(r.created_at);
  return (
    <li
      className={`roll-line${r.execution_mode === 'dm_proxy' ? ' is-proxy' : ''}${nat ? ` is-nat${nat}` : ''}`}
      data-testid="roll-history-entry"
      data-id={r.id}
      data-natural={nat ?? undefined}
    >
      <div data-testid="roll-result" data-source={r.source} data-mode={r.execution_mode}>
        <div className="roll-head">
          {!Number.isNaN(at.getTime()) && (
            <time className="hint" dateTime={r.created_at}>
              {at.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' })}
            </time>
          )}
          <span className="speaker" data-testid="roll-who">
            {whoRolled(r, names, t)}
          </span>
          <span className="roll-what">{what}</span>
          {nat && (
            <span className="tag" data-testid="roll-natural">
              {t(nat === '20' ? 'dice.natural20' : 'dice.natural1')}
            </span>
          )}
          {r.source === 'physical' && <span className="tag">{t('dice.physical')}</span>}
          {r.visibility !== 'public' && <span className="tag">{t('dice.private')}</span>}
        </div>
        <div className="roll-body">
          <code className="roll-formula" data-testid="roll-formula">
            {r.formula}
          </code>{' '}
          <DiceView audit={r.audit} /> <span className="roll-eq">=</span>{' '}
          <strong className="roll-total" data-testid="roll-total">
            {r.total}
          </strong>{' '}
          <Outcome result={r} />
        </div>
      </div>
    </li>
  );
}
