import { LANGUAGES, loadErrors, loadLanguage, loadParts, PARTS } from '../src/i18n/messages';

// jsdom has no CSS.escape, which React Aria calls (it reads <meta> tags by
// name); this is the CSSOM's definition for the names it passes (plain
// identifiers), so a selector built with it is the browser's.
if (typeof globalThis.CSS === 'undefined') {
  (globalThis as { CSS?: unknown }).CSS = {};
}
if (typeof CSS.escape !== 'function') {
  CSS.escape = (value: string) =>
    String(value).replace(/[^a-zA-Z0-9_\u00A0-\uFFFF-]/g, (c) => `\\${c}`).replace(/^(-?)(\d)/, '$1\\3$2 ');
}

// The app fetches a language's words when it is first used (main.tsx
// before the first render), a part at a time (with the pages that use it);
// tests render components straight away, in either language, so all of
// both are here before any test runs.
await Promise.all(LANGUAGES.map(loadLanguage));
await loadParts(PARTS);
await Promise.all(LANGUAGES.map(loadErrors));
