// Text the server makes for people (a branch's default name, a script
// notice) travels as a code with parameters; serverText writes it in the
// reader's language. The server's English text is the fallback for a code
// this build does not know.
import { format, type MessageKey } from './messages';

type Translate = (key: MessageKey) => string;
type Params = Record<string, string | number> | null | undefined;

// SERVER_TEXT_KEYS maps every code the server sends to its message key
// (the i18n test checks both languages have each one).
export const SERVER_TEXT_KEYS = {
  'branch.main': 'solo.branches.main',
  'branch.numbered': 'solo.branches.numbered',
  'script.message': 'server.script.message',
  'script.error': 'server.script.error',
} as const satisfies Record<string, MessageKey>;
export type ServerTextCode = keyof typeof SERVER_TEXT_KEYS;

// The script hooks and the kinds of script failure a script.error names.
const HOOK_KEYS: Record<string, MessageKey> = {
  input: 'solo.scripts.tab.input',
  context: 'solo.scripts.tab.context',
  output: 'solo.scripts.tab.output',
};
export const SCRIPT_ERROR_KINDS = ['throw', 'timeout', 'memory', 'compile', 'empty', 'canceled', 'internal'] as const;
const kindKey = (kind: string): MessageKey | null =>
  (SCRIPT_ERROR_KINDS as readonly string[]).includes(kind)
    ? (`server.script.kind.${kind as (typeof SCRIPT_ERROR_KINDS)[number]}` as const)
    : null;

export function isServerTextCode(code: unknown): code is ServerTextCode {
  return typeof code === 'string' && Object.hasOwn(SERVER_TEXT_KEYS, code);
}

// serverText is the text of code with params in the reader's language, or
// fallback (the server's own words) when code is absent or unknown.
export function serverText(t: Translate, code: string | null | undefined, params: Params, fallback: string): string {
  if (!isServerTextCode(code)) return fallback;
  const vars: Record<string, string | number> = { ...(params ?? {}) };
  if (code === 'script.error') {
    const hook = HOOK_KEYS[String(vars.hook ?? '')];
    if (hook) vars.hook = t(hook);
    const kind = kindKey(String(vars.kind ?? ''));
    if (kind) vars.kind = t(kind);
  }
  return format(t(SERVER_TEXT_KEYS[code]), vars);
}
