import { useEffect, useRef, type RefObject } from 'react';

// usePressOutside calls onOutside when, while open, a pointer presses
// anywhere outside frame (a popup and the button that opens it), as a
// click beside a menu or a popover closes it; the focus stays where that
// press put it.
export function usePressOutside(frame: RefObject<HTMLElement | null>, open: boolean, onOutside: () => void) {
  const latest = useRef(onOutside);
  latest.current = onOutside;
  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (!frame.current?.contains(e.target as Node)) latest.current();
    };
    document.addEventListener('pointerdown', onDown, true);
    return () => document.removeEventListener('pointerdown', onDown, true);
  }, [frame, open]);
}
