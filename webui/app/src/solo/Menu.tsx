import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useRovingFocus } from './useRovingFocus';

// Menu is a small button that shows a group of a turn's tools (Fork,
// Insights, Edit, Delete). It is not an ARIA menu (the play screen's
// overflow is one: MoreMenu): the tools stay in the page beside the turn,
// CSS shows them while the group is open and while the pointer is over the
// turn, and Delete asks for its confirmation inside the group. The button
// (click, Enter, Space, ArrowDown) opens it and focuses the first tool, the
// arrow keys and Home/End move between the tools, Tab walks them, Escape
// closes and gives focus back to the button; leaving the group with focus
// closes it, unless for a dialog a tool opened. keepOpen holds it open (a delete waiting for its confirmation).
export function Menu({
  label,
  itemsLabel,
  toggle: toggleContent,
  keepOpen = false,
  className,
  testId,
  children,
}: {
  label: string;
  itemsLabel: string;
  toggle: ReactNode;
  keepOpen?: boolean;
  className: string;
  testId: string;
  children: ReactNode;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const items = useRef<HTMLDivElement>(null);
  const shown = open || keepOpen;
  const { focusWhenShown, move } = useRovingFocus(items, 'button:not([disabled])', shown, true);
  const openAt = (i: number) => {
    setOpen(true);
    focusWhenShown(i);
  };
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  const onItemsKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') close();
    else if (!move(e.key)) return;
    e.preventDefault();
    e.stopPropagation();
  };
  return (
    <div
      className={`${className}${shown ? ' is-open' : ''}`}
      data-testid={testId}
      onBlur={(e) => {
        const to = e.relatedTarget as Element | null;
        // a tool's dialog (Insights) takes the focus and gives it back to
        // the tool: the group stays open for it meanwhile
        if (!e.currentTarget.contains(to) && !to?.closest('dialog')) setOpen(false);
      }}
    >
      <button
        type="button"
        className={`tool ${className}-toggle`}
        ref={toggle}
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
      >
        {children}
      </div>
    </div>
  );
}
