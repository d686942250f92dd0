// Types and calls of the table API (rooms, campaigns, seats, characters,
// sessions). Shapes follow the server contract one to one.
import { apiGet, apiSend } from '../api';

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
  me: { access_id: number; authority: Authority; seat_id: number | null; role: 'dm' | 'player' | 'spectator' };
  can: { start: boolean; late_join: boolean; end: boolean; abandon: boolean };
}

const enc = encodeURIComponent;

// Identity
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
