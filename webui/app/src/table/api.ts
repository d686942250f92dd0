// Types and calls of the table API (rooms, campaigns, seats, characters,
// sessions, the live table). Shapes follow the server contract one to one.
// Every call here is an identity route (see ../identityApi.ts).
import { apiGet, apiSend, apiUpload } from '../identityApi';

export type Authority = 'owner' | 'dm' | 'member';
export type AccessStatus = 'active' | 'revoked';

export interface User {
  id: number;
  display_name: string;
}

export interface Access {
  id: number;
  authority: Authority;
  status: AccessStatus;
}

export interface Member {
  access_id: number;
  user_id: number;
  display_name: string;
  authority: Authority;
  status: AccessStatus;
  joined_at: string;
}

export interface CharacterRef {
  id: number;
  name: string;
  level: number;
}

export type SeatRole = 'dm' | 'player';
export type ControllerKind = 'none' | 'human' | 'ai';

export interface Seat {
  id: number;
  campaign_id: number;
  role: SeatRole;
  label: string;
  controller_kind: ControllerKind;
  controller_access_id: number | null;
  controller_display_name: string | null;
  controller_epoch: number;
  character: CharacterRef | null;
  // when the AI controlling the seat last called (presence); null = never
  ai_last_seen_at?: string | null;
}

export type SessionStatus = 'lobby' | 'active' | 'ended' | 'abandoned';
export type CampaignStatus = 'active' | 'completed' | 'archived';

export interface OpenSession {
  id: number;
  status: 'lobby' | 'active';
}

export interface Campaign {
  id: number;
  name: string;
  status: CampaignStatus;
  open_session: OpenSession | null;
  seats: Seat[];
}

export interface RoomView {
  id: number;
  name: string;
  owner_user_id: number;
  allow_self_claim: boolean;
  active_campaign_id: number | null;
  invite_code?: string;
  my_access: Access;
  members: Member[];
  campaigns: Campaign[];
}

export interface RoomSummary {
  id: number;
  name: string;
  my_access: Access;
}

export const ABILITIES = ['str', 'dex', 'con', 'int', 'wis', 'cha'] as const;
export type Ability = (typeof ABILITIES)[number];
export type Abilities = Record<Ability, number>;

export const SKILLS = [
  'acrobatics',
  'animal_handling',
  'arcana',
  'athletics',
  'deception',
  'history',
  'insight',
  'intimidation',
  'investigation',
  'medicine',
  'nature',
  'perception',
  'performance',
  'persuasion',
  'religion',
  'sleight_of_hand',
  'stealth',
  'survival',
] as const;
export type Skill = (typeof SKILLS)[number];

export const CONDITIONS = [
  'blinded',
  'charmed',
  'deafened',
  'exhaustion',
  'frightened',
  'grappled',
  'incapacitated',
  'invisible',
  'paralyzed',
  'petrified',
  'poisoned',
  'prone',
  'restrained',
  'stunned',
  'unconscious',
] as const;
export type Condition = (typeof CONDITIONS)[number];

export interface HP {
  max: number;
  current: number;
  temp: number;
}

export interface Resource {
  name: string;
  current: number;
  max: number;
}

export interface CharacterInput {
  name: string;
  level: number;
  abilities: Abilities;
  skill_proficiencies: string[];
  skill_expertise: string[];
  hp: HP;
  conditions: string[];
  resources: Resource[];
  biography: string;
  roleplay_guidance: string;
}

export interface Character extends CharacterInput {
  id: number;
  proficiency_bonus: number;
  updated_at: string;
}

export interface ParticipantChar {
  id: number;
  name: string;
  level: number;
  hp: HP;
  conditions: string[];
}

export interface Participant {
  id: number;
  seat_id: number;
  joined_at: string;
  late: boolean;
  controller_kind: ControllerKind;
  controller_display_name: string | null;
  character: ParticipantChar | null;
}

export interface SessionResume {
  session: {
    id: number;
    campaign_id: number;
    room_id: number;
    status: SessionStatus;
    dm_seat_id: number;
    created_at: string;
    started_at: string | null;
    ended_at: string | null;
  };
  room: { id: number; name: string };
  campaign: { id: number; name: string; status: CampaignStatus };
  seats: Seat[];
  participants: Participant[];
  me: {
    access_id: number;
    authority: Authority;
    seat_id: number | null;
    role: 'dm' | 'player' | 'spectator';
    controller?: 'human' | 'ai';
    /** Seats this caller handed to an AI and may take back (server-decided). */
    take_back_seat_ids?: number[];
  };
  can: { start: boolean; late_join: boolean; end: boolean; abandon: boolean };
  stage: StageView;
  // cursor continues the event feed: events/wait?after=cursor
  cursor: number;
  // the newest visible events, oldest first
  recent_events: EventView[];
}

// ---- the live table --------------------------------------------------------

export type ExecutionMode = 'self' | 'dm_proxy' | 'system';
export type Visibility = 'public' | 'dm_only' | 'actor_and_dm' | 'seat_private';
export type MessageKind = 'character_dialogue' | 'narration' | 'action' | 'ooc' | 'whisper_dm';
export type MessageIntent = '' | 'search' | 'check';

export interface EventView {
  seq: number;
  kind: string;
  created_at: string;
  acting_seat_id: number | null;
  subject_seat_id: number | null;
  subject_character_id: number | null;
  execution_mode: ExecutionMode;
  visibility: Visibility;
  payload: { version: number; [key: string]: unknown };
}

export interface EventPage {
  events: EventView[];
  cursor: number;
  has_more: boolean;
}

// Payloads (version 1) of the event kinds the app shows.
export interface MessagePayload {
  version: number;
  message_id: number;
  kind: MessageKind;
  intent: MessageIntent;
  check: string;
  text: string;
  recipient_seat_ids: number[];
}
export interface ParticipantJoinedPayload {
  version: number;
  seat_id: number;
  character_id: number | null;
  late: boolean;
}
export interface StageUpdatedPayload {
  version: number;
  revision: number;
  text: string;
  image_id: number | null;
  image_url: string | null;
}

export interface StageView {
  text: string;
  image_id: number | null;
  image_url: string | null;
  revision: number;
  updated_at: string;
}

export interface StageImage {
  id: number;
  mime_type: string;
  byte_size: number;
  width: number;
  height: number;
  url: string;
}

export interface MessageInput {
  kind: MessageKind;
  text: string;
  intent?: MessageIntent;
  check?: string;
  subject_seat_id?: number;
  to_seat_id?: number;
  idempotency_key?: string;
}

export interface TextInput {
  text: string;
  subject_seat_id?: number;
  to_seat_id?: number;
  idempotency_key?: string;
}

export interface Posted {
  message_id: number;
  event: EventView;
}

const enc = encodeURIComponent;

// Identity
// After the bootstrap this GET finds the cookie set: it never makes a second guest.
export const getMe = (signal?: AbortSignal) => apiGet<User>('/api/me', signal);
export const updateMe = (display_name: string) => apiSend<User>('PATCH', '/api/me', { display_name });

// Rooms
export const listRooms = (signal?: AbortSignal) => apiGet<{ rooms: RoomSummary[] }>('/api/rooms', signal);
export const createRoom = (name: string) => apiSend<RoomView>('POST', '/api/rooms', { name });
export const joinRoom = (invite_code: string) => apiSend<RoomView>('POST', '/api/rooms/join', { invite_code });
export const getRoom = (id: string | number, signal?: AbortSignal) => apiGet<RoomView>(`/api/rooms/${enc(id)}`, signal);
export const updateRoom = (
  id: number,
  patch: { name?: string; allow_self_claim?: boolean; active_campaign_id?: number },
) => apiSend<RoomView>('PATCH', `/api/rooms/${id}`, patch);
export const rotateInvite = (id: number) => apiSend<{ invite_code: string }>('POST', `/api/rooms/${id}/invite/rotate`);
export const revokeMember = (roomId: number, accessId: number) =>
  apiSend<RoomView>('POST', `/api/rooms/${roomId}/members/${accessId}/revoke`);
export const setMemberAuthority = (roomId: number, accessId: number, authority: 'dm' | 'member') =>
  apiSend<RoomView>('PUT', `/api/rooms/${roomId}/members/${accessId}/authority`, { authority });

// Campaigns and seats
export const createCampaign = (roomId: number, name: string) =>
  apiSend<RoomView>('POST', `/api/rooms/${roomId}/campaigns`, { name });
export const addSeat = (campaignId: number, label: string) =>
  apiSend<RoomView>('POST', `/api/campaigns/${campaignId}/seats`, { label });
export const assignSeat = (seatId: number, access_id: number) =>
  apiSend<RoomView>('POST', `/api/seats/${seatId}/assign`, { access_id });
export const unassignSeat = (seatId: number) => apiSend<RoomView>('POST', `/api/seats/${seatId}/unassign`);
export const claimSeat = (seatId: number) => apiSend<RoomView>('POST', `/api/seats/${seatId}/claim`);
export const setSeatCharacter = (seatId: number, character_id: number | null) =>
  apiSend<RoomView>('PUT', `/api/seats/${seatId}/character`, { character_id });

// AI seats: a grant's token is shown once, in the answer that mints it.
export interface GrantView {
  id: number;
  display_prefix: string;
  seat_id: number;
  role: SeatRole;
  session_id: number | null;
  status: 'active' | 'revoked';
  pre_session_expires_at: string | null;
  created_at: string;
  last_seen_at: string | null;
}
export interface MintedGrant {
  token: string;
  grant: GrantView;
}
export interface ControllerChangedPayload {
  version: number;
  seat_id: number;
  controller_kind: 'ai' | 'human';
}
export const handoffSeat = (seatId: number, temporary_instruction: string) =>
  apiSend<MintedGrant>(
    'POST',
    `/api/seats/${seatId}/handoff`,
    temporary_instruction.trim() === '' ? {} : { temporary_instruction },
  );
export const takeBackSeat = (seatId: number) => apiSend<RoomView>('POST', `/api/seats/${seatId}/take-back`);
export const setDmSeatAI = (campaignId: number) => apiSend<MintedGrant>('POST', `/api/campaigns/${campaignId}/dm-ai`);

// Characters
export const listCharacters = (signal?: AbortSignal) =>
  apiGet<{ characters: Character[] }>('/api/characters', signal);
export const getCharacter = (id: string | number, signal?: AbortSignal) =>
  apiGet<Character>(`/api/characters/${enc(id)}`, signal);
export const createCharacter = (input: CharacterInput) => apiSend<Character>('POST', '/api/characters', input);
export const updateCharacter = (id: number, input: CharacterInput) =>
  apiSend<Character>('PUT', `/api/characters/${id}`, input);

// Sessions
export const openSession = (campaignId: number) =>
  apiSend<SessionResume>('POST', `/api/campaigns/${campaignId}/sessions`);
export const getSession = (id: string | number, signal?: AbortSignal) =>
  apiGet<SessionResume>(`/api/sessions/${enc(id)}`, signal);
export const startSession = (id: number) => apiSend<SessionResume>('POST', `/api/sessions/${id}/start`);
export const lateJoin = (id: number, seat_id: number) =>
  apiSend<SessionResume>('POST', `/api/sessions/${id}/late-join`, { seat_id });
export const endSession = (id: number) => apiSend<SessionResume>('POST', `/api/sessions/${id}/end`);
export const abandonSession = (id: number) => apiSend<SessionResume>('POST', `/api/sessions/${id}/abandon`);

// Live table
export const listEvents = (id: number, after: number, signal?: AbortSignal) =>
  apiGet<EventPage>(`/api/sessions/${id}/events?after=${after}`, signal);
export const waitEvents = (id: number, after: number, timeout: number, signal?: AbortSignal) =>
  apiGet<EventPage>(`/api/sessions/${id}/events/wait?after=${after}&timeout=${timeout}`, signal);
export const postMessage = (id: number, input: MessageInput) =>
  apiSend<Posted>('POST', `/api/sessions/${id}/messages`, input);
export const postInput = (id: number, input: TextInput) => apiSend<Posted>('POST', `/api/sessions/${id}/input`, input);
export const setStage = (id: number, stage: { text: string; image_id: number | null; revision: number }) =>
  apiSend<StageView>('PUT', `/api/sessions/${id}/stage`, stage);
export const uploadStageImage = (id: number, file: Blob) =>
  apiUpload<StageImage>(`/api/sessions/${id}/stage/images`, file);

// ---- rolls, checks, pending actions, character state -------------------------

export type RollMode = 'normal' | 'advantage' | 'disadvantage';
export const ROLL_MODES: readonly RollMode[] = ['normal', 'advantage', 'disadvantage'];
export type RollSource = 'server' | 'physical' | 'quick';

export interface DieView {
  value: number;
  kept: boolean;
  // dropped by keep/drop (omitted when false)
  dropped?: boolean;
  exploded?: boolean;
  // replaced by the die that follows; never kept
  rerolled?: boolean;
}

export interface DiceGroup {
  notation: string;
  sides: number;
  fudge?: boolean;
  dice: DieView[];
  subtotal: number;
}

export interface DiceAudit {
  formula: string;
  normalized: string;
  groups: DiceGroup[];
  total: number;
  min: number;
  max: number;
}

export interface RollResultView {
  id: number;
  roll_request_id: number | null;
  acting_seat_id: number;
  subject_seat_id: number | null;
  subject_character_id: number | null;
  execution_mode: 'self' | 'dm_proxy';
  source: RollSource;
  formula: string;
  audit: DiceAudit;
  raw_dice: number[];
  kept_dice: number[];
  base_modifier: number;
  flat_adjustment: number;
  total: number;
  // present only for the DM, or for everyone when the DM chose to reveal the outcome
  success?: boolean;
  visibility: 'public' | 'actor_and_dm';
  created_at: string;
}

export type RollRequestStatus = 'pending' | 'resolved' | 'cancelled';

export interface RollRequestView {
  id: number;
  group_id: number | null;
  label: string;
  target_seat_id: number;
  target_character_id: number | null;
  request_type: 'ability' | 'skill';
  ability: string;
  skill: string;
  // present only for the DM: never sent to players
  dc?: number;
  mode: RollMode;
  flat_adjustment: number;
  reveal_outcome: boolean;
  visibility: 'public' | 'actor_and_dm';
  status: RollRequestStatus;
  // how many d20 faces "enter my dice" sends
  dice_needed: number;
  created_at: string;
  resolved_at: string | null;
  result: RollResultView | null;
}

export type PendingActionStatus = 'pending' | 'processing' | 'waiting_for_roll' | 'resolved' | 'cancelled';
export const PENDING_ACTION_STATUSES: readonly PendingActionStatus[] = [
  'pending',
  'processing',
  'waiting_for_roll',
  'resolved',
  'cancelled',
];

export interface PendingActionView {
  id: number;
  acting_seat_id: number;
  subject_seat_id: number;
  subject_character_id: number | null;
  execution_mode: 'self' | 'dm_proxy';
  text: string;
  intent: MessageIntent;
  status: PendingActionStatus;
  roll_request_id: number | null;
  window_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface ActionWindowView {
  id: number;
  prompt: string;
  status: 'open' | 'closed';
  created_at: string;
}

export interface RollBoard {
  requests: RollRequestView[];
  results: RollResultView[];
  pending_actions: PendingActionView[];
  windows: ActionWindowView[];
}

export interface CharacterSnapshot {
  hp: HP;
  conditions: string[];
  resources: Resource[];
}

export type CharacterStateOp =
  | 'damage'
  | 'heal'
  | 'set_temp_hp'
  | 'add_condition'
  | 'remove_condition'
  | 'spend_resource'
  | 'restore_resource';

export interface CharacterStateView {
  character_id: number;
  seat_id: number;
  op: CharacterStateOp;
  before: CharacterSnapshot;
  after: CharacterSnapshot;
}

export interface CharacterStateInput {
  subject_seat_id: number;
  op: CharacterStateOp;
  amount?: number;
  condition?: string;
  resource?: string;
}

export interface CheckInput {
  // omitted: every participant seat
  seat_ids?: number[];
  ability?: string;
  skill?: string;
  dc?: number;
  mode: RollMode;
  flat_adjustment: number;
  reveal_outcome: boolean;
  private: boolean;
  label?: string;
  pending_action_id?: number;
}

export interface PendingActionInput {
  text: string;
  intent?: MessageIntent;
  subject_seat_id?: number;
  window_id?: number;
}

// Payloads (version 1) of the roll, action and character events.
export interface RollRequestedPayload {
  version: number;
  request_id: number;
  group_id: number | null;
  label: string;
  request_type: 'ability' | 'skill';
  ability: string;
  skill: string;
  mode: RollMode;
  flat_adjustment: number;
  reveal_outcome: boolean;
}
export interface RollResolvedPayload {
  version: number;
  request_id: number;
  result: RollResultView;
}
export interface RollOutcomePayload {
  version: number;
  request_id: number;
  result_id: number;
  dc: number;
  success: boolean;
}
export interface RollQuickPayload {
  version: number;
  result: RollResultView;
}
export interface ActionPayload {
  version: number;
  action: PendingActionView;
}
export interface WindowPayload {
  version: number;
  window: ActionWindowView;
}
export type CharacterChangedPayload = CharacterStateView & { version: number };

export const getRolls = (id: number, signal?: AbortSignal) => apiGet<RollBoard>(`/api/sessions/${id}/rolls`, signal);
export const requestChecks = (id: number, input: CheckInput) =>
  apiSend<{ group_id: number; requests: RollRequestView[] }>('POST', `/api/sessions/${id}/checks`, input);
export const rollRequest = (requestId: number, idempotency_key: string) =>
  apiSend<RollResultView>('POST', `/api/roll-requests/${requestId}/roll`, { idempotency_key });
export const rollPhysical = (requestId: number, faces: number[], idempotency_key: string) =>
  apiSend<RollResultView>('POST', `/api/roll-requests/${requestId}/physical`, { faces, idempotency_key });
export const cancelRollRequest = (requestId: number) =>
  apiSend<RollRequestView>('POST', `/api/roll-requests/${requestId}/cancel`);
export const quickRoll = (id: number, input: { formula: string; subject_seat_id?: number; idempotency_key?: string }) =>
  apiSend<RollResultView>('POST', `/api/sessions/${id}/quick-roll`, input);
export const declareAction = (id: number, input: PendingActionInput) =>
  apiSend<PendingActionView>('POST', `/api/sessions/${id}/pending-actions`, input);
export const transitionAction = (actionId: number, to: PendingActionStatus) =>
  apiSend<PendingActionView>('POST', `/api/pending-actions/${actionId}/transition`, { to });
export const openActionWindow = (id: number, prompt: string) =>
  apiSend<ActionWindowView>('POST', `/api/sessions/${id}/action-windows`, { prompt });
export const closeActionWindow = (windowId: number) =>
  apiSend<ActionWindowView>('POST', `/api/action-windows/${windowId}/close`);
export const changeCharacterState = (id: number, input: CharacterStateInput) =>
  apiSend<CharacterStateView>('POST', `/api/sessions/${id}/character-state`, input);
