import { useId, useRef, useState } from 'react';
import { useI18n } from '../i18n/I18nProvider';

// inviteURL is the link a friend opens to join a room.
export const inviteURL = (code: string) => `${window.location.origin}/join/${code}`;

// InviteLink shows an invite link with a Copy button; without a clipboard
// the link is selected for the reader to copy. Keyed by the link, so a new
// link forgets that the old one was copied.
export function InviteLink({ code }: { code: string }) {
  const { t } = useI18n();
  const link = inviteURL(code);
  const input = useRef<HTMLInputElement>(null);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'selected'>('idle');
  const inputId = useId();

  const copy = async () => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(link);
      setCopyState('copied');
    } catch {
      input.current?.focus();
      input.current?.select();
      setCopyState('selected');
    }
  };

  return (
    <>
      <div className="inline-form">
        <label htmlFor={inputId} className="visually-hidden">
          {t('room.invite.label')}
        </label>
        <input
          id={inputId}
          ref={input}
          className="invite-link"
          readOnly
          value={link}
          data-testid="invite-link"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          {t('room.invite.copy')}
        </button>
      </div>
      <p role="status" className="hint">
        {copyState === 'copied' && t('room.invite.copied')}
        {copyState === 'selected' && t('room.invite.selected')}
      </p>
    </>
  );
}
