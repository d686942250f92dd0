import { Dices } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { damageName } from '../pages/SheetLists';
import { ABILITIES, SKILLS, type AttackDerived, type DiceAudit, type DieView, type RollResultView } from './api';
import { SAVE_SUFFIX, checkName, signed } from './labels';
import type { TableNames } from './names';
import { useQuickRoll } from './useQuickRoll';

type T = (key: MessageKey) => string;

function faceText(d: DieView, fudge: boolean): string {
  if (!fudge) return String(d.value);
  return d.value > 0 ? '+' : d.value < 0 ? '−' : '0';
}

// Die shows one die: kept dice bold, dropped dice struck through, exploded
// and rerolled dice marked.
function Die({ d, fudge, sides, t }: { d: DieView; fudge: boolean; sides: number | undefined; t: T }) {
  const face = faceText(d, fudge);
  const marks: string[] = [];
  if (d.dropped) marks.push(t('dice.dropped'));
  else if (d.kept) marks.push(t('dice.kept'));
  if (d.exploded) marks.push(t('dice.exploded'));
  if (d.rerolled) marks.push(t('dice.rerolled'));
  // a natural 20 or 1 on a kept d20
  const nat = !fudge && sides === 20 && d.kept && !d.dropped && (d.value === 20 || d.value === 1) ? ` is-nat${d.value}` : '';
  const cls = `die${nat}${d.kept && !d.dropped ? ' is-kept' : ''}${d.dropped ? ' is-dropped' : ''}${d.exploded ? ' is-exploded' : ''}${d.rerolled ? ' is-rerolled' : ''}`;
  return (
    <span
      className={cls}
      data-testid="die"
      data-kept={d.kept && !d.dropped ? 'true' : 'false'}
      data-dropped={d.dropped ? 'true' : 'false'}
      data-exploded={d.exploded ? 'true' : undefined}
      data-rerolled={d.rerolled ? 'true' : undefined}
      title={marks.join(', ')}
    >
      {/* not kept (dropped, or rerolled and replaced): struck through */}
      {d.kept && !d.dropped ? <strong>{face}</strong> : <s>{face}</s>}
      {d.exploded && (
        <span className="die-mark" aria-label={t('dice.exploded')}>
          !
        </span>
      )}
      {d.rerolled && (
        <span className="die-mark" aria-label={t('dice.rerolled')}>
          ↻
        </span>
      )}
    </span>
  );
}

// DiceView shows the dice of a roll, group by group.
export function DiceView({ audit }: { audit: DiceAudit | null | undefined }) {
  const { t } = useI18n();
  const groups = audit?.groups ?? [];
  if (groups.length === 0) return null;
  return (
    <span className="dice" data-testid="dice">
      {groups.map((g, gi) => (
        <span key={gi} className="dice-group" title={g.notation}>
          {groups.length > 1 && (
            <>
              <span className="dice-notation">{g.notation}</span>{' '}
            </>
          )}
          <span className="dice-faces">
            {g.dice.map((d, di) => (
              <span key={di}>
                {di > 0 && ' '}
                <Die d={d} fudge={!!g.fudge} sides={g.sides} t={t} />
              </span>
            ))}
          </span>
        </span>
      ))}
    </span>
  );
}

// Outcome shows pass / fail, only when the result carries it (the server
// sends success to the DM, and to players only when the DM revealed it).
export function Outcome({ result }: { result: RollResultView }) {
  const { t } = useI18n();
  if (typeof result.success !== 'boolean') return null;
  return (
    <span className={`outcome ${result.success ? 'is-pass' : 'is-fail'}`} data-testid="check-outcome" data-success={String(result.success)}>
      {t(result.success ? 'check.pass' : 'check.fail')}
    </span>
  );
}

// whoRolled names who a roll is for: the character, "DM for X" when the DM
// rolled for a player seat, or the DM.
export function whoRolled(r: RollResultView, names: TableNames, t: T): string {
  const unknown = t('table.speaker.unknown');
  if (r.execution_mode === 'dm_proxy') {
    return format(t('table.speaker.dmFor'), { name: names.character(r.subject_character_id, r.subject_seat_id) ?? unknown });
  }
  if (r.subject_seat_id == null && r.acting_seat_id === names.dmSeatId) return t('table.speaker.dm');
  return names.character(r.subject_character_id, r.subject_seat_id ?? r.acting_seat_id) ?? unknown;
}

const NOTATION: { ex: string; key: MessageKey }[] = [
  { ex: '2d6', key: 'dice.help.ndm' },
  { ex: 'd%', key: 'dice.help.percent' },
  { ex: '4dF', key: 'dice.help.fudge' },
  { ex: '2d20kh1', key: 'dice.help.keep' },
  { ex: '4d6dl1', key: 'dice.help.drop' },
  { ex: '3d6!', key: 'dice.help.explode' },
  { ex: '1d20r1', key: 'dice.help.reroll' },
  { ex: '(1d4 + 2) * 3 / 2', key: 'dice.help.math' },
];

// QuickRoll rolls any formula at the table (public), a check of the seated
// character's sheet, or one of its attacks (to hit or damage). It never
// completes a check request.
export function QuickRoll({
  sessionId,
  subjectSeatId,
  attacks = [],
  disabledReason,
  onRolled,
}: {
  sessionId: number;
  // the DM rolling for a player seat (DM proxy)
  subjectSeatId: number | null;
  // the attacks of the sheet the rolls are for (the seat's, or the proxied seat's)
  attacks?: AttackDerived[];
  disabledReason: MessageKey | null;
  onRolled: (r: RollResultView) => void;
}) {
  const { t } = useI18n();
  const [formula, setFormula] = useState('');
  const { action, roll: post } = useQuickRoll(sessionId);
  const inputId = useId();
  const trimmed = formula.trim();
  const closed = disabledReason !== null;

  const [check, setCheck] = useState<string>(SKILLS[0]);
  const [attackPick, setAttackPick] = useState('');
  // the picked attack, else the first (the list follows the seat rolled for)
  const attack = attacks.find((a) => a.name === attackPick) ?? attacks[0];

  // roll posts one quick roll; a retry of the same body reuses its key.
  const roll = async (fields: { formula: string; check?: string; attack?: string; damage?: boolean }) => {
    const r = await post({ ...fields, ...(subjectSeatId !== null ? { subject_seat_id: subjectSeatId } : {}) });
    if (r) onRolled(r);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (closed || trimmed === '' || action.busy) return;
    await roll({ formula: trimmed });
  };

  // A check is 1d20 plus the seated character's modifier, which the server
  // takes from the stored sheet.
  const submitCheck = async (e: FormEvent) => {
    e.preventDefault();
    if (closed || action.busy) return;
    await roll({ formula: '', check });
  };

  // details.position is a 0-based byte offset into the formula
  const position = typeof action.details.position === 'number' ? action.details.position + 1 : null;
  const limit = typeof action.details.limit === 'number' ? action.details.limit : null;

  return (
    <section className="quick-roll" aria-labelledby={`${inputId}-title`}>
      <h3 id={`${inputId}-title`}>{t('dice.quickRoll')}</h3>
      {closed && <p className="hint">{t(disabledReason)}</p>}
      <form className="input-row" onSubmit={submit}>
        <label htmlFor={inputId} className="visually-hidden">
          {t('dice.formula')}
        </label>
        <input
          id={inputId}
          className="formula-input"
          value={formula}
          maxLength={200}
          autoComplete="off"
          spellCheck="false"
          disabled={closed}
          placeholder={t('dice.formula.placeholder')}
          onChange={(e) => setFormula(e.target.value)}
        />
        <button type="submit" disabled={closed || trimmed === '' || action.busy}>
          <Dices aria-hidden="true" size={18} />
          {t('dice.roll')}
        </button>
      </form>
      <form className="input-row" onSubmit={submitCheck}>
        <label htmlFor={`${inputId}-check`} className="visually-hidden">
          {t('dice.checkPick')}
        </label>
        <select id={`${inputId}-check`} value={check} disabled={closed} onChange={(e) => setCheck(e.target.value)}>
          {[...SKILLS, ...ABILITIES, ...ABILITIES.map((a) => `${a}${SAVE_SUFFIX}`)].map((k) => (
            <option key={k} value={k}>
              {checkName(k, t)}
            </option>
          ))}
        </select>
        <button type="submit" disabled={closed || action.busy}>
          {t('dice.rollCheck')}
        </button>
      </form>
      {attack && (
        <div className="input-row dice-attack" data-testid="dice-attack">
          <label htmlFor={`${inputId}-attack`} className="visually-hidden">
            {t('dice.attackPick')}
          </label>
          <select id={`${inputId}-attack`} value={attack.name} disabled={closed} onChange={(e) => setAttackPick(e.target.value)}>
            {attacks.map((a) => (
              <option key={a.name} value={a.name}>
                {format(t('dice.attackOption'), {
                  attack: a.name,
                  toHit: signed(a.to_hit),
                  damage: `${a.damage} ${damageName(a.damage_type, t)}`,
                })}
              </option>
            ))}
          </select>
          <button type="button" disabled={closed || action.busy} onClick={() => roll({ formula: '', attack: attack.name })}>
            {t('dice.rollToHit')}
          </button>
          <button type="button" disabled={closed || action.busy} onClick={() => roll({ formula: '', attack: attack.name, damage: true })}>
            {t('dice.rollDamage')}
          </button>
        </div>
      )}
      {action.error !== null && (
        <>
          <ErrorNotice code={action.error} />
          {position !== null && <p className="hint">{format(t('dice.error.position'), { n: position })}</p>}
          {limit !== null && <p className="hint">{format(t('dice.error.limit'), { n: limit })}</p>}
        </>
      )}
      <details className="dice-help">
        <summary>{t('dice.help')}</summary>
        <ul>
          {NOTATION.map((n) => (
            <li key={n.ex}>
              <button type="button" className="link-button" onClick={() => setFormula(n.ex)}>
                {n.ex}
              </button>{' '}
              <span className="hint">{t(n.key)}</span>
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
