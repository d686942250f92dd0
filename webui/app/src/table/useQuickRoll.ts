import { useRef } from 'react';
import type { Schemas } from '../api';
import { useAction, type Action } from '../useAction';
import { quickRoll, type RollResultView } from './api';
import { newKey } from './InputBar';

export type QuickRollBody = Omit<Schemas['QuickRollInput'], 'idempotency_key'>;

// useQuickRoll posts quick rolls of a session (a formula, a sheet check or
// a sheet attack). A retry of the same body after a failure reuses its
// idempotency key, so the server rolls it once; another body gets a new key.
// roll resolves with the result, undefined on failure (action.error says why).
export function useQuickRoll(sessionId: number): { action: Action; roll: (body: QuickRollBody) => Promise<RollResultView | undefined> } {
  const action = useAction();
  const pending = useRef<{ sig: string; key: string } | null>(null);
  const roll = async (body: QuickRollBody) => {
    const sig = JSON.stringify(body);
    if (pending.current?.sig !== sig) pending.current = { sig, key: newKey() };
    const key = pending.current.key;
    const r = await action.run(() => quickRoll(sessionId, { ...body, idempotency_key: key }));
    if (r) pending.current = null;
    return r;
  };
  return { action, roll };
}
