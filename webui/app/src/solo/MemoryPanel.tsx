import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { useAction } from '../useAction';
import {
  addMemory,
  changeMemory,
  getMemoryBank,
  getProviderSettings,
  type MemoryBank,
  type MemoryChange,
  type MemoryView,
} from './api';
import { DrawerShell } from './DrawerShell';
import { useDrawerData } from './useDrawerData';
import { focusOnMount, useFocusAfterRender } from '../focus';

// POLL_MS is how often the panel looks again while the bank is writing.
const POLL_MS = 2000;

interface Loaded {
  bank: MemoryBank;
  // the embedding model's name when the bank recalls by embedding ('' when
  // the settings could not be read)
  model: string;
}

// loadBank reads the bank and, when it recalls by embedding, which model.
async function loadBank(adventureId: number, signal?: AbortSignal): Promise<Loaded> {
  const bank = await getMemoryBank(adventureId, signal);
  let model = '';
  if (bank.scorer === 'embedding') {
    model = await getProviderSettings(signal).then(
      (s) => s.embedding_model,
      () => '',
    );
  }
  return { bank, model };
}

// withMemory puts a memory the server answered into the bank. The answer of
// a change does not know which prompt used the memory, so that mark stays.
function withMemory(bank: MemoryBank, m: MemoryView): MemoryBank {
  const merge = (old: MemoryView): MemoryView => ({
    ...m,
    uses: old.uses,
    used_last_turn: old.used_last_turn,
    embedded: m.text === old.text ? old.embedded : false,
  });
  if (m.kind === 'summary') return { ...bank, summary: bank.summary ? merge(bank.summary) : m };
  if (bank.memories.some((x) => x.id === m.id))
    return { ...bank, memories: bank.memories.map((x) => (x.id === m.id ? merge(x) : x)) };
  // a new memory: in story order (deeper last; the same depth by id)
  const memories = [...bank.memories, m].sort((a, b) => a.depth - b.depth || a.id - b.id);
  return { ...bank, memories };
}

// MemoryPanel is the drawer of the adventure's memory bank on the line being
// read: the running summary, the memories in story order (which the last
// prompt used, pinned, forgotten, to be rewritten), what recalls them, the
// state of the background work, and a form to add one by hand. It loads
// when opened (it is mounted only while open), again when version changes
// (a turn ended while it was open), and every few seconds while the bank is
// writing.
export function MemoryPanel({
  adventureId,
  version,
  busy,
  onClose,
}: {
  adventureId: number;
  version: string;
  busy: boolean;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const { loaded, reload, shown, setShown, close } = useDrawerData(adventureId, version, loadBank);
  // while the bank is writing, look again now and then
  const pending = loaded.state === 'ok' && loaded.data.bank.job.pending;
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, loaded, reload]);

  const put = (m: MemoryView) => setShown((s) => s && { ...s, bank: withMemory(s.bank, m) });
  const bank = shown?.bank;

  return (
    <DrawerShell keys="memory" loaded={loaded} ready={shown !== null} reload={reload} close={close} onClose={onClose}>
      {shown !== null && bank && (
        <>
          <MemoryStatus bank={bank} model={shown.model} />

          {bank.summary && (
            <section className="memory-summary" aria-labelledby={`${id}-summary`} data-testid="memory-summary">
              <h3 id={`${id}-summary`}>{t('solo.memory.summary')}</h3>
              <p className="hint">{t('solo.memory.summaryHint')}</p>
              <ul className="memory-list">
                <MemoryItem memory={bank.summary} adventureId={adventureId} busy={busy} onSaved={put} />
              </ul>
            </section>
          )}

          <h3 id={`${id}-list`}>{t('solo.memory.list')}</h3>
          {bank.memories.length === 0 ? (
            <p className="hint" data-testid="memory-empty">
              {t('solo.memory.empty')}
            </p>
          ) : (
            <ol className="memory-list" aria-labelledby={`${id}-list`}>
              {bank.memories.map((m) => (
                <MemoryItem key={m.id} memory={m} adventureId={adventureId} busy={busy} onSaved={put} />
              ))}
            </ol>
          )}

          <AddMemory
            adventureId={adventureId}
            busy={busy}
            onAdded={(m) => {
              put(m);
              // the bank now has work (the new memory's vector): show that
              reload();
            }}
          />
        </>
      )}
    </DrawerShell>
  );
}

// MemoryStatus says what recalls memories, how many a prompt carries and how
// many are kept, and what the background work is doing.
function MemoryStatus({ bank, model }: { bank: MemoryBank; model: string }) {
  const { t } = useI18n();
  const recall =
    bank.scorer === 'embedding'
      ? format(t('solo.memory.recall.embedding'), { model }).trim()
      : t('solo.memory.recall.bm25');
  return (
    <div className="memory-status" data-testid="memory-status">
      <p>
        <span data-testid="memory-recall">{recall}</span>
        <br />
        <span className="hint" data-testid="memory-limits">
          {format(t('solo.memory.limits'), { k: bank.top_k, capacity: bank.capacity })}
        </span>
      </p>
      <p role="status" className="hint" data-testid="memory-job">
        {bank.job.pending ? t('solo.memory.pending') : ''}
      </p>
      {bank.job.last_error !== '' && (
        <div className="notice notice-warn" data-testid="memory-job-error">
          <p className="notice-lead">{t('solo.memory.jobFailed')}</p>
          <p className="notice-detail">{bank.job.last_error}</p>
        </div>
      )}
    </div>
  );
}

// MemoryItem is one memory: where in the story it sits, its marks, its text
// (or the box that edits it) and its Pin / Forget / Edit controls. The
// running summary can only be edited.
function MemoryItem({
  memory: m,
  adventureId,
  busy,
  onSaved,
}: {
  memory: MemoryView;
  adventureId: number;
  busy: boolean;
  onSaved: (m: MemoryView) => void;
}) {
  const { t } = useI18n();
  const textId = useId();
  const action = useAction();
  // draft is the text being edited (null: not editing)
  const [draft, setDraft] = useState<string | null>(null);
  const focusAfterRender = useFocusAfterRender();
  const editButton = useRef<HTMLButtonElement>(null);

  const summary = m.kind === 'summary';
  const locked = busy || action.busy;
  const where = summary
    ? format(t('solo.memory.where.upTo'), { n: m.depth })
    : m.from_depth < m.depth
      ? format(t('solo.memory.where.turns'), { from: m.from_depth, to: m.depth })
      : m.depth === 0
        ? t('solo.memory.where.opening')
        : format(t('solo.memory.where.turn'), { n: m.depth });

  const send = async (change: MemoryChange) => {
    const saved = await action.run(() => changeMemory(adventureId, m.id, change));
    if (saved) onSaved(saved);
    return saved !== undefined;
  };
  const cancelEdit = () => {
    setDraft(null);
    action.clear();
    focusAfterRender(editButton);
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (draft === null || locked) return;
    if (draft.trim() === m.text) {
      cancelEdit();
      return;
    }
    if (await send({ text: draft })) {
      setDraft(null);
      focusAfterRender(editButton);
    }
  };

  const classes = ['memory', `kind-${m.kind}`];
  if (m.forgotten) classes.push('is-forgotten');
  if (m.used_last_turn) classes.push('is-used');
  return (
    <li
      className={classes.join(' ')}
      data-testid="memory"
      data-memory-id={m.id}
      data-kind={m.kind}
      data-pinned={m.pinned}
      data-forgotten={m.forgotten}
      data-used={m.used_last_turn}
      data-stale={m.stale}
    >
      <div className="memory-marks">
        <span className="memory-where" data-testid="memory-where">
          {where}
        </span>
        {m.kind === 'block' && (
          <span className="tag" title={t('solo.memory.kind.blockHint')}>
            {t('solo.memory.kind.block')}
          </span>
        )}
        {m.kind === 'note' && (
          <span className="tag" title={t('solo.memory.kind.noteHint')}>
            {t('solo.memory.kind.note')}
          </span>
        )}
        {m.pinned && <span className="tag is-pinned">{t('solo.memory.pinned')}</span>}
        {m.used_last_turn && <span className="tag is-used">{t('solo.memory.used')}</span>}
        {m.forgotten && <span className="tag is-forgotten">{t('solo.memory.forgotten')}</span>}
        {m.stale && (
          <span className="tag is-stale" title={t('solo.memory.staleHint')}>
            {t('solo.memory.stale')}
          </span>
        )}
        {m.uses > 0 && <span className="hint">{format(t('solo.memory.uses'), { n: m.uses })}</span>}
      </div>
      {draft !== null ? (
        <form className="node-edit" onSubmit={save} data-testid="memory-edit">
          <textarea
            aria-label={t('solo.memory.editText')}
            value={draft}
            rows={Math.min(10, Math.max(3, Math.ceil(draft.length / 60) + 1))}
            ref={focusOnMount}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                // the drawer would close too
                e.preventDefault();
                e.stopPropagation();
                cancelEdit();
              }
            }}
          />
          <span className="node-tools">
            <button type="submit" className="tool" disabled={locked || draft.trim() === ''}>
              {t('common.save')}
            </button>
            <button type="button" className="tool" onClick={cancelEdit}>
              {t('common.cancel')}
            </button>
          </span>
        </form>
      ) : (
        <p className="memory-text" id={textId} data-testid="memory-text">
          {m.text}
        </p>
      )}
      {action.error !== null && <ErrorNotice code={action.error} lead={t('solo.memory.changeFailed')} />}
      <div className="node-tools">
        {!summary && (
          <button
            type="button"
            className="tool"
            disabled={locked}
            aria-describedby={textId}
            title={t('solo.memory.pinHint')}
            onClick={() => void send({ pinned: !m.pinned })}
          >
            {m.pinned ? t('solo.memory.unpin') : t('solo.memory.pin')}
          </button>
        )}
        {!summary && (
          <button
            type="button"
            className="tool"
            disabled={locked}
            aria-describedby={textId}
            title={t('solo.memory.forgetHint')}
            onClick={() => void send({ forgotten: !m.forgotten })}
          >
            {m.forgotten ? t('solo.memory.unforget') : t('solo.memory.forget')}
          </button>
        )}
        {draft === null && (
          <button
            type="button"
            className="tool"
            ref={editButton}
            disabled={locked}
            aria-describedby={textId}
            onClick={() => {
              action.clear();
              setDraft(m.text);
            }}
          >
            {t('solo.memory.edit')}
          </button>
        )}
      </div>
    </li>
  );
}

// AddMemory is the form that writes a memory by hand; it hangs off the turn
// being read.
function AddMemory({
  adventureId,
  busy,
  onAdded,
}: {
  adventureId: number;
  busy: boolean;
  onAdded: (m: MemoryView) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [text, setText] = useState('');
  const [pinned, setPinned] = useState(false);
  const [added, setAdded] = useState(false);
  const action = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy || action.busy || text.trim() === '') return;
    const m = await action.run(() => addMemory(adventureId, { text, pinned }));
    if (!m) return;
    setText('');
    setPinned(false);
    setAdded(true);
    onAdded(m);
  };

  return (
    <form className="memory-add" onSubmit={submit} aria-labelledby={`${id}-title`} data-testid="memory-add">
      <h3 id={`${id}-title`}>{t('solo.memory.add.title')}</h3>
      <div className="field wide">
        <label className="field-label" htmlFor={`${id}-text`}>
          {t('solo.memory.add.text')}
        </label>
        <textarea
          id={`${id}-text`}
          rows={3}
          value={text}
          aria-describedby={`${id}-hint`}
          aria-invalid={action.error === 'memory_invalid' || undefined}
          onChange={(e) => {
            setText(e.target.value);
            setAdded(false);
          }}
        />
        <span className="hint" id={`${id}-hint`}>
          {t('solo.memory.add.hint')}
        </span>
      </div>
      <label className="check">
        <input type="checkbox" checked={pinned} onChange={(e) => setPinned(e.target.checked)} />
        {t('solo.memory.add.pinned')}
      </label>
      {action.error !== null && <ErrorNotice code={action.error} lead={t('solo.memory.add.failed')} />}
      <p className="form-actions">
        <button type="submit" disabled={busy || action.busy || text.trim() === ''}>
          {t('solo.memory.add.submit')}
        </button>{' '}
        <span role="status" className="hint">
          {added && t('solo.memory.add.done')}
        </span>
      </p>
    </form>
  );
}
