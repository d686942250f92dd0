// AI seats in the browser: the one-time token dialog (token, MCP URL and
// client configuration snippets), AI presence labels, and the memory of which
// seats this browser handed to an AI (seat ids only — never a token).
import { useEffect, useId, useRef, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { ModalDialog } from '../components/ModalDialog';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import type { MintedGrant, Seat } from './api';
import { focusOnMount } from '../focus';

// An AI counts as online when it called within this long.
export const AI_ONLINE_MS = 2 * 60 * 1000;

export type AIPresence = 'online' | 'offline' | 'never';

// aiPresence tells from ai_last_seen_at whether the AI is connected now.
export function aiPresence(lastSeen: string | null | undefined, now: number): AIPresence {
  if (!lastSeen) return 'never';
  const at = Date.parse(lastSeen);
  if (Number.isNaN(at)) return 'never';
  return now - at <= AI_ONLINE_MS ? 'online' : 'offline';
}

// latest returns the later of two RFC 3339 times (either may be missing).
export function latestTime(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

// useNow re-renders every intervalMs and returns the current time.
export function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

const PRESENCE_KEY: Record<AIPresence, MessageKey> = {
  online: 'ai.presence.online',
  offline: 'ai.presence.offline',
  never: 'ai.presence.never',
};

// AIPresenceBadge shows "online" / "offline" / "not connected yet" for an AI seat.
export function AIPresenceBadge({ lastSeen }: { lastSeen: string | null | undefined }) {
  const { t } = useI18n();
  const now = useNow(15_000);
  const p = aiPresence(lastSeen, now);
  return (
    <span
      className={`badge ai-presence ai-${p}`}
      data-testid="ai-presence"
      data-presence={p}
      title={t('ai.presence.label')}
    >
      {t(PRESENCE_KEY[p])}
    </span>
  );
}

// ---- which seats this browser handed to an AI ------------------------------

const HANDOFF_KEY = 'adventure-table.handoffs';

function readHandoffs(): number[] {
  try {
    const v: unknown = JSON.parse(globalThis.localStorage?.getItem(HANDOFF_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
}

function writeHandoffs(ids: number[]) {
  try {
    globalThis.localStorage?.setItem(HANDOFF_KEY, JSON.stringify(ids));
  } catch {
    // storage unavailable: the memory lasts for this page only
  }
}

export function rememberHandoff(seatId: number) {
  const ids = readHandoffs();
  if (!ids.includes(seatId)) writeHandoffs([...ids, seatId]);
}

export function forgetHandoff(seatId: number) {
  const ids = readHandoffs();
  if (ids.includes(seatId)) writeHandoffs(ids.filter((x) => x !== seatId));
}

export function handedOff(seatId: number): boolean {
  return readHandoffs().includes(seatId);
}

// ---- the one-time token dialog ----------------------------------------------

export const mcpUrl = () => `${window.location.origin}/mcp`;

export function claudeConfig(url: string, token: string): string {
  return JSON.stringify(
    { mcpServers: { 'adventure-table': { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } } },
    null,
    2,
  );
}

export function sdkSnippet(url: string, token: string, firstTool = 'get_session_context'): string {
  return [
    "import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';",
    '',
    `const mcpUrl = ${JSON.stringify(url)};`,
    `const token = ${JSON.stringify(token)};`,
    "const client = new Client({ name: 'my-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });",
    'await client.connect(',
    "  new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: 'Bearer ' + token } } }),",
    ');',
    `console.log(await client.callTool({ name: '${firstTool}', arguments: {} }));`,
  ].join('\n');
}

// CopyField shows a read-only value (one line or a block) with a copy button.
export function CopyField({ label, value, testId, multiline }: { label: string; value: string; testId: string; multiline?: boolean }) {
  const { t } = useI18n();
  const id = useId();
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'selected'>('idle');
  const copy = async () => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      ref.current?.focus();
      ref.current?.select();
      setState('selected');
    }
  };
  return (
    <div className="field copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="inline-form">
        {multiline ? (
          <textarea
            id={id}
            ref={ref}
            readOnly
            value={value}
            rows={value.split('\n').length}
            data-testid={testId}
            className="copy-block"
            spellCheck="false"
            onFocus={(e) => e.currentTarget.select()}
          />
        ) : (
          <input id={id} ref={ref} readOnly value={value} data-testid={testId} onFocus={(e) => e.currentTarget.select()} />
        )}
        <button type="button" onClick={copy} aria-label={format(t('ai.token.copyWhat'), { what: label })}>
          {t('ai.token.copy')}
        </button>
      </div>
      <p role="status" className="hint">
        {state === 'copied' && t('ai.token.copied')}
        {state === 'selected' && t('ai.token.selected')}
      </p>
    </div>
  );
}

function countdown(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`;
}

function Expiry({ at }: { at: string }) {
  const { t } = useI18n();
  const now = useNow(1000);
  const left = Date.parse(at) - now;
  return (
    <p className="hint" data-testid="token-expiry">
      {left > 0 ? format(t('ai.token.expiresIn'), { time: countdown(left) }) : t('ai.token.expired')}
    </p>
  );
}

// TokenDialog shows a freshly minted token once. The parent holds the
// MintedGrant only while the dialog is open and drops it on close.
export function TokenDialog({
  minted,
  onClose,
  onRotate,
  onRevoke,
  busy = false,
  error = null,
}: {
  minted: MintedGrant;
  onClose: () => void;
  onRotate?: () => void;
  onRevoke?: () => void;
  busy?: boolean;
  error?: string | null;
}) {
  const { t } = useI18n();
  const titleId = useId();
  const url = mcpUrl();
  const { token, grant } = minted;
  return (
    <ModalDialog kind="dialog" className="dialog token-dialog" labelledBy={titleId} testId="token-dialog" onClose={onClose}>
      <h2 id={titleId}>{t(grant.role === 'dm' ? 'ai.token.titleDm' : 'ai.token.titlePlayer')}</h2>
      <p className="notice notice-warn" role="note">
        <strong>{t('ai.token.once')}</strong>
      </p>
      <CopyField label={t('ai.token.token')} value={token} testId="ai-token" />
      <CopyField label={t('ai.token.mcpUrl')} value={url} testId="mcp-url" />
      <CopyField label={t('ai.token.configClaude')} value={claudeConfig(url, token)} testId="config-claude" multiline />
      <CopyField label={t('ai.token.configSdk')} value={sdkSnippet(url, token)} testId="config-sdk" multiline />
      {grant.pre_session_expires_at ? <Expiry at={grant.pre_session_expires_at} /> : <p className="hint">{t('ai.token.noExpiry')}</p>}
      {error !== null && <ErrorNotice code={error} />}
      <div className="inline-form dialog-actions">
        {onRotate && (
          <button type="button" onClick={onRotate} disabled={busy}>
            {t('ai.dm.rotate')}
          </button>
        )}
        {onRevoke && (
          <button type="button" onClick={onRevoke} disabled={busy}>
            {t('ai.dm.revoke')}
          </button>
        )}
        <button type="button" onClick={onClose} ref={focusOnMount}>
          {t('ai.token.close')}
        </button>
      </div>
    </ModalDialog>
  );
}

// seatAILastSeen: the presence time of an AI seat (for a seat not held by an AI: null).
export const seatAILastSeen = (seat: Seat | undefined) => (seat?.controller_kind === 'ai' ? seat.ai_last_seen_at ?? null : null);
