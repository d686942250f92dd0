import { useLayoutEffect, useState, type RefObject } from 'react';

// useRovingFocus moves the focus between the items of a small popup group
// (the turn's tool group, the overflow menu): the elements under container
// that match selector, in page order. focusAt(i) focuses the i-th, counting
// from the end when negative and wrapping past either end; focusWhenShown(i)
// does it as the next render commits, while shown, for a group that is only
// about to appear (a hidden element takes no focus); move(key) handles
// ArrowDown/ArrowUp (and ArrowRight/ArrowLeft with sideways), Home and End,
// and says whether it did.
export function useRovingFocus(container: RefObject<HTMLElement | null>, selector: string, shown: boolean, sideways = false) {
  const items = () => [...(container.current?.querySelectorAll<HTMLElement>(selector) ?? [])];
  const focusAt = (i: number) => {
    const all = items();
    if (all.length > 0) all[((i % all.length) + all.length) % all.length]?.focus();
  };
  const [pending, setPending] = useState<number | null>(null);
  useLayoutEffect(() => {
    if (!shown || pending === null) return;
    focusAt(pending);
    setPending(null);
  });
  const move = (key: string): boolean => {
    const at = items().indexOf(document.activeElement as HTMLElement);
    if (key === 'ArrowDown' || (sideways && key === 'ArrowRight')) focusAt(at + 1);
    else if (key === 'ArrowUp' || (sideways && key === 'ArrowLeft')) focusAt(at - 1);
    else if (key === 'Home') focusAt(0);
    else if (key === 'End') focusAt(-1);
    else return false;
    return true;
  };
  return { items, focusAt, focusWhenShown: setPending, move };
}
