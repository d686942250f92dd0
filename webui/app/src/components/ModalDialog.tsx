import { useLayoutEffect, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

export interface ModalDialogProps {
  kind: 'dialog' | 'drawer';
  className: string;
  labelledBy: string;
  testId: string;
  onClose: () => void;
  children: ReactNode;
}

// ModalDialog is every dialog and drawer of the app, mounted while open: the
// platform's modal <dialog> (showModal), in the top layer over the page,
// which is inert meanwhile and does not scroll (styles.css). The focus goes
// to the first element in it marked to take it (focusOnMount) or else its
// first focusable one, Tab and Shift+Tab wrap around inside it (the
// platform would let them leave the page for the browser's own controls),
// and the focus goes back to where it was when it closes. Escape closes it. A dialog (kind 'dialog') sits in the middle over a dimmed page
// and closes only by its own buttons or Escape (a click beside a
// half-filled form does not lose it); a drawer (kind 'drawer') takes the
// right edge and a press beside it closes it too. className is the dialog's
// own (dialog … or drawer …), labelledBy the id of its title, testId its
// data-testid.
// What Tab reaches: enabled controls and links, and what has a tabindex of
// 0 or more, if shown.
const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

// wrapTab moves the focus from the dialog's last tabbable element to its
// first on Tab, and from the first (or the dialog itself) to the last on
// Shift+Tab; between them Tab goes its own way.
function wrapTab(e: KeyboardEvent<HTMLDialogElement>) {
  const dialog = e.currentTarget;
  const all = [...dialog.querySelectorAll<HTMLElement>(TABBABLE)].filter((el) => el.tabIndex >= 0 && el.getClientRects().length > 0);
  const first = all[0];
  const last = all[all.length - 1];
  if (!first || !last) return;
  const at = document.activeElement;
  if (e.shiftKey && (at === first || at === dialog)) last.focus();
  else if (!e.shiftKey && at === last) first.focus();
  else return;
  e.preventDefault();
}

export function ModalDialog({ kind, className, labelledBy, testId, onClose, children }: ModalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  // where the focus was as the dialog was first rendered, before anything
  // in it (focusOnMount) could take it
  const [before] = useState(() => document.activeElement);
  useLayoutEffect(() => {
    const dialog = ref.current!;
    dialog.showModal();
    return () => {
      // the page is inert until the dialog leaves the top layer
      dialog.close();
      if (before instanceof HTMLElement && before.isConnected) before.focus();
    };
  }, [before]);
  const pressBeside = (e: MouseEvent<HTMLDialogElement>) => {
    // a press on the backdrop is the dialog's own, outside its box
    if (kind !== 'drawer' || e.target !== e.currentTarget) return;
    const box = e.currentTarget.getBoundingClientRect();
    if (e.clientX >= box.left && e.clientX <= box.right && e.clientY >= box.top && e.clientY <= box.bottom) return;
    // the press is spent on closing: the page under it does not take the
    // focus from the element the drawer gives it back to
    e.preventDefault();
    onClose();
  };
  return createPortal(
    <dialog
      ref={ref}
      className={className}
      aria-labelledby={labelledBy}
      data-testid={testId}
      onCancel={(e) => {
        // a close request (Escape, a phone's Back) asks the page to unmount it
        e.preventDefault();
        onClose();
      }}
      onKeyDown={(e) => {
        if (e.defaultPrevented) return;
        if (e.key === 'Tab') wrapTab(e);
        else if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          onClose();
        }
      }}
      onPointerDown={pressBeside}
    >
      {children}
    </dialog>,
    document.body,
  );
}
