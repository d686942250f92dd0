import { useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { damageName } from '../pages/SheetLists';
import { ABILITIES, SKILLS, type AttackDerived, type CharacterDerived, type RollResultView } from './api';
import { checkName, SAVE_SUFFIX, signed } from './labels';
import { useQuickRoll, type QuickRollBody } from './useQuickRoll';

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
  const { action, roll, last } = useCardRoll(sessionId);

  const button = (check: string, mod: number) => {
    const name = checkName(check, t);
    const label = format(t('card.rollCheck'), { check: name, mod: signed(mod) });
    const body = { formula: '', check, ...(asDm ? { subject_seat_id: seatId } : {}) };
    return (
      <li key={check}>
        <button type="button" className="sheet-roll" aria-label={label} title={label} disabled={action.busy} onClick={() => roll(body, name)}>
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
      <LastRoll last={last} testId="card-roll-result" />
      {action.error !== null && <ErrorNotice code={action.error} />}
    </details>
  );
}

// CardAttacks: the attacks of a card's character from its sheet (the
// derived sheet the resume carries), each with a to-hit and a damage
// button. The roll names only the attack; the server adds the numbers of
// the stored sheet, so the card shows what the sheet says and the roll adds
// the same. The card's owner rolls for themself; the DM rolls for the seat
// (subject_seat_id), as with the card's checks.
export function CardAttacks({
  sessionId,
  seatId,
  attacks,
  asDm,
}: {
  sessionId: number;
  seatId: number;
  attacks: AttackDerived[];
  asDm: boolean;
}) {
  const { t } = useI18n();
  const { action, roll, last } = useCardRoll(sessionId);
  const forSeat = asDm ? { subject_seat_id: seatId } : {};

  return (
    <details className="own-resources card-attacks">
      <summary>{t('card.attacks')}</summary>
      {attacks.length === 0 && <p className="hint">{t('card.attacks.empty')}</p>}
      {attacks.length > 0 && (
        <ul className="resource-list">
          {attacks.map((a) => {
            const hit = format(t('card.attackOf'), { attack: a.name });
            const dmg = format(t('card.damageOf'), { attack: a.name });
            return (
              <li key={a.name} data-testid="card-attack" data-attack={a.name}>
                <span>{a.name}</span>{' '}
                <button
                  type="button"
                  aria-label={hit}
                  title={hit}
                  disabled={action.busy}
                  onClick={() => roll({ formula: '', attack: a.name, damage: false, ...forSeat }, hit)}
                >
                  {format(t('card.attackRoll'), { toHit: signed(a.to_hit) })}
                </button>{' '}
                <button
                  type="button"
                  aria-label={dmg}
                  title={dmg}
                  disabled={action.busy}
                  onClick={() => roll({ formula: '', attack: a.name, damage: true, ...forSeat }, dmg)}
                >
                  {format(t('card.damageRoll'), { damage: `${a.damage} ${damageName(a.damage_type, t)}` })}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <LastRoll last={last} testId="card-attack-result" />
      {action.error !== null && <ErrorNotice code={action.error} />}
    </details>
  );
}

interface Rolled {
  label: string;
  r: RollResultView;
}

// useCardRoll: a card's quick rolls, keeping the last result with the
// label of the button that rolled it.
function useCardRoll(sessionId: number) {
  const { action, roll: post } = useQuickRoll(sessionId);
  const [last, setLast] = useState<Rolled | null>(null);
  const roll = async (body: QuickRollBody, label: string) => {
    const r = await post(body);
    if (r) setLast({ label, r });
  };
  return { action, roll, last };
}

// LastRoll: the card's last roll, "label: formula = total".
function LastRoll({ last, testId }: { last: Rolled | null; testId: string }) {
  if (!last) return null;
  return (
    <p className="hint" role="status" data-testid={testId}>
      {last.label}: <code>{last.r.formula}</code> = <strong>{last.r.total}</strong>
    </p>
  );
}
