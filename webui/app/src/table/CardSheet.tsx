import { useRef, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { useAction } from '../useAction';
import { ABILITIES, SKILLS, quickRoll, type CharacterDerived, type RollResultView } from './api';
import { newKey } from './InputBar';
import { checkName, SAVE_SUFFIX, signed } from './labels';

// SheetTotals: a participant's AC, initiative, passive Perception and speed
// on their card, as the server derived them from the stored sheet (the
// same numbers as the character page). A character's numbers are never
// hidden, so every reader sees them.
export function SheetTotals({ derived }: { derived: CharacterDerived }) {
  const { t } = useI18n();
  const stats: { key: string; label: string; value: string }[] = [
    { key: 'ac', label: t('card.stat.ac'), value: String(derived.ac) },
    { key: 'initiative', label: t('card.stat.initiative'), value: signed(derived.initiative) },
    { key: 'passive', label: t('card.stat.passive'), value: String(derived.passive_perception) },
  ];
  if (derived.speed > 0) stats.push({ key: 'speed', label: t('card.stat.speed'), value: format(t('character.speedValue'), { n: derived.speed }) });
  return (
    <dl className="card-totals" data-testid="card-totals">
      {stats.map((s) => (
        <div key={s.key} className="card-stat" data-stat={s.key}>
          <dt>{s.label}</dt>
          <dd>{s.value}</dd>
        </div>
      ))}
    </dl>
  );
}

// SheetRolls: the saves and skills of a card's character as buttons, each
// rolling 1d20 + the modifier the server takes from the stored sheet (a
// quick roll with check). The card's owner rolls for themself; the DM rolls
// for the seat (subject_seat_id). A retry of the same roll reuses its key.
export function SheetRolls({
  sessionId,
  seatId,
  derived,
  asDm,
}: {
  sessionId: number;
  seatId: number;
  derived: CharacterDerived;
  asDm: boolean;
}) {
  const { t } = useI18n();
  const action = useAction();
  const pending = useRef<{ sig: string; key: string } | null>(null);
  const [last, setLast] = useState<{ label: string; r: RollResultView } | null>(null);

  const roll = async (check: string) => {
    const body = { formula: '', check, ...(asDm ? { subject_seat_id: seatId } : {}) };
    const sig = JSON.stringify(body);
    if (pending.current?.sig !== sig) pending.current = { sig, key: newKey() };
    const key = pending.current.key;
    const r = await action.run(() => quickRoll(sessionId, { ...body, idempotency_key: key }));
    if (r) {
      pending.current = null;
      setLast({ label: checkName(check, t), r });
    }
  };

  const button = (check: string, mod: number) => {
    const name = checkName(check, t);
    const label = format(t('card.rollCheck'), { check: name, mod: signed(mod) });
    return (
      <li key={check}>
        <button type="button" className="sheet-roll" aria-label={label} title={label} disabled={action.busy} onClick={() => roll(check)}>
          {name} <strong>{signed(mod)}</strong>
        </button>
      </li>
    );
  };

  return (
    <details className="own-resources card-rolls" data-testid="card-rolls">
      <summary>{t('card.rolls')}</summary>
      <p className="sheet-roll-group">{t('character.saves')}</p>
      <ul className="sheet-roll-list" data-testid="card-saves">
        {ABILITIES.map((a) => button(a + SAVE_SUFFIX, derived.saves[a] ?? 0))}
      </ul>
      <p className="sheet-roll-group">{t('character.skills')}</p>
      <ul className="sheet-roll-list" data-testid="card-skills">
        {SKILLS.map((s) => button(s, derived.skills[s] ?? 0))}
      </ul>
      {last && (
        <p className="hint" role="status" data-testid="card-roll-result">
          {last.label}: <code>{last.r.formula}</code> = <strong>{last.r.total}</strong>
        </p>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </details>
  );
}
