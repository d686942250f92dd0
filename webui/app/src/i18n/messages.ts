import type { MessageKey } from './en';

export type { MessageKey };

export const LANGUAGES = ['en', 'zh-TW'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';
export const LANGUAGE_STORAGE_KEY = 'adventure-table.language';

// A language's words come in parts, each a script of its own
// (parts/<part>.<language>.ts, which scripts/i18n-parts.mjs makes from
// en.ts and zh-TW.ts): "core" for the app's frame and what pages of
// several parts share, and one for the table's pages, the solo pages and
// the account's; the session page has a part of its own, the words it
// shares with the other table pages in both (its page is the heaviest).
// A page loads its part with its script (App.tsx). The texts of the error
// codes come apart, when an error is first shown (loadErrors): no page
// shows one at first. Their key sets must equal the server's error-code
// list (a Go test compares them), so they live in plain JSON files.
export const PARTS = ['core', 'table', 'session', 'solo', 'account'] as const;
export type Part = (typeof PARTS)[number];

const partFiles = import.meta.glob<{ default: Record<string, string> }>('./parts/*.ts');
const errorFiles = import.meta.glob<{ default: Record<string, string> }>('./errors.*.json');

// Words is what is loaded of one language.
interface Words {
  ui: Record<string, string>;
  // the error texts, once loadErrors has them
  errors: Record<string, string> | null;
  parts: Set<Part>;
}
const words = new Map<Language, Words>();
const loading = new Map<string, Promise<void>>();
// wanted are the parts some page has loaded: a language loaded later
// brings them too.
const wanted = new Set<Part>(['core']);

function loadPart(lang: Language, part: Part): Promise<void> {
  const key = `${part}.${lang}`;
  let p = loading.get(key);
  if (!p) {
    const w = wordsOf(lang);
    p = partFiles[`./parts/${key}.ts`]!().then((ui) => {
      Object.assign(w.ui, ui.default);
      w.parts.add(part);
    });
    // a part that failed to load is tried again next time
    p.catch(() => loading.delete(key));
    loading.set(key, p);
  }
  return p;
}

const wordsOf = (lang: Language) => words.get(lang) ?? words.set(lang, { ui: {}, errors: null, parts: new Set() }).get(lang)!;

// loadErrors fetches lang's error texts, once (errorText starts it).
export function loadErrors(lang: Language): Promise<void> {
  const key = `errors.${lang}`;
  let p = loading.get(key);
  if (!p) {
    p = errorFiles[`./errors.${lang}.json`]!().then((errors) => {
      wordsOf(lang).errors = errors.default;
    });
    // texts that failed to load are tried again next time
    p.catch(() => loading.delete(key));
    loading.set(key, p);
  }
  return p;
}

// errorsLoaded tells whether lang's error texts are here.
export const errorsLoaded = (lang: Language) => words.get(lang)?.errors != null;

// loadLanguage fetches lang's words, once: the core and every part a page
// has asked for so far. translate and errorText need them loaded.
export async function loadLanguage(lang: Language): Promise<void> {
  await Promise.all([...wanted].map((part) => loadPart(lang, part)));
}

// loadParts fetches parts of the words, in every language that is loaded
// or loading (before the first, loadLanguage brings them).
export async function loadParts(parts: readonly Part[]): Promise<void> {
  for (const part of parts) wanted.add(part);
  await Promise.all([...words.keys()].flatMap((lang) => parts.map((part) => loadPart(lang, part))));
}

// languageLoaded tells whether lang's words are all here (the core and the wanted parts).
export const languageLoaded = (lang: Language) => [...wanted].every((part) => words.get(lang)?.parts.has(part));

function loaded(lang: Language): Words {
  const w = words.get(lang);
  if (!w?.parts.has('core')) throw new Error(`the ${lang} words are not loaded (loadLanguage)`);
  return w;
}

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

// isMessageKey tells whether key (built from a server's code) is one of
// this build's messages, in a part loaded (every language has the same
// keys, a test checks).
export function isMessageKey(key: string): key is MessageKey {
  return [...words.values()].some((w) => Object.hasOwn(w.ui, key));
}

// translate is key's text in lang. A key of a part not loaded is a bug (a
// page's part in App.tsx, or the parts out of date): it shows as the key,
// and says so in the console.
export function translate(lang: Language, key: MessageKey): string {
  const text = loaded(lang).ui[key];
  if (text === undefined) {
    console.error(`no ${lang} text for ${key}: its part is not loaded`);
    return key;
  }
  return text;
}

// errorText turns an API error code into text in the given language.
// Unknown codes, missing codes and network failures get the generic
// message, and so does every code until the error texts are loaded
// (loadErrors; the I18nProvider starts it and shows the text once here).
export function errorText(lang: Language, code: string | undefined | null): string {
  const { ui, errors } = loaded(lang);
  if (code && errors && Object.hasOwn(errors, code)) {
    return errors[code] as string;
  }
  return ui['error.generic']!;
}

export function storedLanguage(): Language {
  try {
    const v = globalThis.localStorage?.getItem(LANGUAGE_STORAGE_KEY);
    if (isLanguage(v)) return v;
  } catch {
    // storage may be unavailable (privacy mode); fall through
  }
  return DEFAULT_LANGUAGE;
}

export function storeLanguage(lang: Language): void {
  try {
    globalThis.localStorage?.setItem(LANGUAGE_STORAGE_KEY, lang);
  } catch {
    // ignore: the choice then lasts for this page only
  }
}

// format fills {name} placeholders of a translated template.
export function format(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (Object.hasOwn(vars, k) ? String(vars[k]) : m));
}
