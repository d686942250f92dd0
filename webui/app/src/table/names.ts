import type { MessageKey } from '../i18n/messages';
import { seatLabel } from '../i18n/serverText';
import type { CharacterDerived, SessionResume } from './api';

// TableNames answers "who is this seat / character" for the chat, from the
// session resume (seats and participants). Names the server made (the DM
// seat's default label) are in the reader's language when t is given.
export interface TableNames {
  dmSeatId: number;
  // character shown for a seat (the participant's character, else the seat's), else the seat label
  bySeat: (seatId: number | null | undefined) => string | null;
  // a character by id (falls back to the seat)
  character: (characterId: number | null | undefined, seatId: number | null | undefined) => string | null;
  // the sheet totals of the character a participant seat plays (attacks included), else null
  sheet: (seatId: number | null | undefined) => CharacterDerived | null;
}

export function tableNames(r: SessionResume, t?: (key: MessageKey) => string): TableNames {
  const chars = new Map<number, string>();
  const seatNames = new Map<number, string>();
  const sheets = new Map<number, CharacterDerived>();
  for (const s of r.seats) {
    if (s.character) chars.set(s.character.id, s.character.name);
    seatNames.set(s.id, s.character?.name ?? (t ? seatLabel(t, s) : s.label));
  }
  for (const p of r.participants) {
    if (p.character) {
      chars.set(p.character.id, p.character.name);
      seatNames.set(p.seat_id, p.character.name);
      if (p.character.derived) sheets.set(p.seat_id, p.character.derived);
    }
  }
  const bySeat = (seatId: number | null | undefined) => (seatId == null ? null : (seatNames.get(seatId) ?? null));
  return {
    dmSeatId: r.session.dm_seat_id,
    bySeat,
    character: (characterId, seatId) => (characterId != null ? chars.get(characterId) : undefined) ?? bySeat(seatId),
    sheet: (seatId) => (seatId == null ? null : (sheets.get(seatId) ?? null)),
  };
}
