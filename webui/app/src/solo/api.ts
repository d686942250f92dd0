// Types and calls of the solo-adventure API (scenarios, adventures, turns,
// takes, branches, insights, provider settings). The shapes are the server's
// OpenAPI document's (see ../api.ts); the closed sets the document types as
// strings are named here. Every call is an identity route: it first awaits the
// one-time identity bootstrap (see ../identity.ts).
import { ApiError, NETWORK_ERROR, type Schemas } from '../api';
import { ensureIdentity } from '../identity';
import { apiGet, apiSend } from '../identityApi';
import { createSseParser, parseStreamEvent, type StreamEvent } from './sse';

// ---- types ---------------------------------------------------------------

export type Band = Schemas['Band'];
export type StatKind = 'number' | 'bool' | 'string';
export type StatSpec = Schemas['StatSpec'];
export type StatSchema = Schemas['ScenarioInput']['stat_schema'];

export type CardInput = Schemas['CardInput'];
export type Card = Schemas['Card'];

// The scenario's user scripts (AI Dungeon style JavaScript, run by the server
// in a sandbox): library is prepended to every hook; input may rewrite or stop
// the player's text, context may rewrite the whole prompt, output may rewrite
// the model's reply. Each may be "" (up to 1 MiB each).
export type ScenarioScripts = Schemas['Scripts'];
export type ScriptHook = 'input' | 'context' | 'output';
export type ScriptLevel = 'log' | 'error' | 'message';

export type ScenarioInput = Schemas['ScenarioInput'];
export type ScenarioView = Schemas['ScenarioView'];
export type ScenarioSummary = Schemas['ScenarioSummary'];
export type Persona = Schemas['Persona'];
export type TakeInfo = Schemas['TakeInfo'];
export type StopResult = Schemas['StopResult'];

export type OutcomeStatus = 'applied' | 'clamped' | 'rejected';
export type Outcome = Schemas['Outcome'];

export type ActionKind = 'opening' | 'player' | 'narration';
export type PlayerMode = 'do' | 'say' | 'story';
export type ActionMode = '' | PlayerMode | 'continue';

export type ActionView = Schemas['ActionView'];
export type AdventureView = Schemas['AdventureView'];
export type AdventurePage = Schemas['AdventurePage'];
// AdventureChange edits an adventure: only the fields present change.
export type AdventureChange = Schemas['AdventureChange'];
export type AdventureSummary = Schemas['AdventureSummary'];
export type BranchView = Schemas['BranchView'];
// Notice is a message for the player after a turn, as a code with params (see i18n/serverText).
export type Notice = Schemas['Notice'];
export type ProviderSettingsView = Schemas['ProviderSettingsView'];
// api_key absent or null: keep the stored key; "": clear it; other: replace
export type ProviderSettingsInput = Schemas['ProviderSettingsInput'];
export type Insights = Schemas['Insights'];
export type RefreshDiff = Schemas['RefreshDiff'];
// ScriptConsoleEntry is one line of an adventure's script console: a log()
// call (the arguments joined by spaces: strings as they are, other values as
// JSON), a script failure or a state.message.
export type ScriptConsoleEntry = Schemas['ConsoleEntry'];
export type TurnInput = Schemas['TurnInput'];

// The memory bank of an adventure (seed §2.6): block memories the bank
// writes every few turns, notes the player writes by hand and the line's
// running summary. A memory hangs off a node of the story (depth) and covers
// the nodes from from_depth on.
export type MemoryKind = 'block' | 'note' | 'summary';
// what chose a memory for a prompt: pinned (always carried), bm25 (the
// built-in lexical scorer) or embedding (the embedding model's vectors)
export type MemoryScorer = 'pinned' | 'bm25' | 'embedding';
export type MemoryView = Schemas['MemoryView'];
export type MemoryBank = Schemas['MemoryBank'];
export type MemoryInput = Schemas['MemoryInput'];
// MemoryChange edits a memory: only the fields present change.
export type MemoryChange = Schemas['MemoryChange'];
export type InsightMemory = Schemas['InsightMemory'];

const enc = encodeURIComponent;

// ---- provider settings -----------------------------------------------------

export const getProviderSettings = (signal?: AbortSignal) => apiGet<ProviderSettingsView>('/api/solo/settings', signal);
export const putProviderSettings = (input: ProviderSettingsInput) =>
  apiSend<ProviderSettingsView>('PUT', '/api/solo/settings', input);

// ---- scenarios -------------------------------------------------------------

export const listScenarios = (signal?: AbortSignal) =>
  apiGet<Schemas['ScenarioList']>('/api/scenarios', signal);
export const getScenario = (id: string | number, signal?: AbortSignal) =>
  apiGet<ScenarioView>(`/api/scenarios/${enc(id)}`, signal);
export const createScenario = (input: ScenarioInput) => apiSend<ScenarioView>('POST', '/api/scenarios', input);
export const updateScenario = (id: number, input: ScenarioInput) =>
  apiSend<ScenarioView>('PUT', `/api/scenarios/${id}`, input);
export const deleteScenario = (id: number) => apiSend<Schemas['Deleted']>('DELETE', `/api/scenarios/${id}`);
export const playScenario = (id: number, persona: Persona) =>
  apiSend<AdventurePage>('POST', `/api/scenarios/${id}/play`, persona);

// ---- starter scenarios (shipped with the server) ---------------------------

export type Starter = Schemas['Starter'];
export const listStarters = (signal?: AbortSignal) => apiGet<Schemas['StarterList']>('/api/solo/starters', signal);
// startStarter imports a starter as the caller's scenario and starts an adventure from it.
export const startStarter = (slug: string, persona: Persona = { persona_name: '', persona_pronouns: '', persona_desc: '' }) =>
  apiSend<AdventurePage>('POST', `/api/solo/starters/${enc(slug)}/play`, persona);

// ---- adventures ------------------------------------------------------------

export const listAdventures = (signal?: AbortSignal) =>
  apiGet<Schemas['AdventureList']>('/api/adventures', signal);
export const getAdventure = (id: string | number, signal?: AbortSignal) =>
  apiGet<AdventurePage>(`/api/adventures/${enc(id)}`, signal);
export const getOlderStory = (id: number, before: number, limit: number) =>
  apiGet<Schemas['StoryPage']>(`/api/adventures/${id}/story?before=${before}&limit=${limit}`);
export const deleteAdventure = (id: number) => apiSend<Schemas['Deleted']>('DELETE', `/api/adventures/${id}`);
export const updateAdventure = (id: number, change: AdventureChange) =>
  apiSend<AdventureView>('PATCH', `/api/adventures/${id}`, change);
export const undoTurn = (id: number) => apiSend<AdventurePage>('POST', `/api/adventures/${id}/undo`, {});
export const chooseTake = (id: number, action_id: number) =>
  apiSend<AdventurePage>('POST', `/api/adventures/${id}/takes`, { action_id });
export const forkAt = (id: number, action_id: number) =>
  apiSend<AdventurePage>('POST', `/api/adventures/${id}/fork`, { action_id });
export const listBranches = (id: number, signal?: AbortSignal) =>
  apiGet<Schemas['BranchList']>(`/api/adventures/${id}/branches`, signal);
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
  apiGet<Schemas['Console']>(`/api/adventures/${id}/console`, signal);

// ---- the memory bank --------------------------------------------------------

// getMemoryBank answers the bank of the line being read, in story order,
// forgotten memories included.
export const getMemoryBank = (id: number, signal?: AbortSignal) =>
  apiGet<MemoryBank>(`/api/adventures/${id}/memories`, signal);
// addMemory stores a hand-written note hanging off the node being read.
export const addMemory = (id: number, input: MemoryInput) =>
  apiSend<MemoryView>('POST', `/api/adventures/${id}/memories`, input);
// changeMemory pins, forgets, un-forgets or rewrites one memory (the
// running summary can only be rewritten).
export const changeMemory = (id: number, memoryId: number, change: MemoryChange) =>
  apiSend<MemoryView>('PATCH', `/api/adventures/${id}/memories/${memoryId}`, change);

// ---- story cards in play -----------------------------------------------------

// Where a card came from: the scenario, the player (in play) or a turn's script
// (such a card belongs to that turn's lines).
export type CardSource = 'scenario' | 'player' | 'script';
export type PlayCard = Schemas['PlayCard'];
export type PlayCards = Schemas['PlayCards'];
export type ContextFill = Schemas['ContextFill'];
// CardEdit edits a card in play: only the fields present change (keys [] clears them).
export type CardEdit = Schemas['CardEdit'];
export type TokenCount = Schemas['TokenCount'];

// getCards answers the cards of the line being read, what the newest prompt
// did with each and how full that prompt was.
export const getCards = (id: number, signal?: AbortSignal) =>
  apiGet<PlayCards>(`/api/adventures/${id}/cards`, signal);
export const addCard = (id: number, input: CardInput) => apiSend<PlayCard>('POST', `/api/adventures/${id}/cards`, input);
export const changeCard = (id: number, cardId: number, edit: CardEdit) =>
  apiSend<PlayCard>('PATCH', `/api/adventures/${id}/cards/${cardId}`, edit);
// countTokens estimates the tokens of text as the caller's model endpoint counts them.
export const countTokens = (text: string) => apiSend<TokenCount>('POST', '/api/solo/tokens', { text });

// ---- streamed turns ----------------------------------------------------------

// StreamResult says how a streamed turn ended: with the saved narration (done),
// with an error event or a body that ended early (error: its code; message:
// the event's message), or both absent when the caller aborted. notices are
// the messages for the player of the done or error event (script output).
export interface StreamResult {
  done: Extract<StreamEvent, { type: 'done' }> | null;
  error: string | null;
  message: string;
  notices: Notice[];
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
// stopTurn asks the narration being streamed to stop: its stream then ends
// with stopped (player) and done carrying the partial text as a take marked
// stopped. stopped is false when nothing was running any more.
export const stopTurn = (id: number) => apiSend<StopResult>('POST', `/api/adventures/${id}/turn/stop`, {});
// retryTurn regenerates the newest narration as a new take and streams it.
export const retryTurn = (id: number, onEvent: (ev: StreamEvent) => void, signal?: AbortSignal) =>
  postStream(`/api/adventures/${id}/retry`, {}, onEvent, signal);

// ---- agent tokens (solo grants) ----------------------------------------------

// A token with which an AI agent plays one adventure (or works on one
// scenario) over MCP; the token itself is in a MintedSoloGrant only, once.
export type SoloGrantView = Schemas['SoloGrantView'];
export type MintedSoloGrant = Schemas['MintedSoloGrant'];
export type SoloGrantInput = Schemas['SoloGrantInput'];
export type SoloGrantOwner = 'adventures' | 'scenarios';
export const getSoloGrants = (owner: SoloGrantOwner, id: number, signal?: AbortSignal) =>
  apiGet<Schemas['SoloGrantList']>(`/api/${owner}/${id}/grants`, signal);
export const mintSoloGrant = (owner: SoloGrantOwner, id: number, input: SoloGrantInput) =>
  apiSend<MintedSoloGrant>('POST', `/api/${owner}/${id}/grants`, input);
export const revokeSoloGrant = (grantId: number) => apiSend<SoloGrantView>('DELETE', `/api/solo-grants/${grantId}`);
