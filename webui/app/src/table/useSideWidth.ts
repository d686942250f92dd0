import { useCallback, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';

export const SIDE_WIDTH_KEY = 'adventure-table.sidePanelWidth';
export const SIDE_WIDTH_DEFAULT = 380;
export const SIDE_WIDTH_MIN = 260;
export const SIDE_WIDTH_MAX = 900;
// the stage keeps at least this much room
const STAGE_MIN = 320;
const KEY_STEP = 24;

function stored(): number | null {
  try {
    const v = Number(globalThis.localStorage?.getItem(SIDE_WIDTH_KEY));
    return Number.isFinite(v) && v > 0 ? v : null;
  } catch {
    return null;
  }
}

function store(w: number) {
  try {
    globalThis.localStorage?.setItem(SIDE_WIDTH_KEY, String(w));
  } catch {
    // storage unavailable: the width lasts for this page only
  }
}

// useSideWidth is the width of the table's right panel, changed by dragging
// (or arrow keys on) the divider and remembered in localStorage.
export function useSideWidth() {
  const containerRef = useRef<HTMLDivElement>(null);
  const [width, setWidthState] = useState(() => clampStatic(stored() ?? SIDE_WIDTH_DEFAULT));
  const widthRef = useRef(width);
  const dragging = useRef(false);

  const clamp = useCallback((w: number) => {
    const total = containerRef.current?.getBoundingClientRect().width ?? 0;
    const max = total > 0 ? Math.max(SIDE_WIDTH_MIN, Math.min(SIDE_WIDTH_MAX, total - STAGE_MIN)) : SIDE_WIDTH_MAX;
    return Math.round(Math.min(max, Math.max(SIDE_WIDTH_MIN, w)));
  }, []);

  const setWidth = useCallback(
    (w: number) => {
      const c = clamp(w);
      widthRef.current = c;
      setWidthState(c);
      return c;
    },
    [clamp],
  );

  const onPointerDown = useCallback((e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    dragging.current = true;
    e.currentTarget.setPointerCapture?.(e.pointerId);
  }, []);
  const onPointerMove = useCallback(
    (e: PointerEvent<HTMLDivElement>) => {
      if (!dragging.current || !containerRef.current) return;
      const rect = containerRef.current.getBoundingClientRect();
      setWidth(rect.right - e.clientX);
    },
    [setWidth],
  );
  const onPointerUp = useCallback((e: PointerEvent<HTMLDivElement>) => {
    if (!dragging.current) return;
    dragging.current = false;
    e.currentTarget.releasePointerCapture?.(e.pointerId);
    store(widthRef.current);
  }, []);
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      // the divider sits left of the panel: moving it left widens the panel
      const delta = e.key === 'ArrowLeft' ? KEY_STEP : e.key === 'ArrowRight' ? -KEY_STEP : 0;
      if (delta === 0) return;
      e.preventDefault();
      store(setWidth(widthRef.current + delta));
    },
    [setWidth],
  );

  return {
    containerRef,
    width,
    separatorProps: {
      role: 'separator' as const,
      tabIndex: 0,
      'aria-orientation': 'vertical' as const,
      'aria-valuenow': width,
      'aria-valuemin': SIDE_WIDTH_MIN,
      'aria-valuemax': SIDE_WIDTH_MAX,
      onPointerDown,
      onPointerMove,
      onPointerUp,
      onPointerCancel: onPointerUp,
      onKeyDown,
    },
  };
}

function clampStatic(w: number) {
  return Math.round(Math.min(SIDE_WIDTH_MAX, Math.max(SIDE_WIDTH_MIN, w)));
}
