// Text the server makes for people (a branch's default name, a script
// notice, a guest's name, the DM seat's label, the DM's /check line)
// travels as a code with parameters; serverText writes it in the
// reader's language. The server's English text is the fallback for a code
// this build does not know.
import { checkName } from '../table/labels';
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
  'user.guest': 'server.user.guest',
  'user.former': 'server.user.former',
  'seat.dm': 'server.seat.dm',
  'check.everyone': 'server.check.everyone',
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
  if (code === 'check.everyone') vars.check = checkName(String(vars.check ?? ''), t);
  return format(t(SERVER_TEXT_KEYS[code]), vars);
}

// personName is a person's display name (a user, a room member, an
// account) in the reader's language: a guest's server-made name is
// translated, a chosen one shown as it is.
export function personName(t: Translate, p: { display_name: string; name_code?: string | null; name_params?: Params }): string {
  return serverText(t, p.name_code, p.name_params, p.display_name);
}

// controllerName is the name of the person controlling a seat (a seat or
// a participant view), or null when none is known.
export function controllerName(
  t: Translate,
  s: { controller_display_name?: string | null; controller_name_code?: string | null; controller_name_params?: Params },
): string | null {
  if (s.controller_display_name == null) return null;
  return serverText(t, s.controller_name_code, s.controller_name_params, s.controller_display_name);
}

// seatLabel is a seat's label in the reader's language while it is the
// server's default (the DM seat's "DM").
export function seatLabel(t: Translate, s: { label: string; label_code?: string | null }): string {
  return serverText(t, s.label_code, null, s.label);
}

// messageText is the text of a message.posted payload in the reader's
// language: a line the server wrote (the DM's /check) has text_code.
export function messageText(t: Translate, p: { text: string; text_code?: string | null; text_params?: Params }): string {
  return serverText(t, p.text_code, p.text_params, p.text);
}
