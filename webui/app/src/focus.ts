import { useLayoutEffect, useState, type RefObject } from 'react';

// focusOnMount is a ref callback (stable, so it runs once per element) that
// gives an element the focus as it enters the page, as a form opened for
// typing should. It also marks it autofocus: a modal dialog that opens
// around it in the same render (ModalDialog) is not shown yet when it
// mounts, and the platform's showModal then focuses the marked element.
// It stands for React's autoFocus prop, which does the first half only.
export function focusOnMount(el: HTMLElement | null) {
  if (!el) return;
  el.autofocus = true;
  el.focus();
}

// A focus that follows a change of state (a form closing, a menu opening)
// moves in a layout effect, in the commit that shows the element: Preact
// runs plain effects a frame later, and a key pressed in that frame would
// go to the element the focus was leaving.

// useFocusAfterRender returns focusAfterRender(ref): the element ref holds
// after the render it causes (a button that comes back as a form closes)
// takes the focus, in that render's commit.
export function useFocusAfterRender() {
  const [target, setTarget] = useState<RefObject<HTMLElement | null> | null>(null);
  useLayoutEffect(() => {
    if (target === null) return;
    target.current?.focus();
    setTarget(null);
  }, [target]);
  return setTarget as (ref: RefObject<HTMLElement | null>) => void;
}
