// Types and calls of the solo-adventure API (scenarios, adventures, turns,
// takes, branches, insights, provider settings). Shapes follow the server
// contract one to one. Every call is an identity route: it first awaits the
// one-time identity bootstrap (see ../identity.ts).
import { ApiError, NETWORK_ERROR } from '../api';
import { ensureIdentity } from '../identity';
import { apiGet, apiSend } from '../identityApi';
import { createSseParser, parseStreamEvent, type StreamEvent } from './sse';

// ---- types ---------------------------------------------------------------

export type Band = [number, number, string];
export type StatKind = 'number' | 'bool' | 'string';
export interface StatSpec {
  min: number;
  max: number;
  initial: number;
  bands?: Band[];
  cooldown?: number;
  kind?: StatKind;
}
export type StatSchema = Record<string, StatSpec>;

export interface CardInput {
  title: string;
  keys: string[];
  entry: string;
  type: string;
}
export interface Card extends CardInput {
  id: number;
}

// The scenario's user scripts (AI Dungeon style JavaScript, run by the server
// in a sandbox): library is prepended to every hook; input may rewrite or stop
// the player's text, context may rewrite the whole prompt, output may rewrite
// the model's reply. Each may be "" (up to 1 MiB each).
export interface ScenarioScripts {
  library: string;
  input: string;
  context: string;
  output: string;
}
export type ScriptHook = 'input' | 'context' | 'output';
export type ScriptLevel = 'log' | 'error' | 'message';

export interface ScenarioInput {
  title: string;
  premise: string;
  plot_essentials: string;
  ai_instructions: string;
  authors_note: string;
  opening: string;
  stat_schema: StatSchema;
  cards: CardInput[];
  scripts: ScenarioScripts;
}
export interface ScenarioView extends Omit<ScenarioInput, 'cards'> {
  id: number;
  cards: Card[];
  created_at: string;
  updated_at: string;
}
export interface ScenarioSummary {
  id: number;
  title: string;
  premise: string;
  updated_at: string;
}

export interface Persona {
  persona_name: string;
  persona_pronouns: string;
  persona_desc: string;
}

export interface TakeInfo {
  // 1-based position of this node among all takes of its parent
  index: number;
  count: number;
  ids: number[];
}

export type OutcomeStatus = 'applied' | 'clamped' | 'rejected';
export interface Outcome {
  path: string;
  status: OutcomeStatus;
  from?: unknown;
  to?: unknown;
  reason?: string;
}

export type ActionKind = 'opening' | 'player' | 'narration';
export type PlayerMode = 'do' | 'say' | 'story';
export type ActionMode = '' | PlayerMode | 'continue';

export interface ActionView {
  id: number;
  kind: ActionKind;
  mode: ActionMode;
  text: string;
  depth: number;
  branch_id: number;
  takes: TakeInfo;
  outcomes: Outcome[];
  truncated: boolean;
  finish_reason: string;
  has_prompt: boolean;
  created_at: string;
}

export interface AdventureView extends Persona {
  id: number;
  scenario_id: number | null;
  title: string;
  authors_note: string;
  stat_schema: StatSchema;
  world_state: Record<string, unknown>;
  state_line: string;
  head_branch_id: number;
  head_depth: number;
  turn_in_progress: boolean;
  created_at: string;
  updated_at: string;
}

export interface AdventurePage {
  adventure: AdventureView;
  story: ActionView[];
  has_more: boolean;
}

// AdventureChange edits an adventure: only the fields present change.
export interface AdventureChange {
  title?: string;
  authors_note?: string;
  persona_name?: string;
  persona_pronouns?: string;
  persona_desc?: string;
}

export interface AdventureSummary {
  id: number;
  title: string;
  scenario_id: number | null;
  updated_at: string;
}

export interface BranchView {
  id: number;
  name: string;
  parent_branch_id: number | null;
  fork_depth: number;
  tip_depth: number;
  is_head: boolean;
  created_at: string;
}

export interface ProviderSettingsView {
  base_url: string;
  model: string;
  api_key_set: boolean;
  context_budget: number;
  max_output_tokens: number;
  temperature: number;
  top_p: number;
}
export interface ProviderSettingsInput extends Omit<ProviderSettingsView, 'api_key_set'> {
  // absent or null: keep the stored key; "": clear it; other: replace
  api_key?: string | null;
}

export interface Insights {
  action_id: number;
  budget: number;
  total_tokens: number;
  sections: { name: string; tokens: number; fixed: boolean }[];
  cards: { id: number; title: string; trigger: string; tokens: number; included: boolean }[];
  history_turns: number;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; cached_prompt_tokens: number };
}

export interface RefreshDiff {
  fields: { field: string; old: string; new: string }[];
  cards_added: Card[];
  cards_updated: { old: Card; new: Card }[];
  cards_removed: Card[];
  state_paths_added: string[];
  state_paths_removed: string[];
}

// ScriptConsoleEntry is one line of an adventure's script console: a log()
// call (arguments JSON-serialised), a script failure or a state.message.
export interface ScriptConsoleEntry {
  id: number;
  action_id: number | null;
  hook: ScriptHook;
  level: ScriptLevel;
  text: string;
  created_at: string;
}

export interface TurnInput {
  mode: PlayerMode | 'continue';
  text: string;
}

const enc = encodeURIComponent;

// ---- provider settings -----------------------------------------------------

export const getProviderSettings = (signal?: AbortSignal) => apiGet<ProviderSettingsView>('/api/solo/settings', signal);
export const putProviderSettings = (input: ProviderSettingsInput) =>
  apiSend<ProviderSettingsView>('PUT', '/api/solo/settings', input);

// ---- scenarios -------------------------------------------------------------

export const listScenarios = (signal?: AbortSignal) =>
  apiGet<{ scenarios: ScenarioSummary[] }>('/api/scenarios', signal);
export const getScenario = (id: string | number, signal?: AbortSignal) =>
  apiGet<ScenarioView>(`/api/scenarios/${enc(id)}`, signal);
export const createScenario = (input: ScenarioInput) => apiSend<ScenarioView>('POST', '/api/scenarios', input);
export const updateScenario = (id: number, input: ScenarioInput) =>
  apiSend<ScenarioView>('PUT', `/api/scenarios/${id}`, input);
export const deleteScenario = (id: number) => apiSend<{ deleted: boolean }>('DELETE', `/api/scenarios/${id}`);
export const playScenario = (id: number, persona: Persona) =>
  apiSend<AdventurePage>('POST', `/api/scenarios/${id}/play`, persona);

// ---- adventures ------------------------------------------------------------

export const listAdventures = (signal?: AbortSignal) =>
  apiGet<{ adventures: AdventureSummary[] }>('/api/adventures', signal);
export const getAdventure = (id: string | number, signal?: AbortSignal) =>
  apiGet<AdventurePage>(`/api/adventures/${enc(id)}`, signal);
export const getOlderStory = (id: number, before: number, limit: number) =>
  apiGet<{ story: ActionView[]; has_more: boolean }>(`/api/adventures/${id}/story?before=${before}&limit=${limit}`);
export const deleteAdventure = (id: number) => apiSend<{ deleted: boolean }>('DELETE', `/api/adventures/${id}`);
export const updateAdventure = (id: number, change: AdventureChange) =>
  apiSend<AdventureView>('PATCH', `/api/adventures/${id}`, change);
export const undoTurn = (id: number) => apiSend<AdventurePage>('POST', `/api/adventures/${id}/undo`, {});
export const chooseTake = (id: number, action_id: number) =>
  apiSend<AdventurePage>('POST', `/api/adventures/${id}/takes`, { action_id });
export const forkAt = (id: number, action_id: number) =>
  apiSend<AdventurePage>('POST', `/api/adventures/${id}/fork`, { action_id });
export const listBranches = (id: number, signal?: AbortSignal) =>
  apiGet<{ branches: BranchView[] }>(`/api/adventures/${id}/branches`, signal);
export const switchBranch = (id: number, branchId: number) =>
  apiSend<AdventurePage>('POST', `/api/adventures/${id}/branches/${branchId}/switch`, {});
export const renameBranch = (id: number, branchId: number, name: string) =>
  apiSend<BranchView>('PATCH', `/api/adventures/${id}/branches/${branchId}`, { name });
// editAction replaces the text of a node of the head line; deleteAction
// removes one (with its other takes) and answers the page as it now is.
export const editAction = (actionId: number, text: string) =>
  apiSend<ActionView>('PATCH', `/api/actions/${actionId}`, { text });
export const deleteAction = (actionId: number) => apiSend<AdventurePage>('DELETE', `/api/actions/${actionId}`);
export const getInsights = (actionId: number, signal?: AbortSignal) =>
  apiGet<Insights>(`/api/actions/${actionId}/insights`, signal);
export const getRefreshDiff = (id: number, signal?: AbortSignal) =>
  apiGet<RefreshDiff>(`/api/adventures/${id}/refresh`, signal);
export const applyRefresh = (id: number) => apiSend<AdventurePage>('POST', `/api/adventures/${id}/refresh`, {});
// getScriptConsole answers the newest (at most 200) console entries, oldest first.
export const getScriptConsole = (id: number, signal?: AbortSignal) =>
  apiGet<{ entries: ScriptConsoleEntry[] }>(`/api/adventures/${id}/console`, signal);

// ---- streamed turns ----------------------------------------------------------

// StreamResult says how a streamed turn ended: with the saved narration (done),
// with an error event or a body that ended early (error: its code; message:
// the event's message), or both absent when the caller aborted. notices are
// the messages for the player of the done or error event (script output).
export interface StreamResult {
  done: Extract<StreamEvent, { type: 'done' }> | null;
  error: string | null;
  message: string;
  notices: string[];
}

// postStream POSTs body to path and feeds each event of the text/event-stream
// answer to onEvent as it arrives. A refused request (non-2xx, answered before
// any streaming) throws an ApiError with the server's code, like apiSend.
async function postStream(
  path: string,
  body: unknown,
  onEvent: (ev: StreamEvent) => void,
  signal?: AbortSignal,
): Promise<StreamResult> {
  await ensureIdentity();
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError(NETWORK_ERROR, 0);
  }
  if (!res.ok) {
    let parsed: unknown = null;
    try {
      parsed = await res.json();
    } catch {
      parsed = null;
    }
    const err = (parsed as { error?: { code?: unknown; fields?: unknown; details?: unknown } } | null)?.error;
    const code = typeof err?.code === 'string' ? err.code : '';
    const fields = err?.fields && typeof err.fields === 'object' ? (err.fields as Record<string, unknown>) : {};
    const details = err?.details && typeof err.details === 'object' ? (err.details as Record<string, unknown>) : {};
    throw new ApiError(code, res.status, fields, details);
  }

  const result: StreamResult = { done: null, error: null, message: '', notices: [] };
  const parser = createSseParser((data) => {
    const ev = parseStreamEvent(data);
    if (!ev) return;
    if (ev.type === 'done') {
      result.done = ev;
      result.notices = ev.notices ?? [];
    }
    if (ev.type === 'error') {
      result.error = ev.code || '';
      result.message = ev.message;
      result.notices = ev.notices ?? [];
    }
    onEvent(ev);
  });
  if (!res.body) {
    return { done: null, error: NETWORK_ERROR, message: '', notices: [] };
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode());
    parser.end();
  } catch {
    if (signal?.aborted) return { done: null, error: null, message: '', notices: [] };
    // the connection dropped mid-stream: handled below like a body that ended early
  }
  // A body that ends with neither done nor error lost its turn on the way.
  if (!result.done && result.error === null) result.error = NETWORK_ERROR;
  return result;
}

// playTurn sends a Do / Say / Story action or a Continue and streams the reply.
export const playTurn = (id: number, input: TurnInput, onEvent: (ev: StreamEvent) => void, signal?: AbortSignal) =>
  postStream(`/api/adventures/${id}/turns`, input, onEvent, signal);
// retryTurn regenerates the newest narration as a new take and streams it.
export const retryTurn = (id: number, onEvent: (ev: StreamEvent) => void, signal?: AbortSignal) =>
  postStream(`/api/adventures/${id}/retry`, {}, onEvent, signal);
