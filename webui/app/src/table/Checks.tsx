import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { ModalDialog } from '../components/ModalDialog';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { useAction } from '../useAction';
import {
  ABILITIES,
  cancelRollRequest,
  requestChecks,
  rollPhysical,
  rollRequest,
  ROLL_MODES,
  SKILLS,
  type CheckInput,
  type RollMode,
  type RollRequestStatus,
  type RollRequestView,
  type RollResultView,
} from './api';
import { DcSeal } from './DcSeal';
import { DiceView, Outcome } from './Dice';
import { newKey } from './InputBar';
import { checkName, isAbility, isSkill, requestName, requestNote, SAVE_SUFFIX, signed } from './labels';

export interface SeatChoice {
  seatId: number;
  name: string;
}

// What the "Request check" dialog starts with.
export interface CheckDraft {
  // null: everyone
  seatIds: number[] | null;
  // a skill or ability name, or a saving throw ("dex_save")
  check?: string;
  pendingActionId?: number;
}

const modeKey = (m: RollMode): MessageKey => `check.mode.${m}`;

// CheckDialog is the DM's "Request check" form → POST /checks.
export function CheckDialog({
  sessionId,
  seats,
  draft,
  onClose,
  onDone,
}: {
  sessionId: number;
  seats: SeatChoice[];
  draft: CheckDraft;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useI18n();
  const action = useAction();
  const titleId = useId();
  const [everyone, setEveryone] = useState(draft.seatIds === null);
  const [chosen, setChosen] = useState<Set<number>>(() => new Set(draft.seatIds ?? []));
  const [check, setCheck] = useState(() => {
    const c = draft.check ?? '';
    if (isSkill(c)) return `skill:${c}`;
    if (isAbility(c)) return `ability:${c}`;
    const save = c.endsWith(SAVE_SUFFIX) ? c.slice(0, -SAVE_SUFFIX.length) : '';
    if (isAbility(save)) return `save:${save}`;
    return 'skill:perception';
  });
  const [dc, setDc] = useState('');
  const [mode, setMode] = useState<RollMode>('normal');
  const [flat, setFlat] = useState('0');
  const [reveal, setReveal] = useState(false);
  const [priv, setPriv] = useState(false);
  const first = useRef<HTMLSelectElement>(null);

  useEffect(() => {
    first.current?.focus();
  }, []);

  const dcValue = dc.trim() === '' ? null : Number(dc);
  const flatValue = flat.trim() === '' ? 0 : Number(flat);
  const dcOk = dcValue === null || Number.isInteger(dcValue);
  const flatOk = Number.isInteger(flatValue);
  const seatsOk = everyone || chosen.size > 0;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!dcOk || !flatOk || !seatsOk || action.busy) return;
    const [kind, name] = check.split(':') as ['skill' | 'ability' | 'save', string];
    const body: CheckInput = {
      ...(everyone ? {} : { seat_ids: seats.map((s) => s.seatId).filter((id) => chosen.has(id)) }),
      ...(kind === 'skill' ? { skill: name } : kind === 'save' ? { save: name } : { ability: name }),
      ...(dcValue !== null ? { dc: dcValue } : {}),
      mode,
      flat_adjustment: flatValue,
      reveal_outcome: reveal,
      private: priv,
      ...(draft.pendingActionId !== undefined ? { pending_action_id: draft.pendingActionId } : {}),
    };
    const r = await action.run(() => requestChecks(sessionId, body));
    if (r) onDone();
  };

  const toggle = (id: number, on: boolean) =>
    setChosen((cur) => {
      const next = new Set(cur);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <ModalDialog kind="dialog" className="dialog check-dialog" labelledBy={titleId} testId="check-dialog" onClose={onClose}>
      <h2 id={titleId}>{t('check.dialog.title')}</h2>
      <form onSubmit={submit} noValidate>
        <fieldset>
          <legend>{t('check.dialog.who')}</legend>
          <label className="check-row">
            <input type="checkbox" checked={everyone} onChange={(e) => setEveryone(e.target.checked)} />{' '}
            {t('check.dialog.everyone')}
          </label>
          {seats.map((s) => (
            <label key={s.seatId} className="check-row">
              <input
                type="checkbox"
                checked={everyone || chosen.has(s.seatId)}
                disabled={everyone}
                onChange={(e) => toggle(s.seatId, e.target.checked)}
              />{' '}
              {s.name}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={`${titleId}-check`}>{t('check.dialog.check')}</label>
          <select id={`${titleId}-check`} ref={first} value={check} onChange={(e) => setCheck(e.target.value)}>
            <optgroup label={t('character.skills')}>
              {SKILLS.map((s) => (
                <option key={s} value={`skill:${s}`}>
                  {t(`skill.${s}`)}
                </option>
              ))}
            </optgroup>
            <optgroup label={t('character.abilities')}>
              {ABILITIES.map((a) => (
                <option key={a} value={`ability:${a}`}>
                  {t(`ability.${a}`)}
                </option>
              ))}
            </optgroup>
            <optgroup label={t('character.saves')}>
              {ABILITIES.map((a) => (
                <option key={a} value={`save:${a}`}>
                  {checkName(a + SAVE_SUFFIX, t)}
                </option>
              ))}
            </optgroup>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${titleId}-dc`}>{t('check.dialog.dc')}</label>
          <input
            id={`${titleId}-dc`}
            type="number"
            min={1}
            inputMode="numeric"
            value={dc}
            onChange={(e) => setDc(e.target.value)}
          />
        </div>
        <fieldset>
          <legend>{t('check.dialog.mode')}</legend>
          {ROLL_MODES.map((m) => (
            <label key={m} className="check-row">
              <input type="radio" name="check-mode" value={m} checked={mode === m} onChange={() => setMode(m)} /> {t(modeKey(m))}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={`${titleId}-flat`}>{t('check.dialog.flat')}</label>
          <input id={`${titleId}-flat`} type="number" inputMode="numeric" value={flat} onChange={(e) => setFlat(e.target.value)} />
        </div>
        <label className="check-row">
          <input type="checkbox" checked={reveal} onChange={(e) => setReveal(e.target.checked)} /> {t('check.dialog.reveal')}
        </label>
        <label className="check-row">
          <input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} /> {t('check.dialog.private')}
        </label>
        {!seatsOk && <p className="hint">{t('check.dialog.noSeats')}</p>}
        {action.error !== null && <ErrorNotice code={action.error} />}
        <div className="inline-form">
          <button type="submit" disabled={!dcOk || !flatOk || !seatsOk || action.busy}>
            {t('check.dialog.send')}
          </button>
          <button type="button" onClick={onClose}>
            {t('check.dialog.cancel')}
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}

// RequestCard is one check request: for its player ("Roll", "Enter my
// dice"), or a row of the DM's list (DC, outcome, cancel, roll for them).
// A DC is rendered only on the DM's card until it is revealed; every card of
// a secret DC shows its commitment, then the browser's check of the reveal.
export function RequestCard({
  request,
  result,
  name,
  asDm,
  canAct,
  onResult,
  onChanged,
  onDismiss,
}: {
  request: RollRequestView;
  // the result, from the board or from our own answer
  result: RollResultView | null;
  // the target's name
  name: string;
  asDm: boolean;
  // the session is running and the reader may roll for this seat
  canAct: boolean;
  onResult: (r: RollResultView) => void;
  onChanged: () => void;
  onDismiss?: () => void;
}) {
  const { t } = useI18n();
  const status = result ? 'resolved' : (request.status as RollRequestStatus);
  const what = requestName(request, t);
  // a secret DC: its commitment, opened once revealed (the DM sees the DC throughout)
  const reveal = request.dc_salt && request.dc != null ? { dc: request.dc, salt: request.dc_salt } : null;

  return (
    <article
      className={`request-card status-${status}`}
      data-testid={asDm ? 'dm-request' : 'my-request'}
      data-status={status}
      data-target={name}
    >
      <h4>
        {asDm ? (
          <>
            <span className="speaker">{name}</span> · {what}
          </>
        ) : (
          format(t('check.card.title'), { check: what })
        )}
      </h4>
      {requestNote(request) && (
        <p className="request-note" data-testid="request-note">
          {requestNote(request)}
        </p>
      )}
      <p className="request-facts">
        {request.mode !== 'normal' && <span className="tag">{t(modeKey(request.mode as RollMode))}</span>}
        {request.flat_adjustment !== 0 && (
          <span className="tag">{format(t('check.flat'), { n: signed(request.flat_adjustment) })}</span>
        )}
        {asDm && request.dc !== undefined && request.dc !== null && (
          <span className="tag dc" data-testid="request-dc">
            {format(t('check.dc'), { dc: request.dc })}
          </span>
        )}
        <DcSeal commitment={request.dc_commitment} reveal={reveal} />
        {asDm && <span className="tag">{t(request.reveal_outcome ? 'check.revealed' : 'check.hidden')}</span>}
        {request.visibility !== 'public' && <span className="tag">{t('dice.private')}</span>}
        {status !== 'pending' && (
          <span className="tag" data-testid="request-status">
            {t(`check.status.${status}`)}
          </span>
        )}
      </p>

      {status === 'resolved' && result && (
        <div className="request-result">
          <p>
            <span>{t(asDm ? 'check.total' : 'check.myTotal')}</span>{' '}
            <strong className="roll-total" data-testid="request-total">
              {result.total}
            </strong>{' '}
            <Outcome result={result} />
          </p>
          <p className="roll-body">
            <code className="roll-formula">{result.formula}</code> <DiceView audit={result.audit} />
            {result.execution_mode === 'dm_proxy' && (
              <span className="tag">{format(t('table.speaker.dmFor'), { name })}</span>
            )}
          </p>
          {onDismiss && (
            <button type="button" onClick={onDismiss}>
              {t('check.card.dismiss')}
            </button>
          )}
        </div>
      )}

      {status === 'pending' && (
        <CheckAnswer
          request={request}
          name={name}
          answer={asDm ? 'for' : 'mine'}
          cancel={asDm}
          canAct={canAct}
          onResult={onResult}
          onChanged={onChanged}
        />
      )}
    </article>
  );
}

// CheckAnswer is what a pending check offers the reader: "Roll" and "Enter
// my dice" to its player (answer "mine"), "Roll for X" and "Enter dice for
// X" to the DM (answer "for"), and the DM's "Cancel request". A repeated
// answer keeps its idempotency key; an error shows its text here. Compact
// (a feed card): one row of small buttons beside the card's head, the hint
// as the buttons' title; the dice entry opens on a row of its own.
export function CheckAnswer({
  request,
  name,
  answer,
  cancel,
  canAct,
  onResult,
  onChanged,
  compact = false,
}: {
  request: RollRequestView;
  // the target's name
  name: string;
  answer: 'mine' | 'for' | null;
  cancel: boolean;
  // the session is running and the reader may roll for this seat
  canAct: boolean;
  onResult: (r: RollResultView) => void;
  // after a cancel went through
  onChanged: () => void;
  compact?: boolean;
}) {
  const { t } = useI18n();
  const action = useAction();
  const [entering, setEntering] = useState(false);
  const needed = Math.max(1, request.dice_needed || 1);
  const [faces, setFaces] = useState<string[]>(() => Array.from({ length: needed }, () => ''));
  const keys = useRef<Record<string, { sig: string; key: string }>>({});
  const idBase = useId();

  const keyFor = (what: string, sig: string) => {
    const cur = keys.current[what];
    if (cur?.sig === sig) return cur.key;
    const k = { sig, key: newKey() };
    keys.current[what] = k;
    return k.key;
  };

  const roll = async () => {
    const key = keyFor('roll', 'roll');
    const r = await action.run(() => rollRequest(request.id, key));
    if (r) onResult(r);
  };
  const faceValues = faces.map((f) => Number(f));
  const facesOk = faceValues.every((n, i) => faces[i]!.trim() !== '' && Number.isInteger(n) && n >= 1 && n <= 20);
  const sendFaces = async (e: FormEvent) => {
    e.preventDefault();
    if (!facesOk || action.busy) return;
    const key = keyFor('physical', JSON.stringify(faceValues));
    const r = await action.run(() => rollPhysical(request.id, faceValues, key));
    if (r) onResult(r);
  };
  const cancelIt = async () => {
    if (await action.run(() => cancelRollRequest(request.id))) onChanged();
  };
  const forThem = answer === 'for';
  const hint = answer === 'mine' ? t('check.card.hint') : undefined;

  return (
    <div className={`check-answer${compact ? ' is-compact' : ''}`} data-testid="check-answer">
      {hint !== undefined && !compact && <p className="hint">{hint}</p>}
      <div className="inline-form answer-buttons">
        {answer !== null && (
          <>
            <button type="button" title={compact ? hint : undefined} disabled={!canAct || action.busy} onClick={roll}>
              {forThem ? format(t('check.rollFor'), { name }) : t('check.roll')}
            </button>
            <button
              type="button"
              title={compact ? hint : undefined}
              aria-expanded={entering}
              disabled={!canAct}
              onClick={() => setEntering((x) => !x)}
            >
              {forThem ? format(t('check.enterFor'), { name }) : t('check.enter')}
            </button>
          </>
        )}
        {cancel && (
          <button type="button" disabled={action.busy} onClick={cancelIt}>
            {t('check.cancelRequest')}
          </button>
        )}
      </div>
      {entering && answer !== null && (
        <form className="faces-form inline-form" onSubmit={sendFaces}>
          <span className="hint">{format(t(needed === 1 ? 'check.faces.one' : 'check.faces.many'), { n: needed })}</span>
          {faces.map((f, i) => (
            <label key={i} htmlFor={`${idBase}-${i}`}>
              <span>{format(t('check.face'), { n: i + 1 })}</span>{' '}
              <input
                id={`${idBase}-${i}`}
                type="number"
                min={1}
                max={20}
                inputMode="numeric"
                className="face-input"
                value={f}
                onChange={(e) => setFaces((cur) => cur.map((x, j) => (j === i ? e.target.value : x)))}
              />
            </label>
          ))}
          <button type="submit" disabled={!canAct || !facesOk || action.busy}>
            {t('check.faces.send')}
          </button>
        </form>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </div>
  );
}
