import { fireEvent } from '@testing-library/react';
import { LANGUAGES, loadErrors, loadLanguage, loadParts, PARTS } from '../src/i18n/messages';

// A browser fires input and then change when a field's value changes by
// the user's hand; fireEvent.change fires change alone. Preact listens to
// the event the platform fires for each field (input for a text field's
// onChange, change for a select's or a checkbox's), so a test's change
// fires both, as a browser would.
const fireChange = fireEvent.change;
fireEvent.change = (element, init) => {
  fireEvent.input(element, init);
  return fireChange(element, init);
};

// jsdom has no CSS.escape, which TabList calls (it finds a tab by its id,
// from useId); this is the CSSOM's definition for the names it passes, so
// a selector built with it is the browser's.
if (typeof globalThis.CSS === 'undefined') {
  (globalThis as { CSS?: unknown }).CSS = {};
}
if (typeof CSS.escape !== 'function') {
  CSS.escape = (value: string) =>
    String(value).replace(/[^a-zA-Z0-9_\u00A0-\uFFFF-]/g, (c) => `\\${c}`).replace(/^(-?)(\d)/, '$1\\3$2 ');
}

// jsdom's <dialog> has no showModal or close (jsdom#3294). ModalDialog
// needs both; these do what the HTML standard's steps do that a test can
// see: open, the focus to the first element marked autofocus or else the
// first focusable one, and a close event. The top layer, the inert page
// and Escape's close request are the browser's (the e2e journeys test them).
if (typeof HTMLDialogElement.prototype.showModal !== 'function') {
  const focusable = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]';
  HTMLDialogElement.prototype.showModal = function (this: HTMLDialogElement) {
    if (this.open) throw new DOMException('The dialog is already open.', 'InvalidStateError');
    this.setAttribute('open', '');
    const first = this.querySelector<HTMLElement>('[autofocus]') ?? this.querySelector<HTMLElement>(focusable) ?? this;
    first.focus();
  };
  HTMLDialogElement.prototype.close = function (this: HTMLDialogElement) {
    if (!this.open) return;
    this.removeAttribute('open');
    this.dispatchEvent(new Event('close'));
  };
}

// The app fetches a language's words when it is first used (main.tsx
// before the first render), a part at a time (with the pages that use it);
// tests render components straight away, in either language, so all of
// both are here before any test runs.
await Promise.all(LANGUAGES.map(loadLanguage));
await loadParts(PARTS);
await Promise.all(LANGUAGES.map(loadErrors));
