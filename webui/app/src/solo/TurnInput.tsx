import { SendHorizontal, Square } from 'lucide-react';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import type { PlayerMode, TurnInput as TurnBody } from './api';

const MODES: readonly PlayerMode[] = ['do', 'say', 'story'];

// TurnInput is the player's box: a mode (Do / Say / Story), the text, Send.
// onSend resolves true when the turn was saved; only then is the box emptied,
// so a failed turn can be sent again as it was. While the narrator streams
// (stop set), Stop takes Send's place; stopping: Stop was pressed and the
// stream is ending. meter, when given, is shown under the box with the text
// being typed (the token counter).
export function TurnInput({
  disabled,
  onSend,
  stop = null,
  meter,
}: {
  disabled: boolean;
  onSend: (input: TurnBody) => Promise<boolean>;
  stop?: { onStop: () => void; stopping: boolean } | null;
  meter?: (text: string) => ReactNode;
}) {
  const { t } = useI18n();
  const id = useId();
  const [mode, setMode] = useState<PlayerMode>('do');
  const [text, setText] = useState('');

  const send = async () => {
    const body = text.trim();
    if (disabled || body === '') return;
    if (await onSend({ mode, text: body })) setText('');
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send();
  };

  return (
    <form className="solo-input" onSubmit={submit} data-testid="turn-input">
      <fieldset className="mode-switch" disabled={disabled}>
        <legend className="visually-hidden">{t('solo.mode.label')}</legend>
        {MODES.map((m) => (
          <label key={m} className={`mode-option${mode === m ? ' is-chosen' : ''}`}>
            <input type="radio" name={`${id}-mode`} value={m} checked={mode === m} onChange={() => setMode(m)} />
            {t(`solo.mode.${m}`)}
          </label>
        ))}
      </fieldset>
      <div className="input-row">
        <label htmlFor={`${id}-text`} className="visually-hidden">
          {t(`solo.prompt.${mode}`)}
        </label>
        <textarea
          id={`${id}-text`}
          className="message-input"
          rows={2}
          value={text}
          placeholder={t(`solo.prompt.${mode}`)}
          disabled={disabled}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            // Enter sends, Shift+Enter breaks the line; never while an IME composes.
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
        {stop ? (
          <button
            type="button"
            className="stop-button"
            data-testid="stop-turn"
            aria-label={t('solo.stop.label')}
            disabled={stop.stopping}
            onClick={stop.onStop}
          >
            <Square aria-hidden="true" size={16} />
            {stop.stopping ? t('solo.stopping') : t('solo.stop')}
          </button>
        ) : (
          <button type="submit" className="send-button" disabled={disabled || text.trim() === ''}>
            <SendHorizontal aria-hidden="true" size={18} />
            {t('solo.send')}
          </button>
        )}
      </div>
      {meter?.(text)}
    </form>
  );
}
