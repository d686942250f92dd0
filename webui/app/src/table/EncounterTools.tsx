// The fight's tools, loaded when they are first shown (Encounter.tsx has
// the panel's frame and the hook): the initiative tracker, the DM's
// controls (start, begin, next turn, attack with anyone, change a
// combatant, end), the player's (roll initiative, attack with their own
// combatant, end their own turn, death saves).
import { Flag, Play, Plus, SkipForward, Sword } from 'lucide-react';
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { useAction } from '../useAction';
import { usePageTitle } from '../usePageTitle';
import { CONDITIONS, type AttackDerived } from './api';
import { HpMeter } from './CharacterState';
import {
  addCombatant,
  advanceEncounter,
  attack,
  changeCombatant,
  COMBATANT_OPS,
  endEncounter,
  rollDeathSave,
  rollInitiative,
  seatCombatantId,
  startEncounter,
  type CombatantOp,
  type CombatantView,
  type EncounterResult,
  type EncounterView,
  type NPCInput,
} from './encounter';
import { conditionName, signed } from './labels';

import { facesOf, type EncounterSeat, type EncounterState } from './Encounter';

type T = (key: MessageKey) => string;

// ---- small parts -------------------------------------------------------------

const isStatus = (s: string) => s === 'dying' || s === 'stable' || s === 'dead';

// conditionText: "Poisoned (2)" for a timed condition, its rounds still to come.
function conditionText(c: CombatantView['conditions'][number], t: T): string {
  const name = conditionName(c.name, t);
  return c.rounds ? format(t('combat.condition.rounds'), { condition: name, n: c.rounds }) : name;
}

function CombatantRow({
  c,
  isDM,
  mine,
  t,
  children,
}: {
  c: CombatantView;
  isDM: boolean;
  mine: boolean;
  t: T;
  // what the reader does on this row (their attack, on their turn)
  children?: ReactNode;
}) {
  const hp = c.hp;
  const row = useRef<HTMLLIElement>(null);
  // The turn in play stays in view as the order scrolls past it.
  useEffect(() => {
    if (c.current) row.current?.scrollIntoView?.({ block: 'nearest' });
  }, [c.current]);
  return (
    <li
      ref={row}
      className={`combatant${c.current ? ' is-current' : ''}${mine ? ' is-mine' : ''} status-${c.status}`}
      data-testid="combatant"
      data-id={c.id}
      data-current={c.current ? 'true' : 'false'}
      aria-current={c.current ? 'true' : undefined}
    >
      <span className="combatant-init" data-testid="combatant-initiative" title={t('combat.initiative')}>
        {c.initiative ?? '—'}
      </span>
      <span className="combatant-main">
        <span className="combatant-name" data-testid="combatant-name">
          {c.name}
          {mine && <span className="hint"> {t('common.you')}</span>}
        </span>
        {c.current && <span className="badge turn-badge">{t('combat.turnNow')}</span>}
        {isStatus(c.status) && (
          <span className={`badge combatant-status is-${c.status}`} data-testid="combatant-status">
            {t(`combat.status.${c.status}` as MessageKey)}
          </span>
        )}
        {isDM && c.hidden && <span className="tag">{t('combat.hidden')}</span>}
        <span className="combatant-facts">
          {hp && (
            <span data-testid="combatant-hp">
              {format(t('combat.hp'), { current: hp.current, max: hp.max })}
              {hp.temp > 0 && ` ${format(t('card.tempHp'), { n: hp.temp })}`}
            </span>
          )}
          {hp && <HpMeter hp={hp} label={format(t('combat.hpOf'), { name: c.name })} />}
          {c.ac != null && <span data-testid="combatant-ac">{format(t('combat.ac'), { ac: c.ac })}</span>}
          {c.status === 'dying' && c.death_saves && (
            <span data-testid="combatant-saves">
              {format(t('combat.deathSaves'), { ok: c.death_saves.successes, fail: c.death_saves.failures })}
            </span>
          )}
        </span>
        {c.conditions.length > 0 && (
          <span className="combatant-conditions">
            {c.conditions.map((x) => (
              <span key={x.name} className="tag" data-testid="combatant-condition">
                {conditionText(x, t)}
              </span>
            ))}
          </span>
        )}
        {children && <div className="combatant-act">{children}</div>}
      </span>
    </li>
  );
}

// InitiativeEntry: roll a combatant's initiative with the server's dice, or
// enter the physical d20.
function InitiativeEntry({
  sessionId,
  c,
  onResult,
  label,
}: {
  sessionId: number;
  c: CombatantView;
  onResult: (r: EncounterResult) => void;
  label: string;
}) {
  const { t } = useI18n();
  const action = useAction();
  const [face, setFace] = useState('');
  const id = useId();
  // one d20, or two with advantage or disadvantage ("15 8")
  const faces = facesOf(face);
  const faceOk = faces !== null && faces.length >= 1 && faces.length <= 2 && faces.every((n) => n <= 20);
  const roll = async (faces?: number[]) => {
    const r = await action.run(() => rollInitiative(sessionId, c.id, faces));
    if (r) {
      setFace('');
      onResult(r);
    }
  };
  return (
    <div className="initiative-entry" data-testid="initiative-entry" data-id={c.id}>
      <form
        className="inline-form"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (faceOk && faces) void roll(faces);
        }}
      >
        <span>{label}</span>
        <button type="button" disabled={action.busy} onClick={() => roll()}>
          {t('combat.initiative.roll')}
        </button>
        <label htmlFor={id}>{t('combat.initiative.face')}</label>
        <input id={id} className="face-input" inputMode="numeric" value={face} onChange={(e) => setFace(e.target.value)} />
        <button type="submit" disabled={action.busy || !faceOk}>
          {t('combat.initiative.enter')}
        </button>
      </form>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </div>
  );
}

// ---- the panel ---------------------------------------------------------------

// EncounterTracker: the running fight in the panel: the order, the
// initiative still to enter, the DM's controls.
export function EncounterTracker({
  sessionId,
  state,
  isDM,
  mySeatId,
  canAct,
  seats,
  myAttacks,
}: {
  sessionId: number;
  state: EncounterState & { view: EncounterView };
  isDM: boolean;
  mySeatId: number | null;
  canAct: boolean;
  seats: EncounterSeat[];
  myAttacks: AttackDerived[];
}) {
  const { t } = useI18n();
  const { view } = state;
  const onResult = state.apply;
  const mine = mySeatId != null && !isDM ? seatCombatantId(mySeatId) : null;
  return (
    <>
      <ol className="initiative-order" data-testid="initiative-order" aria-label={t('combat.order')}>
        {view.combatants.map((c) => (
          <CombatantRow key={c.id} c={c} isDM={isDM} mine={c.id === mine} t={t}>
            {/* A player attacks on their own turn, from their own row (the server says not_your_turn otherwise). */}
            {canAct && !isDM && c.id === mine && view.phase === 'fighting' && view.current_id === mine && (
              <PlayerAttack sessionId={sessionId} view={view} attackerId={mine} attacks={myAttacks} onResult={onResult} />
            )}
          </CombatantRow>
        ))}
      </ol>
      {isDM && canAct && view.phase === 'initiative' && (
        <div className="initiative-entries">
          {view.combatants
            .filter((c) => c.initiative == null)
            .map((c) => (
              <InitiativeEntry key={c.id} sessionId={sessionId} c={c} onResult={onResult} label={c.name} />
            ))}
        </div>
      )}
      {canAct && isDM && <DmControls sessionId={sessionId} view={view} seats={seats} onResult={onResult} />}
    </>
  );
}

// StartForm: the DM chooses the seats that fight and adds NPCs (hidden by default).
interface NpcDraft {
  name: string;
  ac: string;
  hp: string;
  bonus: string;
  initiative: string;
  revealed: boolean;
}
const emptyNpc = (): NpcDraft => ({ name: '', ac: '', hp: '', bonus: '', initiative: '', revealed: false });
const int = (s: string) => (s.trim() === '' ? NaN : Number(s));
const npcOk = (n: NpcDraft) =>
  n.name.trim() !== '' &&
  Number.isInteger(int(n.ac)) &&
  Number.isInteger(int(n.hp)) &&
  int(n.hp) >= 1 &&
  (n.bonus.trim() === '' || Number.isInteger(int(n.bonus))) &&
  (n.initiative.trim() === '' || Number.isInteger(int(n.initiative)));
const npcInput = (n: NpcDraft): NPCInput => ({
  name: n.name.trim(),
  ac: int(n.ac),
  hp: int(n.hp),
  ...(n.bonus.trim() !== '' ? { initiative_bonus: int(n.bonus) } : {}),
  ...(n.initiative.trim() !== '' ? { initiative: int(n.initiative) } : {}),
  ...(n.revealed ? { revealed: true } : {}),
});

// NpcFields: an NPC's name, AC, HP, initiative bonus, initiative (rolled when empty) and whether players see its numbers.
function NpcFields({ n, set, idBase }: { n: NpcDraft; set: (patch: Partial<NpcDraft>) => void; idBase: string }) {
  const { t } = useI18n();
  return (
    <>
      <span className="npc-field npc-name">
        <label htmlFor={`${idBase}-name`}>{t('combat.npc.name')}</label>
        <input id={`${idBase}-name`} value={n.name} maxLength={80} onChange={(e) => set({ name: e.target.value })} />
      </span>
      <span className="npc-field">
        <label htmlFor={`${idBase}-ac`}>{t('combat.npc.ac')}</label>
        <input id={`${idBase}-ac`} className="num-input" type="number" min={0} max={100} value={n.ac} onChange={(e) => set({ ac: e.target.value })} />
      </span>
      <span className="npc-field">
        <label htmlFor={`${idBase}-hp`}>{t('combat.npc.hp')}</label>
        <input id={`${idBase}-hp`} className="num-input" type="number" min={1} max={9999} value={n.hp} onChange={(e) => set({ hp: e.target.value })} />
      </span>
      <span className="npc-field">
        <label htmlFor={`${idBase}-bonus`}>{t('combat.npc.bonus')}</label>
        <input id={`${idBase}-bonus`} className="num-input" type="number" min={-100} max={100} value={n.bonus} onChange={(e) => set({ bonus: e.target.value })} />
      </span>
      <span className="npc-field">
        <label htmlFor={`${idBase}-init`}>{t('combat.npc.initiative')}</label>
        <input
          id={`${idBase}-init`}
          className="num-input"
          type="number"
          placeholder={t('combat.npc.initiativeAuto')}
          value={n.initiative}
          onChange={(e) => set({ initiative: e.target.value })}
        />
      </span>
      <label className="check-line npc-reveal">
        <input type="checkbox" checked={n.revealed} onChange={(e) => set({ revealed: e.target.checked })} /> {t('combat.npc.revealed')}
      </label>
    </>
  );
}

// (Encounter.tsx shows the button that opens it; onClose closes it.)
export function StartForm({
  sessionId,
  seats,
  onResult,
  onClose,
}: {
  sessionId: number;
  seats: EncounterSeat[];
  onResult: (r: EncounterResult) => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const fighters = seats.filter((s) => s.fights);
  const [chosen, setChosen] = useState<Set<number>>(() => new Set(fighters.map((s) => s.seatId)));
  const [npcs, setNpcs] = useState<NpcDraft[]>([]);
  const action = useAction();
  const nameId = useId();
  const idBase = useId();
  const ok = (chosen.size > 0 || npcs.length > 0) && npcs.every(npcOk);
  const setNpc = (i: number, patch: Partial<NpcDraft>) => setNpcs((cur) => cur.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!ok) return;
    const input = npcs.map(npcInput);
    const seatIds = fighters.filter((s) => chosen.has(s.seatId)).map((s) => s.seatId);
    const r = await action.run(() => startEncounter(sessionId, { name: name.trim(), seat_ids: seatIds, npcs: input }));
    if (r) {
      onClose();
      onResult(r);
    }
  };
  return (
    <form className="encounter-start" onSubmit={submit} data-testid="encounter-start">
      <p className="inline-form">
        <label htmlFor={nameId}>{t('combat.start.name')}</label>
        <input id={nameId} value={name} maxLength={80} placeholder={t('combat.start.namePlaceholder')} onChange={(e) => setName(e.target.value)} />
      </p>
      <fieldset>
        <legend>{t('combat.start.seats')}</legend>
        {fighters.length === 0 && <p className="hint">{t('combat.start.noSeats')}</p>}
        {fighters.map((s) => (
          <label key={s.seatId} className="check-line">
            <input
              type="checkbox"
              checked={chosen.has(s.seatId)}
              onChange={(e) =>
                setChosen((cur) => {
                  const next = new Set(cur);
                  if (e.target.checked) next.add(s.seatId);
                  else next.delete(s.seatId);
                  return next;
                })
              }
            />{' '}
            {s.name}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>{t('combat.start.npcs')}</legend>
        {npcs.map((n, i) => (
          <div key={i} className="npc-row" data-testid="npc-row">
            <NpcFields n={n} set={(patch) => setNpc(i, patch)} idBase={`${idBase}-${i}`} />
            <button type="button" onClick={() => setNpcs((cur) => cur.filter((_, j) => j !== i))}>
              {t('common.remove')}
            </button>
          </div>
        ))}
        <button type="button" onClick={() => setNpcs((cur) => [...cur, emptyNpc()])}>
          <Plus aria-hidden="true" size={18} />
          {t('combat.npc.add')}
        </button>
        <p className="hint">{t('combat.npc.hint')}</p>
      </fieldset>
      <p className="inline-form">
        <button type="submit" className="primary" disabled={!ok || action.busy}>
          {t('combat.start')}
        </button>
        <button type="button" onClick={onClose}>
          {t('common.cancel')}
        </button>
      </p>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </form>
  );
}

// DmControls: begin / next turn, end, attack with anyone, change a combatant, add one.
type DmTool = 'attack' | 'change' | 'add';
function DmControls({
  sessionId,
  view,
  seats,
  onResult,
}: {
  sessionId: number;
  view: EncounterView;
  seats: EncounterSeat[];
  onResult: (r: EncounterResult) => void;
}) {
  const { t } = useI18n();
  const action = useAction();
  const [tool, setTool] = useState<DmTool | null>(null);
  const run = async (fn: () => Promise<EncounterResult>) => {
    const r = await action.run(fn);
    if (r) onResult(r);
  };
  const toggle = (x: DmTool) => setTool((cur) => (cur === x ? null : x));
  return (
    <div className="encounter-controls" data-testid="encounter-dm">
      <div className="inline-form">
        <button type="button" className="primary" disabled={action.busy} onClick={() => run(() => advanceEncounter(sessionId))}>
          {view.phase === 'initiative' ? <Play aria-hidden="true" size={18} /> : <SkipForward aria-hidden="true" size={18} />}
          {t(view.phase === 'initiative' ? 'combat.begin' : 'combat.next')}
        </button>
        {view.phase === 'fighting' && (
          <button type="button" aria-expanded={tool === 'attack'} onClick={() => toggle('attack')}>
            <Sword aria-hidden="true" size={18} />
            {t('combat.attack')}
          </button>
        )}
        <button type="button" aria-expanded={tool === 'change'} onClick={() => toggle('change')}>
          {t('combat.change')}
        </button>
        <button type="button" aria-expanded={tool === 'add'} onClick={() => toggle('add')}>
          {t('combat.add')}
        </button>
        <ConfirmButton
          testId="encounter-end"
          question={t('combat.end.confirm')}
          yes={t('combat.end.yes')}
          disabled={action.busy}
          onConfirm={() => run(() => endEncounter(sessionId))}
        >
          <Flag aria-hidden="true" size={18} />
          {t('combat.end')}
        </ConfirmButton>
      </div>
      {action.error !== null && <ErrorNotice code={action.error} />}
      {tool === 'attack' && view.phase === 'fighting' && (
        <AttackForm sessionId={sessionId} view={view} attackerId={null} onResult={onResult} />
      )}
      {tool === 'change' && <ChangeForm sessionId={sessionId} view={view} onResult={onResult} />}
      {tool === 'add' && <AddForm sessionId={sessionId} view={view} seats={seats} onResult={onResult} />}
    </div>
  );
}

// AddForm: a seat not yet in the fight, or a new NPC (hidden unless told), joins it.
function AddForm({
  sessionId,
  view,
  seats,
  onResult,
}: {
  sessionId: number;
  view: EncounterView;
  seats: EncounterSeat[];
  onResult: (r: EncounterResult) => void;
}) {
  const { t } = useI18n();
  const inFight = new Set(view.combatants.map((c) => c.seat_id));
  const free = seats.filter((s) => s.fights && !inFight.has(s.seatId));
  const [seat, setSeat] = useState('');
  const [npc, setNpc] = useState<NpcDraft>(emptyNpc);
  const action = useAction();
  const id = useId();
  const asNpc = seat === '';
  const ok = asNpc ? npcOk(npc) : free.some((s) => String(s.seatId) === seat);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!ok) return;
    const r = await action.run(() => addCombatant(sessionId, asNpc ? { npc: npcInput(npc) } : { seat_id: Number(seat) }));
    if (r) {
      setSeat('');
      setNpc(emptyNpc());
      onResult(r);
    }
  };
  return (
    <form className="add-form" onSubmit={submit} data-testid="add-form" aria-label={t('combat.add')}>
      {free.length > 0 && (
        <p className="inline-form">
          <label htmlFor={`${id}-seat`}>{t('combat.add.seat')}</label>
          <select id={`${id}-seat`} value={seat} onChange={(e) => setSeat(e.target.value)}>
            <option value="">{t('combat.add.npc')}</option>
            {free.map((s) => (
              <option key={s.seatId} value={String(s.seatId)}>
                {s.name}
              </option>
            ))}
          </select>
        </p>
      )}
      {asNpc && (
        <div className="npc-row">
          <NpcFields n={npc} set={(patch) => setNpc((cur) => ({ ...cur, ...patch }))} idBase={id} />
        </div>
      )}
      <p className="inline-form">
        <button type="submit" className="primary" disabled={!ok || action.busy}>
          {t('combat.add.submit')}
        </button>
      </p>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </form>
  );
}

// PlayerAttack: the player's Attack button and, open, the attack form with their sheet's attacks.
function PlayerAttack({
  sessionId,
  view,
  attackerId,
  attacks,
  onResult,
}: {
  sessionId: number;
  view: EncounterView;
  attackerId: string;
  attacks: AttackDerived[];
  onResult: (r: EncounterResult) => void;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  return (
    <div className="encounter-controls" data-testid="encounter-player">
      <div className="inline-form">
        <button type="button" aria-expanded={open} onClick={() => setOpen((x) => !x)}>
          <Sword aria-hidden="true" size={18} />
          {t('combat.attack')}
        </button>
      </div>
      {open && <AttackForm sessionId={sessionId} view={view} attackerId={attackerId} sheet={attacks} onResult={onResult} />}
    </div>
  );
}

// AttackForm: an attack roll against a target. attackerId null: the DM picks
// any attacker (the current actor first); else the player's own combatant.
function AttackForm({
  sessionId,
  view,
  attackerId,
  sheet = [],
  onResult,
}: {
  sessionId: number;
  view: EncounterView;
  attackerId: string | null;
  // the attacker's sheet attacks (to-hit and damage derived on the server), offered to pick
  sheet?: AttackDerived[];
  onResult: (r: EncounterResult) => void;
}) {
  const { t } = useI18n();
  const [fromSheet, setFromSheet] = useState('');
  const chosen = sheet.find((a) => a.name === fromSheet);
  const alive = view.combatants.filter((c) => c.status !== 'dead');
  const [attacker, setAttacker] = useState(attackerId ?? view.current_id ?? '');
  const [target, setTarget] = useState('');
  const [weapon, setWeapon] = useState('');
  const [bonus, setBonus] = useState('');
  const [damage, setDamage] = useState('');
  const [type, setType] = useState('');
  const [mode, setMode] = useState<'normal' | 'advantage' | 'disadvantage'>('normal');
  const [d20, setD20] = useState('');
  const [dmgFaces, setDmgFaces] = useState('');
  const action = useAction();
  const id = useId();
  const from = attackerId ?? attacker;
  const bonusN = bonus.trim() === '' ? 0 : Number(bonus);
  const d20Faces = d20.trim() === '' ? [] : facesOf(d20);
  const damageFaces = dmgFaces.trim() === '' ? [] : facesOf(dmgFaces);
  // a seat's weapon may name a sheet attack: the server then takes the sheet's numbers
  const seatAttacker = from.startsWith('seat:');
  const ok =
    from !== '' &&
    target !== '' &&
    target !== from &&
    (chosen != null || (Number.isInteger(bonusN) && (damage.trim() !== '' || (seatAttacker && weapon.trim() !== '')))) &&
    d20Faces !== null &&
    damageFaces !== null;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!ok) return;
    const r = await action.run(() =>
      attack(sessionId, {
        attacker_id: from,
        target_id: target,
        ...(chosen
          ? { weapon: chosen.name }
          : { weapon: weapon.trim(), bonus: bonusN, damage: damage.trim(), damage_type: type.trim() }),
        advantage: mode === 'advantage',
        disadvantage: mode === 'disadvantage',
        ...(d20Faces && d20Faces.length > 0 ? { faces: d20Faces } : {}),
        ...(damageFaces && damageFaces.length > 0 ? { damage_faces: damageFaces } : {}),
      }),
    );
    if (r) {
      setD20('');
      setDmgFaces('');
      onResult(r);
    }
  };
  return (
    <form className="attack-form" onSubmit={submit} data-testid="attack-form" aria-label={t('combat.attack')}>
      <div className="form-grid">
        {attackerId === null && (
          <>
            <label htmlFor={`${id}-from`}>{t('combat.attack.attacker')}</label>
            <select id={`${id}-from`} value={attacker} onChange={(e) => setAttacker(e.target.value)}>
              <option value="">{t('combat.choose')}</option>
              {alive.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </>
        )}
        <label htmlFor={`${id}-target`}>{t('combat.attack.target')}</label>
        <select id={`${id}-target`} value={target} onChange={(e) => setTarget(e.target.value)}>
          <option value="">{t('combat.choose')}</option>
          {alive
            .filter((c) => c.id !== from)
            .map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
        </select>
        {sheet.length > 0 && (
          <>
            <label htmlFor={`${id}-sheet`}>{t('combat.attack.fromSheet')}</label>
            <select id={`${id}-sheet`} value={fromSheet} onChange={(e) => setFromSheet(e.target.value)}>
              <option value="">{t('combat.attack.byHand')}</option>
              {sheet.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name}
                </option>
              ))}
            </select>
          </>
        )}
        {chosen ? (
          <p className="hint sheet-attack" data-testid="sheet-attack">
            {format(t('combat.attack.sheet'), {
              toHit: signed(chosen.to_hit),
              damage: chosen.damage,
              type: chosen.damage_type,
            })}
          </p>
        ) : (
          <>
            <label htmlFor={`${id}-weapon`}>{t('combat.attack.weapon')}</label>
            <input id={`${id}-weapon`} value={weapon} maxLength={80} onChange={(e) => setWeapon(e.target.value)} />
            <label htmlFor={`${id}-bonus`}>{t('combat.attack.bonus')}</label>
            <input id={`${id}-bonus`} className="num-input" type="number" min={-50} max={50} value={bonus} onChange={(e) => setBonus(e.target.value)} />
            <label htmlFor={`${id}-damage`}>{t('combat.attack.damage')}</label>
            <input id={`${id}-damage`} value={damage} placeholder="1d8+3" maxLength={100} onChange={(e) => setDamage(e.target.value)} />
            <label htmlFor={`${id}-type`}>{t('combat.attack.type')}</label>
            <input id={`${id}-type`} value={type} maxLength={40} placeholder={t('combat.attack.typePlaceholder')} onChange={(e) => setType(e.target.value)} />
          </>
        )}
        <label htmlFor={`${id}-mode`}>{t('combat.attack.mode')}</label>
        <select id={`${id}-mode`} value={mode} onChange={(e) => setMode(e.target.value as typeof mode)}>
          <option value="normal">{t('check.mode.normal')}</option>
          <option value="advantage">{t('check.mode.advantage')}</option>
          <option value="disadvantage">{t('check.mode.disadvantage')}</option>
        </select>
        <label htmlFor={`${id}-d20`}>{t('combat.attack.d20')}</label>
        <input id={`${id}-d20`} value={d20} inputMode="numeric" placeholder={t('combat.attack.serverRolls')} onChange={(e) => setD20(e.target.value)} />
        <label htmlFor={`${id}-dmgfaces`}>{t('combat.attack.damageFaces')}</label>
        <input
          id={`${id}-dmgfaces`}
          value={dmgFaces}
          inputMode="numeric"
          placeholder={t('combat.attack.serverRolls')}
          onChange={(e) => setDmgFaces(e.target.value)}
        />
      </div>
      <p className="inline-form">
        <button type="submit" className="primary" disabled={!ok || action.busy}>
          {t('combat.attack.roll')}
        </button>
      </p>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </form>
  );
}

const OP_LABEL: Record<CombatantOp, MessageKey> = {
  damage: 'card.damage',
  heal: 'card.heal',
  set_temp_hp: 'card.setTemp',
  add_condition: 'combat.op.addCondition',
  remove_condition: 'combat.op.removeCondition',
  reveal: 'combat.op.reveal',
  hide: 'combat.op.hide',
  remove: 'combat.op.remove',
};

// ChangeForm: the DM's change to one combatant.
function ChangeForm({ sessionId, view, onResult }: { sessionId: number; view: EncounterView; onResult: (r: EncounterResult) => void }) {
  const { t } = useI18n();
  const [who, setWho] = useState('');
  const [op, setOp] = useState<CombatantOp>('damage');
  const [amount, setAmount] = useState('');
  const [type, setType] = useState('');
  const [condition, setCondition] = useState('');
  const [rounds, setRounds] = useState('');
  const [ends, setEnds] = useState<'end_of_turn' | 'start_of_turn'>('end_of_turn');
  const action = useAction();
  const id = useId();
  const c = view.combatants.find((x) => x.id === who);
  const ops = COMBATANT_OPS.filter((o) => (o === 'reveal' || o === 'hide' ? c != null && c.seat_id == null : true));
  const needsAmount = op === 'damage' || op === 'heal' || op === 'set_temp_hp';
  const amountN = Number(amount);
  const amountOk = !needsAmount || (amount.trim() !== '' && Number.isInteger(amountN) && amountN >= 1);
  const roundsN = rounds.trim() === '' ? 0 : Number(rounds);
  const conditionOk = (op !== 'add_condition' && op !== 'remove_condition') || condition !== '';
  const ok = c != null && ops.includes(op) && amountOk && conditionOk && Number.isInteger(roundsN) && roundsN >= 0;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!ok) return;
    const r = await action.run(() =>
      changeCombatant(sessionId, {
        combatant_id: who,
        op,
        ...(needsAmount ? { amount: amountN } : {}),
        ...(op === 'damage' && type.trim() !== '' ? { damage_type: type.trim() } : {}),
        ...(op === 'add_condition' || op === 'remove_condition' ? { condition } : {}),
        ...(op === 'add_condition' && roundsN > 0 ? { rounds: roundsN, ends } : {}),
      }),
    );
    if (r) {
      setAmount('');
      setCondition('');
      setRounds('');
      onResult(r);
    }
  };
  const present = c?.conditions.map((x) => x.name) ?? [];
  const choices = op === 'remove_condition' ? present : CONDITIONS.filter((x) => !present.includes(x));
  return (
    <form className="change-form" onSubmit={submit} data-testid="change-form" aria-label={t('combat.change')}>
      <div className="form-grid">
        <label htmlFor={`${id}-who`}>{t('combat.change.who')}</label>
        <select id={`${id}-who`} value={who} onChange={(e) => setWho(e.target.value)}>
          <option value="">{t('combat.choose')}</option>
          {view.combatants.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-op`}>{t('combat.change.op')}</label>
        <select id={`${id}-op`} value={op} onChange={(e) => setOp(e.target.value as CombatantOp)}>
          {ops.map((o) => (
            <option key={o} value={o}>
              {t(OP_LABEL[o])}
            </option>
          ))}
        </select>
        {needsAmount && (
          <>
            <label htmlFor={`${id}-amount`}>{t('card.amount')}</label>
            <input id={`${id}-amount`} className="num-input" type="number" min={1} max={9999} value={amount} onChange={(e) => setAmount(e.target.value)} />
          </>
        )}
        {op === 'damage' && (
          <>
            <label htmlFor={`${id}-type`}>{t('combat.attack.type')}</label>
            <input id={`${id}-type`} value={type} maxLength={40} onChange={(e) => setType(e.target.value)} />
          </>
        )}
        {(op === 'add_condition' || op === 'remove_condition') && (
          <>
            <label htmlFor={`${id}-cond`}>{t('combat.change.condition')}</label>
            <select id={`${id}-cond`} value={condition} onChange={(e) => setCondition(e.target.value)}>
              <option value="">{t('card.chooseCondition')}</option>
              {choices.map((x) => (
                <option key={x} value={x}>
                  {conditionName(x, t)}
                </option>
              ))}
            </select>
          </>
        )}
        {op === 'add_condition' && (
          <>
            <label htmlFor={`${id}-rounds`}>{t('combat.change.rounds')}</label>
            <input
              id={`${id}-rounds`}
              className="num-input"
              type="number"
              min={0}
              max={100}
              placeholder={t('combat.change.untilRemoved')}
              value={rounds}
              onChange={(e) => setRounds(e.target.value)}
            />
            <label htmlFor={`${id}-ends`}>{t('combat.change.ends')}</label>
            <select id={`${id}-ends`} value={ends} onChange={(e) => setEnds(e.target.value as typeof ends)}>
              <option value="end_of_turn">{t('combat.ends.end')}</option>
              <option value="start_of_turn">{t('combat.ends.start')}</option>
            </select>
          </>
        )}
      </div>
      <p className="inline-form">
        <button type="submit" className="primary" disabled={!ok || action.busy}>
          {t('combat.change.apply')}
        </button>
      </p>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </form>
  );
}

// ---- what is asked of the player now ---------------------------------------

function TurnTitle({ name }: { name: string }) {
  usePageTitle('combat.title.yourTurn', name);
  return null;
}

// NpcTurn: the DM's notice of an NPC's turn, with Next turn.
export function NpcTurn({
  sessionId,
  state,
  view,
  npc,
  canAct,
}: {
  sessionId: number;
  state: EncounterState;
  view: EncounterView;
  npc: CombatantView;
  canAct: boolean;
}) {
  const { t } = useI18n();
  const action = useAction();
  const run = async (fn: () => Promise<EncounterResult>) => {
    const r = await action.run(fn);
    if (r) state.apply(r);
  };
  return (
    <section className="encounter-prompt is-npc-turn" data-testid="npc-turn" aria-label={t('combat.title')}>
      <p className="turn-notice" role="status">
        <strong>{format(t('combat.prompt.npcTurn'), { name: npc.name, n: view.round })}</strong>
      </p>
      {canAct && (
        <div className="inline-form">
          <button type="button" className="primary" disabled={action.busy} onClick={() => run(() => advanceEncounter(sessionId))}>
            <SkipForward aria-hidden="true" size={18} />
            {t('combat.next')}
          </button>
        </div>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </section>
  );
}

// PlayerPrompt: a player's notice: roll initiative, "Your turn" with End
// my turn (it names the page's title too), a death save when dying.
export function PlayerPrompt({
  sessionId,
  state,
  view,
  me,
  canAct,
  campaign,
}: {
  sessionId: number;
  state: EncounterState;
  view: EncounterView;
  me: CombatantView;
  canAct: boolean;
  campaign: string;
}) {
  const { t } = useI18n();
  const action = useAction();
  const myTurn = view.phase === 'fighting' && me.current === true;
  const rollFirst = view.phase === 'initiative' && me.initiative == null;
  const dying = me.status === 'dying';
  const run = async (fn: () => Promise<EncounterResult>) => {
    const r = await action.run(fn);
    if (r) state.apply(r);
  };
  return (
    <section className={`encounter-prompt${myTurn ? ' is-my-turn' : ''}`} data-testid="encounter-prompt" aria-label={t('combat.title')}>
      {myTurn && <TurnTitle name={campaign} />}
      {myTurn && (
        <p className="turn-notice" data-testid="turn-notice">
          <strong>{format(t('combat.prompt.yourTurn'), { n: view.round })}</strong>
        </p>
      )}
      {dying && <p className="turn-notice">{t('combat.prompt.dying')}</p>}
      {rollFirst && canAct && <InitiativeEntry sessionId={sessionId} c={me} onResult={state.apply} label={t('combat.prompt.initiative')} />}
      {canAct && (myTurn || dying) && (
        <div className="inline-form">
          {dying && (
            <button type="button" disabled={action.busy} onClick={() => run(() => rollDeathSave(sessionId, me.id))}>
              {t('combat.deathSave')}
            </button>
          )}
          {myTurn && (
            <button type="button" className="primary" disabled={action.busy} onClick={() => run(() => advanceEncounter(sessionId))}>
              <SkipForward aria-hidden="true" size={18} />
              {t('combat.endTurn')}
            </button>
          )}
        </div>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </section>
  );
}
