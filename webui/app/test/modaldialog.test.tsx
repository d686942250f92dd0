// ModalDialog, every dialog and drawer of the app, on the platform's modal
// <dialog>. jsdom lays nothing out, so Tab's wrapping and the top layer are
// the browser journeys' (e2e/a11y.test.mjs, e2e/solo.test.mjs); this file
// holds what a script sees: where the focus goes, Escape and a press beside.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModalDialog } from '../src/components/ModalDialog';
import { focusOnMount } from '../src/focus';

afterEach(cleanup);

function Page({ kind, onClose }: { kind: 'dialog' | 'drawer'; onClose: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <div>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {open && (
        <ModalDialog
          kind={kind}
          className={kind}
          labelledBy="title"
          testId="frame"
          onClose={() => {
            onClose();
            setOpen(false);
          }}
        >
          <h2 id="title">Request a check</h2>
          <button type="button">First</button>
          <input aria-label="DC" ref={focusOnMount} />
        </ModalDialog>
      )}
    </div>
  );
}

function open(kind: 'dialog' | 'drawer') {
  const onClose = vi.fn();
  render(<Page kind={kind} onClose={onClose} />);
  const opener = screen.getByRole('button', { name: 'Open' });
  opener.focus();
  fireEvent.click(opener);
  return { onClose, opener, dialog: screen.getByRole('dialog', { name: 'Request a check' }) };
}

describe('ModalDialog', () => {
  it('is an open modal <dialog> outside the page, labelled by its title, with the focus on the element marked to take it', () => {
    const { dialog } = open('dialog');
    expect(dialog.tagName).toBe('DIALOG');
    expect((dialog as HTMLDialogElement).open).toBe(true);
    expect(dialog.parentElement).toBe(document.body);
    expect(dialog.getAttribute('data-testid')).toBe('frame');
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'DC' }));
  });

  it('closes on Escape and gives the focus back to what opened it', () => {
    const { dialog, onClose, opener } = open('dialog');
    fireEvent.keyDown(screen.getByRole('textbox', { name: 'DC' }), { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(dialog.isConnected).toBe(false);
    expect(document.activeElement).toBe(opener);
  });

  it('closes on a close request (the cancel event), which it cancels for the page to unmount it', () => {
    const { dialog, onClose } = open('dialog');
    const cancel = new Event('cancel', { cancelable: true });
    fireEvent(dialog, cancel);
    expect(cancel.defaultPrevented).toBe(true);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('a drawer closes on a press beside it, not on one inside it; a dialog keeps its half-filled form', () => {
    // jsdom's boxes are empty: any point is outside the drawer's, and a
    // press on a child is inside whatever its point
    const drawer = open('drawer');
    fireEvent.pointerDown(screen.getByRole('button', { name: 'First' }), { clientX: 50, clientY: 50 });
    expect(drawer.onClose).not.toHaveBeenCalled();
    fireEvent.pointerDown(drawer.dialog, { clientX: 50, clientY: 50 });
    expect(drawer.onClose).toHaveBeenCalledTimes(1);
    expect(drawer.dialog.isConnected).toBe(false);
    cleanup();

    const dialog = open('dialog');
    fireEvent.pointerDown(dialog.dialog, { clientX: 50, clientY: 50 });
    expect(dialog.onClose).not.toHaveBeenCalled();
    expect(dialog.dialog.isConnected).toBe(true);
  });
});
