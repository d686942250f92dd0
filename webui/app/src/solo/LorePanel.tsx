import { useId, useRef, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { format, type MessageKey } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { useAction } from '../useAction';
import {
  addCard,
  changeCard,
  getCards,
  type CardEdit,
  type CardInput,
  type CardSource,
  type ContextFill,
  type PlayCard,
} from './api';
import { CardRulesFields, rulesSet, rulesSummary } from './CardRules';
import { DrawerShell } from './DrawerShell';
import { rulesDraftOf, rulesInputOf, splitKeys, type RulesDraft } from './scenarioDraft';
import { useDrawerData } from './useDrawerData';

const SOURCES: readonly CardSource[] = ['scenario', 'player', 'script'];

// keysOf reads the keys box: words separated by commas, blanks dropped,
// /regular expressions/ kept whole (the scenario editor's rule).
export const keysOf = splitKeys;

// fillPercent is how much of the budget the prompt used, 0–100.
export const fillPercent = (f: ContextFill): number =>
  f.budget > 0 ? Math.min(100, Math.round((f.used / f.budget) * 100)) : 0;

// ContextFillBar shows how full the newest prompt of the line was: the
// tokens the endpoint reported (or, marked ≈, the server's estimate)
// against the context budget.
export function ContextFillBar({ fill }: { fill: ContextFill | null }) {
  const { t } = useI18n();
  const id = useId();
  if (!fill)
    return (
      <p className="hint context-fill" data-testid="context-fill">
        {t('solo.lore.fill')}: {t('solo.lore.fillNone')}
      </p>
    );
  const pct = fillPercent(fill);
  const label = format(t(fill.estimated ? 'solo.lore.fillEstimate' : 'solo.lore.fillValue'), {
    used: fill.used,
    budget: fill.budget,
    pct,
  });
  return (
    <div className="context-fill" data-testid="context-fill" title={t('solo.lore.fillHint')}>
      <span id={`${id}-label`} className="hint">
        {t('solo.lore.fill')}:
      </span>{' '}
      <meter
        aria-labelledby={`${id}-label`}
        aria-valuetext={label}
        min={0}
        max={fill.budget}
        high={fill.budget * 0.9}
        value={Math.min(fill.used, fill.budget)}
        data-testid="context-fill-meter"
      />{' '}
      <span className="hint" data-testid="context-fill-value">
        {label}
      </span>
    </div>
  );
}

// LorePanel is the drawer of the adventure's story cards on the line being
// read: what the last prompt did with each (named, in it or not fitted),
// how full that prompt was, and the controls to edit, set aside, bring back
// and add cards. Changes count from the next turn; the server refuses them
// while a turn is being written. It loads when opened and again when
// version changes (a turn ended while it was open).
export function LorePanel({
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
  const { loaded, reload, shown, setShown, close } = useDrawerData(adventureId, version, getCards);

  // put takes a card the server answered; it keeps what the last prompt
  // did with it (the answer of a change does not say)
  const put = (c: PlayCard) =>
    setShown((s) => {
      if (!s) return s;
      const old = s.cards.find((x) => x.id === c.id);
      if (!old) return { ...s, cards: [...s.cards, c] };
      return { ...s, cards: s.cards.map((x) => (x.id === c.id ? { ...c, last_turn: old.last_turn } : x)) };
    });

  return (
    <DrawerShell keys="lore" loaded={loaded} ready={shown !== null} reload={reload} close={close} onClose={onClose}>
      {shown !== null && (
        <>
          <ContextFillBar fill={shown.last_build ?? null} />
          <p className="hint" data-testid="lore-count">
            {format(t('solo.lore.count'), { n: shown.cards.length, max: shown.max_cards })}
          </p>
          {shown.cards.length === 0 ? (
            <p className="hint">{t('solo.lore.empty')}</p>
          ) : (
            <ul className="memory-list lore-list">
              {shown.cards.map((c) => (
                <CardItem key={c.id} card={c} adventureId={adventureId} busy={busy} onSaved={put} />
              ))}
            </ul>
          )}
          {shown.cards.length < shown.max_cards && (
            <AddCard adventureId={adventureId} busy={busy} onAdded={put} />
          )}
        </>
      )}
    </DrawerShell>
  );
}

interface Draft {
  title: string;
  keys: string;
  entry: string;
  type: string;
  rules: RulesDraft;
}

const draftOf = (c: CardInput): Draft => ({
  title: c.title,
  keys: c.keys.join(', '),
  entry: c.entry,
  type: c.type,
  rules: rulesDraftOf(c),
});
const inputOf = (d: Draft, explicit = false): CardInput => ({
  title: d.title.trim(),
  keys: keysOf(d.keys),
  entry: d.entry,
  type: d.type.trim(),
  ...rulesInputOf(d.rules, explicit),
});

// CardFields are the four boxes of a card being written.
function CardFields({ draft, onChange }: { draft: Draft; onChange: (d: Draft) => void }) {
  const { t } = useI18n();
  const id = useId();
  const field = (key: 'title' | 'type', label: MessageKey, max: number) => (
    <div className="field">
      <label className="field-label" htmlFor={`${id}-${key}`}>
        {t(label)}
      </label>
      <input
        id={`${id}-${key}`}
        value={draft[key]}
        maxLength={max}
        onChange={(e) => onChange({ ...draft, [key]: e.target.value })}
      />
    </div>
  );
  return (
    <div className="fields">
      {field('title', 'solo.lore.field.title', 200)}
      {field('type', 'solo.lore.field.type', 40)}
      <div className="field wide">
        <label className="field-label" htmlFor={`${id}-keys`}>
          {t('solo.lore.field.keys')}
        </label>
        <input
          id={`${id}-keys`}
          value={draft.keys}
          aria-describedby={`${id}-keys-hint`}
          onChange={(e) => onChange({ ...draft, keys: e.target.value })}
        />
        <span className="hint" id={`${id}-keys-hint`}>
          {t('solo.lore.field.keysHint')}
        </span>
      </div>
      <div className="field wide">
        <label className="field-label" htmlFor={`${id}-entry`}>
          {t('solo.lore.field.entry')}
        </label>
        <textarea
          id={`${id}-entry`}
          rows={4}
          value={draft.entry}
          maxLength={4000}
          onChange={(e) => onChange({ ...draft, entry: e.target.value })}
        />
      </div>
      <CardRulesFields rules={draft.rules} onChange={(rules) => onChange({ ...draft, rules })} />
    </div>
  );
}

// CardItem is one card: its marks (where it came from, edited, set aside,
// what the last prompt did with it), its keys and entry, or the form that
// edits it.
function CardItem({
  card: c,
  adventureId,
  busy,
  onSaved,
}: {
  card: PlayCard;
  adventureId: number;
  busy: boolean;
  onSaved: (c: PlayCard) => void;
}) {
  const { t } = useI18n();
  const action = useAction();
  const [draft, setDraft] = useState<Draft | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const locked = busy || action.busy;
  const source = (SOURCES as readonly string[]).includes(c.source) ? (c.source as CardSource) : 'player';

  const send = async (edit: CardEdit) => {
    const saved = await action.run(() => changeCard(adventureId, c.id, edit));
    if (saved) onSaved(saved);
    return saved !== undefined;
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (draft === null || locked) return;
    if (await send(inputOf(draft, true))) {
      setDraft(null);
      editButton.current?.focus();
    }
  };

  const classes = ['memory', 'lore-card'];
  if (!c.enabled) classes.push('is-forgotten');
  if (c.last_turn?.included) classes.push('is-used');
  return (
    <li
      className={classes.join(' ')}
      data-testid="lore-card"
      data-card-id={c.id}
      data-enabled={c.enabled}
      data-used={c.last_turn?.included ?? false}
    >
      <div className="memory-marks">
        <strong className="lore-title">{c.title}</strong>
        <span className="tag" title={t(`solo.lore.source.${source}Hint`)}>
          {t(`solo.lore.source.${source}`)}
        </span>
        {c.player_authored && source === 'scenario' && (
          <span className="tag" title={t('solo.lore.editedHint')}>
            {t('solo.lore.edited')}
          </span>
        )}
        {!c.enabled && <span className="tag is-forgotten">{t('solo.lore.setAside')}</span>}
        {c.last_turn && (
          <span className={`tag${c.last_turn.included ? ' is-used' : ''}`} data-testid="lore-used">
            {t(c.last_turn.included ? 'solo.lore.used' : 'solo.lore.notFitted')}{' '}
            {c.last_turn.constant ? t('solo.lore.alwaysIn') : format(t('solo.lore.trigger'), { key: c.last_turn.trigger })}
          </span>
        )}
      </div>
      {draft !== null ? (
        <form className="node-edit" onSubmit={save} data-testid="lore-edit">
          <CardFields draft={draft} onChange={setDraft} />
          {action.error !== null && <ErrorNotice code={action.error} lead={t('solo.lore.changeFailed')} />}
          <p className="form-actions">
            <button type="submit" disabled={locked || draft.title.trim() === ''}>
              {t('solo.lore.save')}
            </button>{' '}
            <button
              type="button"
              onClick={() => {
                setDraft(null);
                action.clear();
              }}
            >
              {t('solo.lore.cancel')}
            </button>
          </p>
        </form>
      ) : (
        <>
          <p className="hint lore-keys">
            {c.keys.length > 0 ? c.keys.join(', ') : t(c.constant ? 'solo.lore.noKeysConstant' : 'solo.lore.noKeys')}
          </p>
          {rulesSet(rulesDraftOf(c)) && (
            <p className="hint lore-rules" data-testid="lore-rules">
              {rulesSummary(t, rulesDraftOf(c))}
            </p>
          )}
          {c.entry !== '' && <p className="memory-text">{c.entry}</p>}
          {action.error !== null && <ErrorNotice code={action.error} lead={t('solo.lore.changeFailed')} />}
          <p className="drawer-tools">
            <button type="button" ref={editButton} disabled={locked} onClick={() => setDraft(draftOf(c))}>
              {t('solo.lore.edit')}
            </button>
            <button
              type="button"
              disabled={locked}
              title={t('solo.lore.disableHint')}
              onClick={() => void send({ enabled: !c.enabled })}
            >
              {t(c.enabled ? 'solo.lore.disable' : 'solo.lore.enable')}
            </button>
          </p>
        </>
      )}
    </li>
  );
}

const EMPTY: Draft = { title: '', keys: '', entry: '', type: '', rules: rulesDraftOf({}) };

// AddCard writes a new card of the player's.
function AddCard({
  adventureId,
  busy,
  onAdded,
}: {
  adventureId: number;
  busy: boolean;
  onAdded: (c: PlayCard) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const action = useAction();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy || action.busy || draft.title.trim() === '') return;
    const added = await action.run(() => addCard(adventureId, inputOf(draft)));
    if (added) {
      onAdded(added);
      setDraft(EMPTY);
    }
  };
  return (
    <form className="lore-add" onSubmit={submit} aria-labelledby={`${id}-add`} data-testid="lore-add">
      <h3 id={`${id}-add`}>{t('solo.lore.add.title')}</h3>
      <CardFields draft={draft} onChange={setDraft} />
      {action.error !== null && <ErrorNotice code={action.error} />}
      <p className="form-actions">
        <button type="submit" disabled={busy || action.busy || draft.title.trim() === ''}>
          {t('solo.lore.add.submit')}
        </button>
      </p>
    </form>
  );
}
