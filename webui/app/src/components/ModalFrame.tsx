import type { ModalDialogProps } from './ModalDialog';
import { Dialog, Modal, ModalOverlay } from 'react-aria-components';

// ModalFrame is every dialog and drawer of the app (see ModalDialog), on React Aria's
// ModalOverlay, Modal and Dialog: focus stays inside while it is open (the
// page behind is inert), Escape closes it, focus goes back to where it was,
// and the page under it does not scroll. A dialog (kind 'dialog') sits in
// the middle over a dimmed page and closes only by its own buttons or
// Escape (a click beside a half-filled form does not lose it); a drawer
// (kind 'drawer') takes the right edge and a click beside it closes it too.
// className is the dialog's own (dialog … or drawer …), labelledBy the id
// of its title, testId its data-testid. React Aria sets its few styles
// through the DOM (our CSP allows that) and adds no <style> element (see
// the pressable marker in index.html).
export function ModalFrame({
  kind,
  className,
  labelledBy,
  testId,
  onClose,
  children,
}: ModalDialogProps) {
  return (
    <ModalOverlay
      isOpen
      isDismissable={kind === 'drawer'}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      className={`${kind}-backdrop`}
    >
      <Modal className="modal-frame">
        <Dialog className={className} aria-labelledby={labelledBy} data-testid={testId}>
          {children}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
