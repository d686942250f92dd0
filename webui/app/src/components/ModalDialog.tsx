import { Suspense, type ReactNode } from 'react';
import { lazyPart } from '../lazy';

export interface ModalDialogProps {
  kind: 'dialog' | 'drawer';
  className: string;
  labelledBy: string;
  testId: string;
  onClose: () => void;
  children: ReactNode;
}

// React Aria's overlays are a large script that no page needs until a
// dialog opens: it is fetched then (and at once the next time).
const Frame = lazyPart(() => import('./ModalFrame'), 'ModalFrame');

// ModalDialog is every dialog and drawer of the app: see ModalFrame. It is
// mounted while open. The first one opened may take a moment to appear
// while its script arrives; the page stays as it was meanwhile.
export function ModalDialog(props: ModalDialogProps) {
  return (
    <Suspense fallback={null}>
      <Frame {...props} />
    </Suspense>
  );
}
