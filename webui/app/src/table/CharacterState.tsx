import { useEffect, useId, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { useAction } from '../useAction';
import {
  changeCharacterState,
  CONDITIONS,
  DAMAGE_TYPES,
  getCharacter,
  type AttackDerived,
  type CharacterStateOp,
  type HP,
  type Resource,
} from './api';
import { CardAttacks } from './CardSheet';
import { conditionName } from './labels';


const pct = (n: number, max: number) => Math.round(Math.min(100, Math.max(0, (n / Math.max(max, 1)) * 100)) * 10) / 10;

// HpBar: current / max hit points as a bar, and temporary HP.
export function HpBar({ hp }: { hp: HP }) {
  const { t } = useI18n();
  const share = hp.max > 0 ? hp.current / hp.max : 0;
  const level = share <= 0.25 ? 'low' : share <= 0.5 ? 'mid' : 'high';
  return (
    <div className="hp">
      <p data-testid="card-hp">
        {t('session.hp')} {hp.current}/{hp.max}
      </p>
      <div
        className={`hp-bar hp-${level}`}
        role="meter"
        aria-label={t('session.hp')}
        aria-valuemin={0}
        aria-valuemax={hp.max}
        aria-valuenow={hp.current}
        aria-valuetext={`${hp.current}/${hp.max}`}
        data-testid="hp-bar"
      >
        <span className="hp-fill" style={{ width: `${pct(hp.current, hp.max)}%` }} />
        {hp.temp > 0 && <span className="hp-temp" style={{ width: `${pct(hp.temp, hp.max)}%` }} />}
      </div>
      {hp.temp > 0 && (
        <p className="hp-temp-text" data-testid="card-temp">
          {format(t('card.tempHp'), { n: hp.temp })}
        </p>
      )}
    </div>
  );
}

// HpMeter is a thin bar of current / max hit points (and temporary ones),
// for rows that already print the numbers (the initiative order).
export function HpMeter({ hp, label }: { hp: HP; label: string }) {
  const share = hp.max > 0 ? hp.current / hp.max : 0;
  const level = share <= 0.25 ? 'low' : share <= 0.5 ? 'mid' : 'high';
  return (
    <span
      className={`hp-bar hp-meter hp-${level}`}
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={hp.max}
      aria-valuenow={hp.current}
      aria-valuetext={`${hp.current}/${hp.max}`}
      data-testid="combatant-hp-bar"
    >
      <span className="hp-fill" style={{ width: `${pct(hp.current, hp.max)}%` }} />
      {hp.temp > 0 && <span className="hp-temp" style={{ width: `${pct(hp.temp, hp.max)}%` }} />}
    </span>
  );
}

// ConditionChips lists a character's conditions; the DM can remove one.
export function ConditionChips({
  sessionId,
  seatId,
  conditions,
  canRemove,
  onChanged,
}: {
  sessionId: number;
  seatId: number;
  conditions: string[];
  canRemove: boolean;
  onChanged?: () => void;
}) {
  const { t } = useI18n();
  const action = useAction();
  const remove = async (condition: string) => {
    const r = await action.run(() => changeCharacterState(sessionId, { subject_seat_id: seatId, op: 'remove_condition', condition }));
    if (r) onChanged?.();
  };
  return (
    <>
      <p className="conditions" data-testid="card-conditions">
        {t('session.conditions')}:{' '}
        {conditions.length === 0
          ? t('session.noConditions')
          : conditions.map((c, i) => (
              <span key={c} className="chip" data-testid="condition" data-condition={c}>
                {conditionName(c, t)}
                {canRemove && (
                  <button
                    type="button"
                    className="chip-x"
                    aria-label={format(t('card.removeCondition'), { condition: conditionName(c, t) })}
                    disabled={action.busy}
                    onClick={() => remove(c)}
                  >
                    ×
                  </button>
                )}
                {i < conditions.length - 1 ? ', ' : ''}
              </span>
            ))}
      </p>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </>
  );
}

// CardControls: the DM's damage / heal / temp HP / add condition on any
// participant card, and its attacks (rolled for the seat); a player's heal /
// temp HP / resources / attacks on their own.
export function CardControls({
  sessionId,
  seatId,
  characterId,
  attacks,
  name,
  asDm,
  conditions,
  resourcesVersion,
  onChanged,
}: {
  sessionId: number;
  seatId: number;
  characterId: number;
  // the character's attacks as the resume's derived sheet has them
  attacks: AttackDerived[];
  name: string;
  asDm: boolean;
  conditions: string[];
  resourcesVersion: number;
  onChanged?: () => void;
}) {
  const { t } = useI18n();
  const action = useAction();
  const [amount, setAmount] = useState('');
  const [damageType, setDamageType] = useState('');
  const [condition, setCondition] = useState('');
  const amountId = useId();
  const typeId = useId();
  const condId = useId();
  const n = Number(amount);
  const amountOk = amount.trim() !== '' && Number.isInteger(n) && n >= 1;

  const apply = async (op: CharacterStateOp) => {
    if (!amountOk || action.busy) return;
    // Typed damage goes through the character's resistances, immunities and vulnerabilities.
    const typed = op === 'damage' && damageType !== '' ? { damage_type: damageType } : {};
    const r = await action.run(() => changeCharacterState(sessionId, { subject_seat_id: seatId, op, amount: n, ...typed }));
    if (r) {
      setAmount('');
      onChanged?.();
    }
  };
  const addCondition = async () => {
    if (condition === '' || action.busy) return;
    const r = await action.run(() =>
      changeCharacterState(sessionId, { subject_seat_id: seatId, op: 'add_condition', condition }),
    );
    if (r) {
      setCondition('');
      onChanged?.();
    }
  };
  const addable = CONDITIONS.filter((c) => !conditions.includes(c));

  return (
    <div className="card-controls" data-testid="card-controls">
      <div className="inline-form">
        <label htmlFor={amountId} className="visually-hidden">
          {format(t('card.amountFor'), { name })}
        </label>
        <input
          id={amountId}
          className="amount-input"
          type="number"
          min={1}
          inputMode="numeric"
          placeholder={t('card.amount')}
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
        />
        {asDm && (
          <>
            <label htmlFor={typeId} className="visually-hidden">
              {format(t('card.damageTypeFor'), { name })}
            </label>
            <select id={typeId} value={damageType} onChange={(e) => setDamageType(e.target.value)}>
              <option value="">{t('card.damageUntyped')}</option>
              {DAMAGE_TYPES.map((d) => (
                <option key={d} value={d}>
                  {t(`damage.${d}` as MessageKey)}
                </option>
              ))}
            </select>
            <button type="button" className="damage" disabled={!amountOk || action.busy} onClick={() => apply('damage')}>
              {t('card.damage')}
            </button>
          </>
        )}
        <button type="button" className="heal" disabled={!amountOk || action.busy} onClick={() => apply('heal')}>
          {t('card.heal')}
        </button>
        <button type="button" disabled={!amountOk || action.busy} onClick={() => apply('set_temp_hp')}>
          {t('card.setTemp')}
        </button>
      </div>
      {asDm && (
        <div className="inline-form">
          <label htmlFor={condId} className="visually-hidden">
            {format(t('card.conditionFor'), { name })}
          </label>
          <select id={condId} value={condition} onChange={(e) => setCondition(e.target.value)}>
            <option value="">{t('card.chooseCondition')}</option>
            {addable.map((c) => (
              <option key={c} value={c}>
                {t(`condition.${c}`)}
              </option>
            ))}
          </select>
          <button type="button" disabled={condition === '' || action.busy} onClick={addCondition}>
            {t('card.addCondition')}
          </button>
        </div>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
      {!asDm && (
        <OwnResources
          sessionId={sessionId}
          seatId={seatId}
          characterId={characterId}
          version={resourcesVersion}
          onChanged={onChanged}
        />
      )}
      <CardAttacks sessionId={sessionId} seatId={seatId} attacks={attacks} asDm={asDm} />
    </div>
  );
}

// OwnResources: a player's resources (spell slots, ki…) with spend and
// restore. The resume does not carry resources, so they are read from the
// player's own character when the list is opened.
function OwnResources({
  sessionId,
  seatId,
  characterId,
  version,
  onChanged,
}: {
  sessionId: number;
  seatId: number;
  characterId: number;
  version: number;
  onChanged?: () => void;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [resources, setResources] = useState<Resource[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const action = useAction();

  useEffect(() => {
    if (!open) return;
    const ctrl = new AbortController();
    getCharacter(characterId, ctrl.signal).then(
      (c) => {
        if (!ctrl.signal.aborted) {
          setResources(c.resources ?? []);
          setLoadError(null);
        }
      },
      (e: unknown) => {
        if (!ctrl.signal.aborted) setLoadError((e as { code?: string }).code ?? '');
      },
    );
    return () => ctrl.abort();
  }, [open, characterId, version]);

  const change = async (op: 'spend_resource' | 'restore_resource', resource: string) => {
    const r = await action.run(() => changeCharacterState(sessionId, { subject_seat_id: seatId, op, resource, amount: 1 }));
    if (r) {
      setResources(r.after.resources ?? []);
      onChanged?.();
    }
  };

  return (
    <details className="own-resources" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{t('character.resources')}</summary>
      {open && resources === null && loadError === null && <p className="hint">{t('common.loading')}</p>}
      {loadError !== null && <ErrorNotice code={loadError} />}
      {resources !== null && resources.length === 0 && <p className="hint">{t('character.resources.empty')}</p>}
      {resources !== null && resources.length > 0 && (
        <ul className="resource-list">
          {resources.map((r) => (
            <li key={r.name} data-testid="resource" data-resource={r.name}>
              <span>
                {r.name} {r.current}/{r.max}
              </span>{' '}
              <button
                type="button"
                aria-label={format(t('card.spendOne'), { resource: r.name })}
                disabled={action.busy || r.current <= 0}
                onClick={() => change('spend_resource', r.name)}
              >
                {t('card.spend')}
              </button>{' '}
              <button
                type="button"
                aria-label={format(t('card.restoreOne'), { resource: r.name })}
                disabled={action.busy || r.current >= r.max}
                onClick={() => change('restore_resource', r.name)}
              >
                {t('card.restore')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </details>
  );
}
