// The server-sent-events reader of a streamed turn. EventSource cannot POST,
// so the page reads the fetch body itself: text arrives in arbitrary pieces,
// an event ends at a blank line, and its data: lines carry one JSON object.
import type { ActionView, AdventureView, Notice } from './api';

export type StreamEvent =
  | { type: 'player'; action: ActionView }
  | { type: 'reasoning'; text: string }
  | { type: 'chunk'; text: string }
  // reason: length (max output tokens), dropped (the model's connection
  // ended early) or player (the player pressed Stop; the partial text is
  // saved as a take marked stopped)
  | { type: 'stopped'; reason: StopReason; message: string }
  // notices: messages for the player (a script's state.message, or a script
  // failure the turn went on without); absent when there are none
  | { type: 'error'; code: string; message: string; notices?: Notice[] }
  // action: the saved narration; null when the player stopped the narrator
  // before it wrote anything (nothing was saved beyond the player's action)
  | { type: 'done'; action: ActionView | null; adventure: AdventureView; notices?: Notice[] };

export type StopReason = 'length' | 'dropped' | 'player';

export interface SseParser {
  // push feeds the next piece of decoded text.
  push(text: string): void;
  // end delivers an event the stream closed without a blank line after.
  end(): void;
}

// createSseParser calls onData with the data of each complete event (its
// data: lines joined by "\n"). Comment lines (":"), other fields (event:,
// id:, retry:) and events without data are skipped.
export function createSseParser(onData: (data: string) => void): SseParser {
  let buf = '';

  const dispatch = (block: string) => {
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      if (field !== 'data') continue;
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      data.push(value);
    }
    if (data.length > 0) onData(data.join('\n'));
  };

  const drain = () => {
    // A "\r" at the very end may be the first half of a "\r\n" split across
    // pieces: keep it until the next piece shows which it is.
    const keep = buf.endsWith('\r') ? 1 : 0;
    const text = buf.slice(0, buf.length - keep).replace(/\r\n?/g, '\n');
    const rest = buf.slice(buf.length - keep);
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n\n', start);
      if (end < 0) break;
      dispatch(text.slice(start, end));
      start = end + 2;
    }
    buf = text.slice(start) + rest;
  };

  return {
    push(text: string) {
      buf += text;
      drain();
    },
    end() {
      const block = buf.replace(/\r\n?/g, '\n');
      buf = '';
      if (block.trim() !== '') dispatch(block);
    },
  };
}

// parseStreamEvent decodes one event's data; anything that is not a known
// event (bad JSON, an unknown type) is ignored, so a newer server can add
// event types without breaking this page.
// toNotice reads one notice of an event, or null when it says nothing.
function toNotice(x: unknown): Notice | null {
  if (typeof x === 'string') return x.trim() === '' ? null : { code: 'script.message', params: { text: x }, text: x };
  if (!x || typeof x !== 'object') return null;
  const o = x as Record<string, unknown>;
  const params: Record<string, string> = {};
  if (o.params && typeof o.params === 'object') {
    for (const [k, v] of Object.entries(o.params as Record<string, unknown>)) {
      if (typeof v === 'string' || typeof v === 'number') params[k] = String(v);
    }
  }
  const code = typeof o.code === 'string' ? o.code : '';
  const text = typeof o.text === 'string' ? o.text : '';
  if (code === '' && text.trim() === '') return null;
  return { code, params, text };
}

export function parseStreamEvent(data: string): StreamEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const str = (x: unknown) => (typeof x === 'string' ? x : '');
  // notices keeps the well-formed notices of an array ({code, params, text};
  // a bare non-empty string is a script's own words); none: no field at all
  const notices = (x: unknown) => {
    const list = Array.isArray(x) ? x.map(toNotice).filter((n): n is Notice => n !== null) : [];
    return list.length > 0 ? { notices: list } : {};
  };
  switch (o.type) {
    case 'player':
      return o.action && typeof o.action === 'object' ? { type: 'player', action: o.action as ActionView } : null;
    case 'reasoning':
      return { type: 'reasoning', text: str(o.text) };
    case 'chunk':
      return { type: 'chunk', text: str(o.text) };
    case 'stopped':
      return {
        type: 'stopped',
        reason: o.reason === 'length' || o.reason === 'player' ? o.reason : 'dropped',
        message: str(o.message),
      };
    case 'error':
      return { type: 'error', code: str(o.code), message: str(o.message), ...notices(o.notices) };
    case 'done':
      return o.adventure && typeof o.adventure === 'object'
        ? {
            type: 'done',
            action: o.action && typeof o.action === 'object' ? (o.action as ActionView) : null,
            adventure: o.adventure as AdventureView,
            ...notices(o.notices),
          }
        : null;
    default:
      return null;
  }
}

const STATE_FENCE = '```state';

// liveText is the narration to show while it streams: a trailing ```state
// block (or the start of its fence, still arriving) is cut off, since the
// player never sees the state delta; the done event's text is authoritative.
export function liveText(text: string): string {
  const at = text.toLowerCase().lastIndexOf(STATE_FENCE);
  if (at >= 0) return text.slice(0, at).trimEnd();
  for (let k = STATE_FENCE.length - 1; k > 0; k--) {
    if (text.toLowerCase().endsWith(STATE_FENCE.slice(0, k))) return text.slice(0, text.length - k).trimEnd();
  }
  return text;
}
