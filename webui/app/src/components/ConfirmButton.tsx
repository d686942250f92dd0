import { useId, useRef, useState, type ReactNode } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import { useFocusAfterRender } from '../focus';

// ConfirmButton asks before an action that cannot be undone: the button
// opens a small confirmation row (a question, "Yes, …" and Cancel) in its
// place; "Yes" is focused, Escape or Cancel closes the row and gives the
// focus back to the button. Nothing is sent until "Yes".
export function ConfirmButton({
  children,
  question,
  yes,
  disabled,
  onConfirm,
  testId,
  label,
  className,
}: {
  children: ReactNode;
  question: string;
  yes: string;
  disabled?: boolean;
  onConfirm: () => unknown;
  testId?: string;
  // the button's name and tooltip when its children are an icon only
  label?: string;
  className?: string;
}) {
  const { t } = useI18n();
  const [asking, setAsking] = useState(false);
  // where the focus goes once the row has re-rendered
  const focusAfterRender = useFocusAfterRender();
  const button = useRef<HTMLButtonElement>(null);
  const yesButton = useRef<HTMLButtonElement>(null);
  const id = useId();

  const cancel = () => {
    setAsking(false);
    focusAfterRender(button);
  };

  if (!asking) {
    return (
      <button
        ref={button}
        type="button"
        disabled={disabled}
        data-testid={testId}
        aria-label={label}
        title={label}
        className={className}
        onClick={() => {
          setAsking(true);
          focusAfterRender(yesButton);
        }}
      >
        {children}
      </button>
    );
  }
  return (
    <span
      className="confirm-row"
      role="alertdialog"
      aria-labelledby={`${id}-q`}
      data-testid={testId ? `${testId}-confirm` : undefined}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          cancel();
        }
      }}
    >
      <span id={`${id}-q`} className="confirm-question">
        {question}
      </span>{' '}
      <button
        ref={yesButton}
        type="button"
        className="danger"
        disabled={disabled}
        onClick={() => {
          setAsking(false);
          focusAfterRender(button);
          void onConfirm();
        }}
      >
        {yes}
      </button>{' '}
      <button type="button" onClick={cancel}>
        {t('common.cancel')}
      </button>
    </span>
  );
}
