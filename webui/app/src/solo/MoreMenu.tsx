import { EllipsisVertical, type LucideIcon } from 'lucide-react';
import { useId, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { usePressOutside } from './usePressOutside';
import { useRovingFocus } from './useRovingFocus';

export interface MoreItem {
  id: string;
  label: string;
  icon?: LucideIcon;
  onAction: () => void;
  disabled?: boolean;
  testId?: string;
}

// How long typed letters add up to one name to move to (as in a native
// select, and in the ARIA menu pattern's type-ahead).
const typeAheadMs = 600;

// MoreMenu is the play screen's overflow menu (memory, story cards,
// console, settings, export…), an ARIA menu button: the ⋮ button opens it
// upwards from the dock (click, Enter, Space or the arrow keys; ArrowUp
// starts at the last item), the arrow keys, Home, End and typing a name
// move between its enabled items, Enter, Space or a click picks one and
// closes it, Escape closes it and gives focus back to the button, Tab or a
// click beside it closes it. buttonRef reaches the button, for focus to
// come back to it when what an item opened closes.
export function MoreMenu({
  label,
  items,
  buttonRef,
}: {
  label: string;
  items: MoreItem[];
  buttonRef?: RefObject<HTMLButtonElement | null>;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const own = useRef<HTMLButtonElement | null>(null);
  const menu = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLSpanElement>(null);
  const typed = useRef({ text: '', at: 0 });

  const { items: enabled, focusWhenShown, move } = useRovingFocus(menu, '[role="menuitem"]:not([aria-disabled="true"])', open);
  const openAt = (i: number) => {
    setOpen(true);
    focusWhenShown(i);
  };
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) own.current?.focus();
  };

  usePressOutside(frame, open, () => setOpen(false));

  const pick = (item: MoreItem) => {
    if (item.disabled) return;
    close(true);
    item.onAction();
  };

  const typeAhead = (key: string, from: number) => {
    const now = Date.now();
    const t = typed.current;
    t.text = now - t.at < typeAheadMs ? t.text + key.toLowerCase() : key.toLowerCase();
    t.at = now;
    const all = enabled();
    // the next item from the current one whose name starts with what was typed
    for (let step = t.text.length > 1 ? 0 : 1; step <= all.length; step++) {
      const el = all[(from + step) % all.length];
      if (el?.textContent?.trim().toLowerCase().startsWith(t.text)) {
        el.focus();
        return;
      }
    }
  };

  const onMenuKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = enabled().indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') close(true);
    else if (e.key === 'Tab') {
      setOpen(false);
      return; // the focus moves on as Tab moves it
    } else if (e.key.length === 1 && e.key !== ' ' && !e.ctrlKey && !e.metaKey && !e.altKey) typeAhead(e.key, Math.max(at, 0));
    else if (!move(e.key)) return;
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <span className="more-menu" data-testid="more-menu" ref={frame}>
      <button
        type="button"
        className="tool more-menu-toggle"
        aria-label={label}
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        ref={(el) => {
          own.current = el;
          if (buttonRef) buttonRef.current = el;
        }}
        onClick={() => (open ? close(false) : openAt(0))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            openAt(e.key === 'ArrowDown' ? 0 : -1);
          }
        }}
      >
        <EllipsisVertical aria-hidden="true" size={20} />
      </button>
      {open && (
        <div className="more-menu-popover">
          <div className="more-menu-items" id={id} role="menu" aria-label={label} ref={menu} onKeyDown={onMenuKey}>
            {items.map((item) => {
              const { id: key, label: name, icon: Icon, disabled, testId } = item;
              return (
                <div
                  key={key}
                  role="menuitem"
                  tabIndex={-1}
                  aria-disabled={disabled || undefined}
                  data-testid={testId}
                  onClick={() => pick(item)}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' || e.key === ' ') {
                      e.preventDefault();
                      e.stopPropagation();
                      pick(item);
                    }
                  }}
                >
                  {Icon && <Icon aria-hidden="true" size={18} />}
                  {name}
                </div>
              );
            })}
          </div>
        </div>
      )}
    </span>
  );
}
