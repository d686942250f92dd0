import { useEffect, useRef, useState } from 'react';

// How far (px) the page must move one way before the header follows, and
// how near the top it always shows.
const TRAVEL = 24;
const TOP = 64;

// useHeadroom says whether the app header should get out of the way: after
// the reader scrolls the page down by a little, until they scroll up by a
// little (or come near the top). The header stays in the layout (sticky,
// moved by a transform), so nothing under it jumps. show() brings it back,
// for keyboard focus entering it.
export function useHeadroom(): { hidden: boolean; show: () => void } {
  const [hidden, setHidden] = useState(false);
  const hiddenRef = useRef(false);
  useEffect(() => {
    // the turning point: the lowest point while shown, the highest while hidden
    let turn = window.scrollY;
    const set = (h: boolean) => {
      hiddenRef.current = h;
      setHidden(h);
    };
    const onScroll = () => {
      const y = window.scrollY;
      if (y <= TOP) {
        turn = y;
        if (hiddenRef.current) set(false);
        return;
      }
      if (hiddenRef.current) {
        if (y > turn) turn = y;
        else if (turn - y > TRAVEL) {
          set(false);
          turn = y;
        }
      } else if (y < turn) turn = y;
      else if (y - turn > TRAVEL) {
        set(true);
        turn = y;
      }
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  const show = () => {
    hiddenRef.current = false;
    setHidden(false);
  };
  return { hidden, show };
}
