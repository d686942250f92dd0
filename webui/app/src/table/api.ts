// Types and calls of the table API (rooms, campaigns, seats, characters,
// sessions, the live table). The shapes are the server's OpenAPI document's
// (see ../api.ts); the closed sets the document types as strings are named here.
// Every call here is an identity route (see ../identityApi.ts).
import type { Schemas } from '../api';
import { apiGet, apiSend, apiUpload } from '../identityApi';

export type Authority = 'owner' | 'dm' | 'member';
export type AccessStatus = 'active' | 'revoked';

export type User = Schemas['UserView'];
export type Access = Schemas['AccessView'];
export type Member = Schemas['MemberView'];
export type CharacterRef = Schemas['CharacterRef'];

export type SeatRole = 'dm' | 'player';
// TableRole is the caller's role at a session (SessionResume.me.role).
export type TableRole = SeatRole | 'spectator';
export type ControllerKind = 'none' | 'human' | 'ai';

export type Seat = Schemas['SeatView'];

export type SessionStatus = 'lobby' | 'active' | 'ended' | 'abandoned';
export type CampaignStatus = 'active' | 'completed' | 'archived';

export type OpenSession = Schemas['OpenSessionView'];
export type Campaign = Schemas['CampaignView'];
export type RoomView = Schemas['RoomView'];
export type RoomSummary = Schemas['RoomSummary'];

export const ABILITIES = ['str', 'dex', 'con', 'int', 'wis', 'cha'] as const;
export type Ability = (typeof ABILITIES)[number];
export type Abilities = Schemas['Abilities'];

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

// The SRD body armors (gameplay/sheet.Armors), lightest first, the
// unarmored AC formulas ('' is 10 + Dex) and the hit die sizes (0 is not set).
export const ARMORS = [
  'padded',
  'leather',
  'studded_leather',
  'hide',
  'chain_shirt',
  'scale_mail',
  'breastplate',
  'half_plate',
  'ring_mail',
  'chain_mail',
  'splint',
  'plate',
] as const;
export const UNARMORED = ['', 'barbarian', 'monk', 'mage_armor'] as const;
export const HIT_DICE = [0, 6, 8, 10, 12] as const;
// The SRD damage types (gameplay/sheet.DamageTypes).
export const DAMAGE_TYPES = [
  'acid',
  'bludgeoning',
  'cold',
  'fire',
  'force',
  'lightning',
  'necrotic',
  'piercing',
  'poison',
  'psychic',
  'radiant',
  'slashing',
  'thunder',
] as const;
export type DamageType = (typeof DAMAGE_TYPES)[number];

export type HP = Schemas['TableHP'];
export type Resource = Schemas['ResourceView'];
export type Attack = Schemas['AttackView'];
export type AttackDerived = Schemas['AttackDerived'];
export type CharacterDerived = Schemas['CharacterDerived'];
export type Spell = Schemas['SpellView'];
export type Item = Schemas['ItemView'];
export type CharacterInput = Schemas['CharacterInput'];
export type Character = Schemas['CharacterView'];
export type ParticipantChar = Schemas['ParticipantCharacter'];
export type Participant = Schemas['ParticipantView'];
export type SessionResume = Schemas['SessionResume'];

// ---- the live table --------------------------------------------------------

export type ExecutionMode = 'self' | 'dm_proxy' | 'system';
export type Visibility = 'public' | 'dm_only' | 'actor_and_dm' | 'seat_private';
export type MessageKind = 'character_dialogue' | 'narration' | 'action' | 'ooc' | 'whisper_dm';
export type MessageIntent = '' | 'search' | 'check';

export type EventView = Schemas['EventView'];
export type EventPage = Schemas['EventPage'];

// The payload (version 1) of each event kind the app shows: the document has
// one schema for every kind's payload (EventPayload); these name the fields
// each kind carries.
export interface MessagePayload {
  version: number;
  message_id: number;
  kind: MessageKind;
  intent: MessageIntent;
  check: string;
  text: string;
  recipient_seat_ids: number[];
  // speaker names the NPC the DM voices (narration only).
  speaker?: string;
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

export type StageView = Schemas['StageView'];
export type StageImage = Schemas['StageImageView'];
export type MessageInput = Schemas['MessageInput'];
export type TextInput = Schemas['InputLine'];
export type Posted = Schemas['PostedMessage'];

const enc = encodeURIComponent;

// Identity
// After the bootstrap this GET finds the cookie set: it never makes a second guest.
export const getMe = (signal?: AbortSignal) => apiGet<User>('/api/me', signal);
export const updateMe = (display_name: string) => apiSend<User>('PATCH', '/api/me', { display_name });

// Rooms
export const listRooms = (signal?: AbortSignal) => apiGet<Schemas['RoomList']>('/api/rooms', signal);
export const createRoom = (name: string) => apiSend<RoomView>('POST', '/api/rooms', { name });
export const joinRoom = (invite_code: string) => apiSend<RoomView>('POST', '/api/rooms/join', { invite_code });
// First runs: a table ready to play in one call; a friend seated by the link in one call.
export type TableInput = Schemas['TableInput'];
export type TableView = Schemas['TableView'];
export type InvitePreview = Schemas['InvitePreview'];
export type JoinInput = Schemas['JoinInput'];
export type JoinView = Schemas['JoinView'];
export type QuickTemplate = Schemas['QuickTemplate'];
export const createTable = (input: TableInput) => apiSend<TableView>('POST', '/api/tables', input);
export const previewInvite = (code: string, signal?: AbortSignal) => apiGet<InvitePreview>(`/api/invites/${enc(code)}`, signal);
export const joinAndSit = (input: JoinInput) => apiSend<JoinView>('POST', '/api/tables/sit', input);
export const listQuickTemplates = (signal?: AbortSignal) => apiGet<Schemas['QuickTemplates']>('/api/characters/templates', signal);
export const getRoom = (id: string | number, signal?: AbortSignal) => apiGet<RoomView>(`/api/rooms/${enc(id)}`, signal);
export const updateRoom = (
  id: number,
  patch: { name?: string; allow_self_claim?: boolean; active_campaign_id?: number },
) => apiSend<RoomView>('PATCH', `/api/rooms/${id}`, patch);
export const rotateInvite = (id: number) => apiSend<Schemas['InviteView']>('POST', `/api/rooms/${id}/invite/rotate`);
export const revokeMember = (roomId: number, accessId: number) =>
  apiSend<RoomView>('POST', `/api/rooms/${roomId}/members/${accessId}/revoke`);
export const setMemberAuthority = (roomId: number, accessId: number, authority: 'dm' | 'member') =>
  apiSend<RoomView>('PUT', `/api/rooms/${roomId}/members/${accessId}/authority`, { authority });

// Campaigns and seats
export const createCampaign = (roomId: number, name: string) =>
  apiSend<RoomView>('POST', `/api/rooms/${roomId}/campaigns`, { name });
export type WorldView = Schemas['WorldView'];
export type WorldNPC = Schemas['WorldNPC'];
export type World = Schemas['World'];
export const getWorld = (campaignId: number, signal?: AbortSignal) =>
  apiGet<WorldView>(`/api/campaigns/${campaignId}/world`, signal);
export const putWorld = (campaignId: number, world: World) =>
  apiSend<WorldView>('PUT', `/api/campaigns/${campaignId}/world`, world);
// The campaign journal
export type JournalView = Schemas['JournalView'];
export type JournalEntry = Schemas['JournalEntryView'];
export type JournalInput = Schemas['JournalInput'];
export type JournalChange = Schemas['JournalChange'];
export const JOURNAL_KINDS = ['npc', 'place', 'item', 'quest', 'clue', 'note'] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];
export type JournalAudience = 'table' | 'seats' | 'dm';
export type CampaignTimeline = Schemas['CampaignTimeline'];
export const getTimeline = (campaignId: number, signal?: AbortSignal) =>
  apiGet<CampaignTimeline>(`/api/campaigns/${campaignId}/timeline`, signal);
export type CampaignFile = Schemas['CampaignFile'];
export const exportCampaign = (campaignId: number) => apiGet<CampaignFile>(`/api/campaigns/${campaignId}/export`);
export const importCampaign = (roomId: number, file: Blob) => apiUpload<RoomView>(`/api/rooms/${roomId}/campaigns/import`, file);
export const listJournal = (campaignId: number, filter: { kind?: string; q?: string }, signal?: AbortSignal) => {
  const q = new URLSearchParams();
  if (filter.kind) q.set('kind', filter.kind);
  if (filter.q) q.set('q', filter.q);
  const qs = q.toString();
  return apiGet<JournalView>(`/api/campaigns/${campaignId}/journal${qs ? `?${qs}` : ''}`, signal);
};
export const addJournalEntry = (campaignId: number, entry: JournalInput) =>
  apiSend<JournalEntry>('POST', `/api/campaigns/${campaignId}/journal`, entry);
export const editJournalEntry = (id: number, change: JournalChange) => apiSend<JournalEntry>('PATCH', `/api/journal/${id}`, change);
export const confirmJournalEntry = (id: number) => apiSend<JournalEntry>('POST', `/api/journal/${id}/confirm`);
export const deleteJournalEntry = (id: number) => apiSend<Schemas['JournalDeleted']>('DELETE', `/api/journal/${id}`);
export const addSeat = (campaignId: number, label: string) =>
  apiSend<RoomView>('POST', `/api/campaigns/${campaignId}/seats`, { label });
export const assignSeat = (seatId: number, access_id: number) =>
  apiSend<RoomView>('POST', `/api/seats/${seatId}/assign`, { access_id });
export const unassignSeat = (seatId: number) => apiSend<RoomView>('POST', `/api/seats/${seatId}/unassign`);
export const claimSeat = (seatId: number) => apiSend<RoomView>('POST', `/api/seats/${seatId}/claim`);
export const setSeatCharacter = (seatId: number, character_id: number | null) =>
  apiSend<RoomView>('PUT', `/api/seats/${seatId}/character`, { character_id });

// AI seats: a grant's token is shown once, in the answer that mints it.
export type GrantView = Schemas['GrantView'];
export type MintedGrant = Schemas['MintedGrant'];
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
export const updateCampaign = (campaignId: number, change: { name?: string; status?: CampaignStatus; recap_style?: 'brief' | 'detailed' }) =>
  apiSend<RoomView>('PATCH', `/api/campaigns/${campaignId}`, change);
export const setDmSeatAI = (campaignId: number) => apiSend<MintedGrant>('POST', `/api/campaigns/${campaignId}/dm-ai`);

// The server's own narrator at a seat (Adventure Table's narrator): it
// spends the model settings of the person who seats it and is directed
// with pause, resume and act now (also the retry after a failed step).
export type NarratorView = Schemas['NarratorView'];
// idle, thinking, paused or stuck
export type NarratorState = 'idle' | 'thinking' | 'writing' | 'paused' | 'stuck';
export type NarratorAction = 'pause' | 'resume' | 'act_now';
export const seatNarrator = (seatId: number, input: Schemas['NarratorInput'] = {}) =>
  apiSend<NarratorView>('POST', `/api/seats/${seatId}/narrator`, input);
export const controlNarrator = (seatId: number, action: NarratorAction | '', debounce_ms?: number) =>
  apiSend<NarratorView>('POST', `/api/seats/${seatId}/narrator/control`, debounce_ms === undefined ? { action } : { action, debounce_ms });
export const takeBackNarrator = (seatId: number) => apiSend<RoomView>('POST', `/api/seats/${seatId}/narrator/take-back`);
export const listNarrators = (roomId: number | string, signal?: AbortSignal) =>
  apiGet<NarratorView[]>(`/api/rooms/${enc(roomId)}/narrators`, signal);

// Characters
export const listCharacters = (signal?: AbortSignal) =>
  apiGet<Schemas['CharacterList']>('/api/characters', signal);
export const getCharacter = (id: string | number, signal?: AbortSignal) =>
  apiGet<Character>(`/api/characters/${enc(id)}`, signal);
export type CharacterSheet = Schemas['CharacterSheet'];
export type SheetRoll = Schemas['SheetRoll'];
export type SheetRollInput = Schemas['SheetRollInput'];
// getCharacterSheet: one of the caller's characters to read and roll from,
// with the running table its rolls go to (null when none).
export const getCharacterSheet = (id: string | number, signal?: AbortSignal) =>
  apiGet<CharacterSheet>(`/api/characters/${enc(id)}/sheet`, signal);
// rollFromSheet: a check, save or attack of the sheet, rolled by the server
// at the character's table as its seat.
export const rollFromSheet = (id: number, input: SheetRollInput) => apiSend<SheetRoll>('POST', `/api/characters/${id}/roll`, input);
export const createCharacter = (input: CharacterInput) => apiSend<Character>('POST', '/api/characters', input);
export const previewCharacter = (input: CharacterInput) => apiSend<CharacterDerived>('POST', '/api/characters/preview', input);
export const updateCharacter = (id: number, input: CharacterInput) =>
  apiSend<Character>('PUT', `/api/characters/${id}`, input);
// A character as a file in the app's own format (adventure-table.character).
export type CharacterFile = Schemas['CharacterFile'];
export const exportCharacter = (id: number) => apiGet<CharacterFile>(`/api/characters/${id}/export`);
// importCharacter sends a chosen file as it is: the server alone decides
// whether it is a character file.
export const importCharacter = (file: Blob) => apiUpload<Character>('/api/characters/import', file);

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
export const postRecap = (id: number, text: string) => apiSend<SessionResume>('POST', `/api/sessions/${id}/recap/post`, { text });
export const skipRecap = (id: number) => apiSend<SessionResume>('POST', `/api/sessions/${id}/recap/skip`);

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

export type DieView = Schemas['Die'];
export type DiceGroup = Schemas['Group'];
export type DiceAudit = Schemas['Result'];
export type RollResultView = Schemas['RollResultView'];

export type RollRequestStatus = 'pending' | 'resolved' | 'cancelled';
export type RollRequestView = Schemas['RollRequestView'];

export type PendingActionStatus = 'pending' | 'processing' | 'waiting_for_roll' | 'resolved' | 'cancelled';
export const PENDING_ACTION_STATUSES: readonly PendingActionStatus[] = [
  'pending',
  'processing',
  'waiting_for_roll',
  'resolved',
  'cancelled',
];

export type PendingActionView = Schemas['PendingActionView'];
export type ActionWindowView = Schemas['ActionWindowView'];
export type RollBoard = Schemas['RollBoard'];
export type CharacterSnapshot = Schemas['CharacterState'];

export type CharacterStateOp =
  | 'damage'
  | 'heal'
  | 'set_temp_hp'
  | 'add_condition'
  | 'remove_condition'
  | 'spend_resource'
  | 'restore_resource';

export type CharacterStateView = Schemas['CharacterStateView'];
export type CharacterStateInput = Schemas['StateChangeInput'];
export type CheckInput = Schemas['CheckRequestInput'];
export type PendingActionInput = Schemas['ActionInput'];

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
  // a secret DC's commitment (commitment.ts)
  dc_commitment?: string;
}
// roll.revealed: a rolled check's secret DC, opened once its group is settled.
export interface RollRevealedPayload {
  version: number;
  request_id: number;
  dc: number;
  dc_salt: string;
  dc_commitment: string;
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
  // a roll of a sheet check: its key (perception, dex, dex_save)
  check?: string;
  // a roll of a sheet attack: its name, to_hit or damage, the damage type
  attack_name?: string;
  attack_roll?: 'to_hit' | 'damage';
  damage_type?: string;
}
export interface ActionPayload {
  version: number;
  action: PendingActionView;
}
export interface WindowPayload {
  version: number;
  window: ActionWindowView;
}
// character.changed carries the change without the character's name.
export type CharacterChangedPayload = Omit<CharacterStateView, 'character'> & { version: number };

export const getRolls = (id: number, signal?: AbortSignal) => apiGet<RollBoard>(`/api/sessions/${id}/rolls`, signal);
// The roll history, newest first: a page of at most limit results read
// before the result id `before` (0 or absent: from the newest); the answer's
// before is the cursor of the next, older page.
export type RollHistoryPage = Schemas['RollHistory'];
export const getRollResults = (id: number, page: { before?: number; limit?: number } = {}, signal?: AbortSignal) => {
  const q = new URLSearchParams();
  if (page.before) q.set('before', String(page.before));
  if (page.limit) q.set('limit', String(page.limit));
  const qs = q.toString();
  return apiGet<RollHistoryPage>(`/api/sessions/${id}/roll-results${qs === '' ? '' : `?${qs}`}`, signal);
};
export const requestChecks = (id: number, input: CheckInput) =>
  apiSend<Schemas['CheckRequests']>('POST', `/api/sessions/${id}/checks`, input);
export const rollRequest = (requestId: number, idempotency_key: string) =>
  apiSend<RollResultView>('POST', `/api/roll-requests/${requestId}/roll`, { idempotency_key });
export const rollPhysical = (requestId: number, faces: number[], idempotency_key: string) =>
  apiSend<RollResultView>('POST', `/api/roll-requests/${requestId}/physical`, { faces, idempotency_key });
export const cancelRollRequest = (requestId: number) =>
  apiSend<RollRequestView>('POST', `/api/roll-requests/${requestId}/cancel`);
export const quickRoll = (id: number, input: Schemas['QuickRollInput']) =>
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

// ---- message edit and delete, presence ---------------------------------------

export type MessageView = Schemas['MessageView'];
export type Presence = Schemas['Presence'];
export type PresenceEntry = Schemas['PresenceEntry'];
// message.edited: the new text (inline rolls are never re-rolled).
export interface MessageEditedPayload {
  version: number;
  message_id: number;
  text: string;
  edited_at: string;
  edited_by_seat_id: number | null;
  roll_result_ids?: number[];
}
// message.deleted: the message's text is blanked; a tombstone stays.
export interface MessageDeletedPayload {
  version: number;
  message_id: number;
  deleted_at: string;
  deleted_by_seat_id: number | null;
}
// The author may change a message within this time; the DM at any time.
export const MESSAGE_EDIT_WINDOW_MS = 10 * 60 * 1000;

export const editMessage = (messageId: number, text: string) =>
  apiSend<MessageView>('PATCH', `/api/messages/${messageId}`, { text });
export const deleteMessage = (messageId: number) => apiSend<MessageView>('DELETE', `/api/messages/${messageId}`);
export const getPresence = (id: number, signal?: AbortSignal) =>
  apiGet<Presence>(`/api/sessions/${id}/presence`, signal);

// The narrator's steps (Insights), for those who direct it
export type NarratorStepSummary = Schemas['NarratorStepSummary'];
export type NarratorStepView = Schemas['NarratorStepView'];
export const listNarratorSteps = (seatId: number | string, signal?: AbortSignal) =>
  apiGet<NarratorStepSummary[]>(`/api/seats/${enc(seatId)}/narrator/steps`, signal);
export const getNarratorStep = (seatId: number | string, stepId: number, signal?: AbortSignal) =>
  apiGet<NarratorStepView>(`/api/seats/${enc(seatId)}/narrator/steps/${stepId}`, signal);
