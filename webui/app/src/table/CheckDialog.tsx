// The DM's "Request check" dialog, loaded when the DM first opens it.
import { useId, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { focusOnMount } from '../focus';
import { ModalDialog } from '../components/ModalDialog';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/messages';
import { useAction } from '../useAction';
import { ABILITIES, requestChecks, ROLL_MODES, SKILLS, type CheckInput, type RollMode } from './api';
import { checkName, isAbility, isSkill, SAVE_SUFFIX } from './labels';
import type { CheckDraft, SeatChoice } from './Checks';

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
          <select id={`${titleId}-check`} ref={focusOnMount} value={check} onChange={(e) => setCheck(e.target.value)}>
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
