import { Keyboard } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { Dialog, DialogTrigger, Popover, Pressable } from 'react-aria-components';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/messages';

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
export function useShortcuts(latest: { readonly current: ShortcutActions }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing || e.repeat) return;
      if (typing(e.target)) return;
      // a drawer or dialog (Insights, memories, console) keeps its keys; the
      // shortcuts' own popover does not (? closes it)
      if (e.target instanceof Element && e.target.closest('[role="dialog"]:not(.shortcuts-dialog)')) return;
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
  useEffect(() => {
    latest.current = actions;
  });
  useShortcuts(latest);
  return null;
}

// ShortcutsHelp is the "Shortcuts" button and the popover listing them, on
// React Aria's DialogTrigger, Popover and Dialog: the button or ? opens it,
// Escape, the button, ? or a click beside it closes it, and focus returns
// to the button.
export function ShortcutsHelp({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const { t } = useI18n();
  return (
    <span className="shortcuts">
      <DialogTrigger isOpen={open} onOpenChange={onOpenChange}>
        {/* a native button (Pressable): it keeps its title and aria-keyshortcuts */}
        <Pressable>
          <button
            type="button"
            aria-keyshortcuts="?"
            className="icon-button"
            aria-label={t('solo.shortcuts')}
            title={`${t('solo.shortcuts')} (?)`}
          >
            <Keyboard aria-hidden="true" size={20} />
          </button>
        </Pressable>
        <Popover className="shortcuts-popover" placement="top end" offset={5}>
          <Dialog className="shortcuts-dialog" aria-label={t('solo.shortcuts.label')} data-testid="shortcuts-help">
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
          </Dialog>
        </Popover>
      </DialogTrigger>
    </span>
  );
}
