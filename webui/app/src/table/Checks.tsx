import { useId, useRef, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { useAction } from '../useAction';
import {
  cancelRollRequest,
  rollPhysical,
  rollRequest,
  type RollMode,
  type RollRequestStatus,
  type RollRequestView,
  type RollResultView,
} from './api';
import { DcSeal } from './DcSeal';
import { DiceView, Outcome } from './Dice';
import { newKey } from './InputBar';
import { requestName, requestNote, signed } from './labels';

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
