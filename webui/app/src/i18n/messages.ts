import { en, type MessageKey } from './en';
import { zhTW } from './zh-TW';
import errorsEn from './errors.en.json';
import errorsZhTW from './errors.zh-TW.json';

export type { MessageKey };

export const LANGUAGES = ['en', 'zh-TW'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';
export const LANGUAGE_STORAGE_KEY = 'adventure-table.language';

export const uiMessages: Record<Language, Record<MessageKey, string>> = {
  en,
  'zh-TW': zhTW,
};

// Error-code maps. Their key sets must equal the server's error-code list
// (a Go test compares them), so they live in plain JSON files.
export const errorMessages: Record<Language, Record<string, string>> = {
  en: errorsEn,
  'zh-TW': errorsZhTW,
};

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function translate(lang: Language, key: MessageKey): string {
  return uiMessages[lang][key];
}

// errorText turns an API error code into text in the given language.
// Unknown codes, missing codes and network failures get the generic message.
export function errorText(lang: Language, code: string | undefined | null): string {
  if (code && Object.hasOwn(errorMessages[lang], code)) {
    return errorMessages[lang][code] as string;
  }
  return uiMessages[lang]['error.generic'];
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
