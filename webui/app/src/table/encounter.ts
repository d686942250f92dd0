// Types and calls of a session's fight (the encounter routes), and the
// payloads of the encounter.* events. The shapes are the server's OpenAPI
// document's; the event payload parts the document types loosely are named
// here. The page never computes a hidden number: an NPC's AC and HP show only
// when the server sends them (to the DM, or once revealed).
import type { Schemas } from '../api';
import { apiGet, apiSend } from '../identityApi';
import type { DiceAudit, EventView, HP } from './api';

export type EncounterView = Schemas['EncounterView'];
export type CombatantView = Schemas['CombatantView'];
export type EncounterResult = Schemas['EncounterResult'];
export type StartEncounterInput = Schemas['StartEncounterInput'];
export type NPCInput = Schemas['NPCInput'];
export type AttackInput = Schemas['AttackInput'];
export type CombatantChangeInput = Schemas['CombatantChangeInput'];

// The phases of EncounterView.phase and the statuses of CombatantView.status.
export type EncounterPhase = 'initiative' | 'fighting' | 'ended';
export type CombatantStatus = 'active' | 'dying' | 'stable' | 'dead';

// The changes CombatantChangeInput.op names.
export const COMBATANT_OPS = [
  'damage',
  'heal',
  'set_temp_hp',
  'add_condition',
  'remove_condition',
  'reveal',
  'hide',
  'remove',
] as const;
export type CombatantOp = (typeof COMBATANT_OPS)[number];

export const seatCombatantId = (seatId: number) => `seat:${seatId}`;

const base = (id: number) => `/api/sessions/${id}/encounter`;

export const getEncounter = (id: number, signal?: AbortSignal) => apiGet<Schemas['EncounterNow']>(base(id), signal);
export const startEncounter = (id: number, input: StartEncounterInput) =>
  apiSend<EncounterResult>('POST', base(id), input);
export const addCombatant = (id: number, input: Schemas['AddCombatantInput']) =>
  apiSend<EncounterResult>('POST', `${base(id)}/combatants`, input);
export const rollInitiative = (id: number, combatant_id: string, faces?: number[]) =>
  apiSend<EncounterResult>('POST', `${base(id)}/initiative`, faces && faces.length > 0 ? { combatant_id, faces } : { combatant_id });
export const advanceEncounter = (id: number) => apiSend<EncounterResult>('POST', `${base(id)}/advance`);
export const attack = (id: number, input: AttackInput) => apiSend<EncounterResult>('POST', `${base(id)}/attack`, input);
export const changeCombatant = (id: number, input: CombatantChangeInput) =>
  apiSend<EncounterResult>('POST', `${base(id)}/change`, input);
export const rollDeathSave = (id: number, combatant_id: string, faces?: number[]) =>
  apiSend<EncounterResult>('POST', `${base(id)}/death-save`, faces && faces.length > 0 ? { combatant_id, faces } : { combatant_id });
export const endEncounter = (id: number) => apiSend<EncounterResult>('POST', `${base(id)}/end`);

// ---- event payloads (version 1) ---------------------------------------------

export const isEncounterEvent = (e: EventView) => e.kind.startsWith('encounter.');

export interface DamageRoll {
  type: string;
  critical?: boolean;
  roll: DiceAudit;
  amount: number;
}
export interface DamageResult {
  before: HP;
  after: HP;
  taken: number;
  temp_absorbed: number;
  death_save_failures?: number;
  unconscious?: boolean;
  instant_death?: boolean;
  died?: boolean;
}
export interface AttackPart {
  attacker_id: string;
  target_id: string;
  weapon?: string;
  roll: DiceAudit;
  natural: number;
  total: number;
  hit: boolean;
  critical?: boolean;
  damage?: DamageRoll;
  target_status?: string;
  // the target's AC and the damage's effect, when players may see the target's numbers
  ac?: number;
  result?: DamageResult;
}
export interface Expired {
  combatant_id: string;
  condition: { name: string };
}
export interface TurnChange {
  round: number;
  actor_id: string;
  new_round?: boolean;
  expired: Expired[] | null;
  death_save_due?: boolean;
}
export interface DeathSaveRoll {
  roll: DiceAudit;
  natural: number;
  success: boolean;
  regained?: boolean;
  stable?: boolean;
  died?: boolean;
  after: { successes: number; failures: number; stable?: boolean };
}
export interface InitiativeRoll {
  total: number;
  natural: number;
  roll: DiceAudit;
}
export interface ChangeDetail {
  op: CombatantOp;
  combatant_id: string;
  condition?: string;
  result?: DamageResult;
}
export interface SummaryEntry {
  id: string;
  name: string;
  status: string;
  hits: number;
  misses: number;
  damage_dealt: number;
  damage_taken?: number; // absent for players while an NPC is hidden
}

// EncounterPayload: what the public encounter.* events carry (each field
// only for the kinds that set it).
export interface EncounterPayload {
  version: number;
  encounter_id: number;
  encounter?: EncounterView;
  combatant_id?: string;
  // encounter.changed: joined, initiative, death_save or a CombatantOp
  change?: string;
  change_detail?: ChangeDetail;
  initiative?: InitiativeRoll;
  death_save?: DeathSaveRoll;
  turn?: TurnChange;
  attack?: AttackPart;
  summary?: { rounds: number; combatants: SummaryEntry[] };
}

// SecretPayload: encounter.secret (the DM only): the whole encounter and the
// hidden numbers of the public event of_seq.
export interface SecretPayload {
  version: number;
  encounter_id: number;
  of: string;
  of_seq: number;
  encounter?: EncounterView;
  attack?: { ac: number; result?: DamageResult };
  change?: ChangeDetail;
}

// combatantNames: a combatant's name by id, from an encounter view.
export function combatantNames(v: EncounterView | undefined | null): Map<string, string> {
  return new Map((v?.combatants ?? []).map((c) => [c.id, c.name]));
}
