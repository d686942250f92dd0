import { Keyboard } from 'lucide-react';
import { useId, useLayoutEffect, useRef } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/messages';
import { usePressOutside } from './usePressOutside';

// The play screen's keyboard shortcuts. Send is Enter in the action box
// (TurnInput handles it there); the letter keys act only when no text field
// has focus, so they never fire while the player types.
export const SHORTCUTS: readonly { keys: string; what: MessageKey }[] = [
  { keys: 'Enter', what: 'solo.shortcuts.send' },
  { keys: 'R', what: 'solo.shortcuts.retry' },
  { keys: 'U', what: 'solo.shortcuts.undo' },
  { keys: 'C', what: 'solo.shortcuts.continue' },
  { keys: '?', what: 'solo.shortcuts.help' },
];

export interface ShortcutActions {
  // null: that action is not available now (busy, or nothing to act on)
  retry: (() => void) | null;
  undo: (() => void) | null;
  continue: (() => void) | null;
  help: () => void;
}

// typing: the key goes to a field that takes text (or a select), where a
// letter is the player's, not a shortcut
export function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target as HTMLInputElement).type;
  return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(type);
}

// useShortcuts listens on the document for the letter keys while the page is
// shown; actions.current is read at each key, so the page may fill it in on
// every render (after its loading returns).
// Both the listener and the actions it reads are set in the commit (layout
// effects): Preact runs plain effects a frame later, and a key in that frame
// would find no listener, or the actions of the render before.
export function useShortcuts(latest: { readonly current: ShortcutActions }) {
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing || e.repeat) return;
      if (typing(e.target)) return;
      // a drawer or dialog (Insights, memories, console: a <dialog>) keeps
      // its keys; the shortcuts' own popover does not (? closes it)
      if (e.target instanceof Element && e.target.closest('dialog')) return;
      const a = latest.current;
      let fn: (() => void) | null = null;
      switch (e.key) {
        case 'r':
        case 'R':
          fn = a.retry;
          break;
        case 'u':
        case 'U':
          fn = a.undo;
          break;
        case 'c':
        case 'C':
          fn = a.continue;
          break;
        case '?':
          fn = a.help;
          break;
        default:
          return;
      }
      if (fn === null) return;
      e.preventDefault();
      fn();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [latest]);
}

// ShortcutKeys puts the shortcuts in force while it is rendered, acting
// through actions as of the latest render.
export function ShortcutKeys({ actions }: { actions: ShortcutActions }) {
  const latest = useRef(actions);
  useLayoutEffect(() => {
    latest.current = actions;
  });
  useShortcuts(latest);
  return null;
}

// ShortcutsHelp is the "Shortcuts" button and the popover listing them,
// above it: the button or ? opens it and gives it the focus; the button, ?
// or Escape closes it and gives the focus back to the button, and so does a
// click beside it, leaving the focus where the click put it.
export function ShortcutsHelp({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const { t } = useI18n();
  const id = useId();
  const frame = useRef<HTMLSpanElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const popover = useRef<HTMLDivElement>(null);
  const pressedBeside = useRef(false);
  usePressOutside(frame, open, () => {
    pressedBeside.current = true;
    onOpenChange(false);
  });
  // opening focuses the popover; closing gives the focus back to the
  // button, unless a press beside it closed it
  const wasOpen = useRef(open);
  useLayoutEffect(() => {
    if (open && !wasOpen.current) popover.current?.focus();
    else if (!open && wasOpen.current && !pressedBeside.current) button.current?.focus();
    pressedBeside.current = false;
    wasOpen.current = open;
  }, [open]);
  return (
    <span className="shortcuts" ref={frame}>
      <button
        type="button"
        ref={button}
        aria-keyshortcuts="?"
        className="icon-button"
        aria-label={t('solo.shortcuts')}
        title={`${t('solo.shortcuts')} (?)`}
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => onOpenChange(!open)}
      >
        <Keyboard aria-hidden="true" size={20} />
      </button>
      {open && (
        <div
          id={id}
          ref={popover}
          role="dialog"
          tabIndex={-1}
          className="shortcuts-popover shortcuts-dialog"
          aria-label={t('solo.shortcuts.label')}
          data-testid="shortcuts-help"
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return;
            e.preventDefault();
            e.stopPropagation();
            onOpenChange(false);
          }}
        >
          <dl>
            {SHORTCUTS.map((s) => (
              <div key={s.keys} style={{ display: 'contents' }}>
                <dt>
                  <kbd>{s.keys}</kbd>
                </dt>
                <dd>{t(s.what)}</dd>
              </div>
            ))}
          </dl>
          <p className="hint">{t('solo.shortcuts.note')}</p>
        </div>
      )}
    </span>
  );
}
