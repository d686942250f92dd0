// The feed's cards for a fight: the start (who fights, in what order), each
// turn (round, whose turn, the conditions that ended), attacks (attacker →
// target, the d20 and its total, hit or miss, critical, the damage roll and
// what it did), the DM's changes, death saves and the end's summary. An
// encounter.secret (sent to the DM only) is folded into the card of the
// public event it completes (its of_seq): the AC and the hidden hit points,
// marked as the DM's. The page never computes a hidden number.
import type { ReactNode } from 'react';
import { format, type MessageKey } from '../i18n/messages';
import type { EventView } from './api';
import { DiceView } from './Dice';
import {
  combatantNames,
  type ChangeDetail,
  type DamageResult,
  type EncounterPayload,
  type EncounterView,
  type SecretPayload,
} from './encounter';
import { conditionName } from './labels';

type T = (key: MessageKey) => string;

// secretsByEvent: the DM's encounter.secret events by the seq of the public event they complete.
export function secretsByEvent(events: EventView[]): Map<number, SecretPayload> {
  const out = new Map<number, SecretPayload>();
  for (const e of events) {
    if (e.kind !== 'encounter.secret') continue;
    const p = e.payload as unknown as SecretPayload;
    if (typeof p.of_seq === 'number') out.set(p.of_seq, p);
  }
  return out;
}

function hpChange(r: DamageResult, t: T): string {
  return format(t('combat.log.hpChange'), { before: r.before.current, after: r.after.current, max: r.after.max });
}

// DmDetail: what only the DM sees on a card.
function DmDetail({ children, t }: { children: ReactNode; t: T }) {
  return (
    <span className="dm-detail" data-testid="dm-detail">
      <span className="tag">{t('combat.dmOnly')}</span> {children}
    </span>
  );
}

function hiddenStats(v: EncounterView | undefined, t: T): string {
  return (v?.combatants ?? [])
    .filter((c) => c.hidden && c.ac != null && c.hp)
    .map((c) => `${c.name}: ${format(t('combat.ac'), { ac: c.ac! })}, ${format(t('combat.hp'), { current: c.hp!.current, max: c.hp!.max })}`)
    .join('; ');
}

const statusKey = (s: string | undefined): MessageKey | null =>
  s === 'dying' || s === 'stable' || s === 'dead' ? (`combat.status.${s}` as MessageKey) : null;

function changeText(op: string, who: string, detail: ChangeDetail | undefined, t: T): string {
  switch (op) {
    case 'damage':
      return detail?.result
        ? format(t('combat.log.damageN'), { name: who, n: detail.result.taken, hp: hpChange(detail.result, t) })
        : format(t('combat.log.damage'), { name: who });
    case 'heal':
      return format(t('combat.log.heal'), { name: who });
    case 'set_temp_hp':
      return format(t('combat.log.temp'), { name: who });
    case 'add_condition':
      return detail?.condition
        ? format(t('log.conditionAdded'), { name: who, condition: conditionName(detail.condition, t) })
        : format(t('combat.log.conditions'), { name: who });
    case 'remove_condition':
      return detail?.condition
        ? format(t('log.conditionRemoved'), { name: who, condition: conditionName(detail.condition, t) })
        : format(t('combat.log.conditions'), { name: who });
    case 'reveal':
      return format(t('combat.log.reveal'), { name: who });
    case 'hide':
      return format(t('combat.log.hide'), { name: who });
    case 'remove':
      return format(t('combat.log.remove'), { name: who });
    case 'joined':
      return format(t('combat.log.joined'), { name: who });
    default:
      return format(t('combat.log.changed'), { name: who });
  }
}

// encounterCard is the card of an encounter.* event, null for one it folds
// away (a secret shown on its public event's card).
export function encounterCard(
  e: EventView,
  { t, isDM, secrets, shownSeqs }: { t: T; isDM: boolean; secrets: Map<number, SecretPayload>; shownSeqs: Set<number> },
): ReactNode | null {
  if (e.kind === 'encounter.secret') {
    const p = e.payload as unknown as SecretPayload;
    // folded into its public event's card when that is in the feed
    if (!isDM || shownSeqs.has(p.of_seq)) return null;
    const stats = hiddenStats(p.encounter, t);
    return stats ? <DmDetail t={t}>{stats}</DmDetail> : null;
  }
  const p = e.payload as unknown as EncounterPayload;
  const secret = isDM ? secrets.get(e.seq) : undefined;
  const names = combatantNames(secret?.encounter ?? p.encounter);
  const who = (id: string | undefined) => (id ? (names.get(id) ?? id) : t('table.speaker.unknown'));
  switch (e.kind) {
    case 'encounter.started': {
      const v = p.encounter;
      const stats = secret ? hiddenStats(secret.encounter, t) : '';
      return (
        <div className="feed-card encounter-card is-start" data-testid="encounter-card" data-kind="started">
          <div className="roll-head">
            <strong>{format(t('combat.log.started'), { name: v?.name ?? '' })}</strong>
          </div>
          <p className="combatant-list">{(v?.combatants ?? []).map((c) => c.name).join(', ')}</p>
          {stats && <DmDetail t={t}>{stats}</DmDetail>}
        </div>
      );
    }
    case 'encounter.turn': {
      const turn = p.turn;
      const expired = turn?.expired ?? [];
      return (
        <div className="feed-card encounter-card is-turn" data-testid="encounter-card" data-kind="turn">
          <div className="roll-head">
            {turn?.new_round && <span className="tag">{format(t('combat.round'), { n: turn.round })}</span>}
            <strong>{format(t('combat.log.turn'), { n: turn?.round ?? p.encounter?.round ?? 0, name: who(turn?.actor_id ?? p.combatant_id) })}</strong>
            {turn?.death_save_due && <span className="tag">{t('combat.log.deathSaveDue')}</span>}
          </div>
          {expired.length > 0 && (
            <p className="expired" data-testid="expired">
              {expired
                .map((x) => format(t('combat.log.expired'), { condition: conditionName(x.condition.name, t), name: who(x.combatant_id) }))
                .join(' ')}
            </p>
          )}
        </div>
      );
    }
    case 'encounter.attack': {
      const a = p.attack;
      if (!a) return null;
      const result = a.result ?? secret?.attack?.result;
      const status = statusKey(a.target_status);
      const nat = a.natural === 20 ? '20' : a.natural === 1 ? '1' : null;
      return (
        <div
          className={`feed-card encounter-card attack-card ${a.hit ? 'is-hit' : 'is-miss'}${nat ? ` is-nat${nat}` : ''}`}
          data-testid="attack-card"
          data-hit={String(a.hit)}
          data-critical={a.critical ? 'true' : undefined}
        >
          <div className="roll-head">
            <span className="speaker">{who(a.attacker_id)}</span> <span aria-hidden="true">→</span>{' '}
            <span className="speaker">{who(a.target_id)}</span>
            {a.weapon && <span className="roll-what">{a.weapon}</span>}
            {a.ac != null && (
              <span className="tag" data-testid="attack-ac">
                {format(t('combat.ac'), { ac: a.ac })}
              </span>
            )}
            {secret?.attack && <DmDetail t={t}>{format(t('combat.ac'), { ac: secret.attack.ac })}</DmDetail>}
          </div>
          <div className="roll-body">
            <code className="roll-formula">{a.roll?.formula}</code> <DiceView audit={a.roll} /> <span className="roll-eq">=</span>{' '}
            <strong className="roll-total" data-testid="attack-total">
              {a.total}
            </strong>{' '}
            <span className={`outcome ${a.hit ? 'is-pass' : 'is-fail'}`} data-testid="attack-outcome">
              {t(a.hit ? 'combat.hit' : 'combat.miss')}
            </span>
            {a.critical && (
              <span className="outcome is-crit" data-testid="attack-critical">
                {t('combat.critical')}
              </span>
            )}
          </div>
          {a.damage && (
            <div className="roll-body damage-roll" data-testid="attack-damage">
              <span>{t('combat.damage')}</span> <code className="roll-formula">{a.damage.roll?.formula}</code> <DiceView audit={a.damage.roll} />{' '}
              <span className="roll-eq">=</span>{' '}
              <strong className="roll-total" data-testid="damage-amount">
                {a.damage.amount}
              </strong>
              {a.damage.type && <span className="tag">{a.damage.type}</span>}
            </div>
          )}
          {(result || status) && (
            <p className="attack-result">
              {result && (a.result ? <span data-testid="attack-hp">{hpChange(result, t)}</span> : <DmDetail t={t}>{hpChange(result, t)}</DmDetail>)}
              {status && (
                <>
                  {' '}
                  <span className="badge combatant-status">{t(status)}</span>
                </>
              )}
            </p>
          )}
        </div>
      );
    }
    case 'encounter.changed': {
      const name = who(p.combatant_id);
      if (p.change === 'initiative' && p.initiative) {
        return (
          <span data-testid="encounter-line" data-change="initiative">
            {format(t('combat.log.initiative'), { name })} <DiceView audit={p.initiative.roll} /> ={' '}
            <strong className="roll-total">{p.initiative.total}</strong>
          </span>
        );
      }
      if (p.change === 'death_save' && p.death_save) {
        const s = p.death_save;
        let what: MessageKey = s.success ? 'combat.save.success' : 'combat.save.failure';
        if (s.regained) what = 'combat.save.regained';
        else if (s.stable) what = 'combat.save.stable';
        else if (s.died) what = 'combat.save.died';
        return (
          <div className={`feed-card encounter-card death-save ${s.success ? 'is-hit' : 'is-miss'}`} data-testid="death-save-card">
            <div className="roll-head">
              <span className="speaker">{name}</span> <span className="roll-what">{t('combat.deathSave')}</span>
            </div>
            <div className="roll-body">
              <DiceView audit={s.roll} /> <span className={`outcome ${s.success ? 'is-pass' : 'is-fail'}`}>{t(what)}</span>{' '}
              <span className="hint">{format(t('combat.deathSaves'), { ok: s.after.successes, fail: s.after.failures })}</span>
            </div>
          </div>
        );
      }
      const detail = p.change_detail ?? secret?.change;
      const text = changeText(p.change ?? '', name, p.change_detail, t);
      const dmResult = !p.change_detail && secret?.change?.result ? secret.change.result : null;
      return (
        <span data-testid="encounter-line" data-change={p.change}>
          {text}
          {!p.change_detail && detail?.condition && isDM && (
            <>
              {' '}
              <DmDetail t={t}>{conditionName(detail.condition, t)}</DmDetail>
            </>
          )}
          {dmResult && (
            <>
              {' '}
              <DmDetail t={t}>{hpChange(dmResult, t)}</DmDetail>
            </>
          )}
        </span>
      );
    }
    case 'encounter.ended': {
      const s = p.summary;
      return (
        <div className="feed-card encounter-card is-end" data-testid="encounter-summary">
          <div className="roll-head">
            <strong>{format(t('combat.log.ended'), { name: p.encounter?.name ?? '', n: s?.rounds ?? 0 })}</strong>
          </div>
          {s && s.combatants.length > 0 && (
            <table className="summary-table">
              <thead>
                <tr>
                  <th scope="col">{t('combat.summary.who')}</th>
                  <th scope="col">{t('combat.summary.hits')}</th>
                  <th scope="col">{t('combat.summary.misses')}</th>
                  <th scope="col">{t('combat.summary.dealt')}</th>
                  <th scope="col">{t('combat.summary.taken')}</th>
                </tr>
              </thead>
              <tbody>
                {s.combatants.map((c) => {
                  const st = statusKey(c.status);
                  return (
                    <tr key={c.id} data-testid="summary-row">
                      <th scope="row">
                        {c.name}
                        {st && <span className="hint"> ({t(st)})</span>}
                      </th>
                      <td>{c.hits}</td>
                      <td>{c.misses}</td>
                      <td>{c.damage_dealt}</td>
                      <td>{c.damage_taken ?? '—'}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </div>
      );
    }
    default:
      return null;
  }
}

// isEncounterCard: the kinds drawn as a card (the others are log lines).
export function isEncounterCard(e: EventView): boolean {
  if (e.kind === 'encounter.changed') {
    const change = (e.payload as { change?: string }).change;
    return change === 'death_save';
  }
  return e.kind === 'encounter.started' || e.kind === 'encounter.turn' || e.kind === 'encounter.attack' || e.kind === 'encounter.ended';
}
