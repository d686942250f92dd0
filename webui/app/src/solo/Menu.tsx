import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';

// Menu is a small button that shows a group of action buttons: a turn's
// actions (Fork, Insights, Edit, Delete) and the play screen's overflow
// (memory, story cards, console, settings, export…). The items stay in the
// page; CSS shows them while the menu is open (and, for a turn, while the
// pointer is over it). The button (click, Enter, Space, ArrowDown) opens
// and focuses the first item, the arrow keys and Home/End move between the
// items, Tab walks them, Escape closes and gives focus back to the button;
// leaving the menu with focus closes it. keepOpen holds it open (a delete
// waiting for its confirmation). closeOnPick closes it after an item is
// pressed (the overflow menu; a turn menu stays for its confirmations).
// toggleRef reaches the button, for focus to come back to it when what an
// item opened closes (the item itself is hidden with the menu by then).
export function Menu({
  label,
  itemsLabel,
  toggle: toggleContent,
  keepOpen = false,
  closeOnPick = false,
  className,
  testId,
  toggleRef,
  children,
}: {
  label: string;
  itemsLabel: string;
  toggle: ReactNode;
  keepOpen?: boolean;
  closeOnPick?: boolean;
  className: string;
  testId: string;
  toggleRef?: RefObject<HTMLButtonElement | null>;
  children: ReactNode;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const items = useRef<HTMLDivElement>(null);
  const shown = open || keepOpen;
  const buttons = () => [...(items.current?.querySelectorAll<HTMLButtonElement>('button:not([disabled])') ?? [])];
  const focusAt = (i: number) => {
    const all = buttons();
    if (all.length > 0) all[((i % all.length) + all.length) % all.length]?.focus();
  };
  // opening focuses an item once it shows (a hidden one takes no focus)
  const [focusNext, setFocusNext] = useState<number | null>(null);
  useEffect(() => {
    if (focusNext === null) return;
    focusAt(focusNext);
    setFocusNext(null);
  });
  const openAt = (i: number) => {
    setOpen(true);
    setFocusNext(i);
  };
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  const onItemsKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const all = buttons();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    switch (e.key) {
      case 'ArrowDown':
      case 'ArrowRight':
        focusAt(at + 1);
        break;
      case 'ArrowUp':
      case 'ArrowLeft':
        focusAt(at - 1);
        break;
      case 'Home':
        focusAt(0);
        break;
      case 'End':
        focusAt(-1);
        break;
      case 'Escape':
        close();
        break;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
  };
  return (
    <div
      className={`${className}${shown ? ' is-open' : ''}`}
      data-testid={testId}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        type="button"
        className={`tool ${className}-toggle`}
        ref={(el) => {
          toggle.current = el;
          if (toggleRef) toggleRef.current = el;
        }}
        aria-label={label}
        aria-expanded={shown}
        aria-controls={id}
        onClick={() => (open ? setOpen(false) : openAt(0))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            openAt(0);
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            openAt(-1);
          } else if (e.key === 'Escape' && open) {
            e.preventDefault();
            setOpen(false);
          }
        }}
      >
        {toggleContent}
      </button>
      <div
        className={`${className}-items`}
        id={id}
        ref={items}
        role="group"
        aria-label={itemsLabel}
        onKeyDown={onItemsKey}
        onClick={(e) => {
          if (closeOnPick && e.target instanceof Element && e.target.closest('button')) setOpen(false);
        }}
      >
        {children}
      </div>
    </div>
  );
}
