import { Type } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import { READER_FONTS, READER_SIZES, type ReaderPrefs } from './readerPrefs';

// ReaderOptions is the reader's font and text-size choice: an icon button
// that opens a small panel of two radio groups. Escape or the button closes
// it; the choice applies at once.
export function ReaderOptions({ prefs, onChange }: { prefs: ReaderPrefs; onChange: (p: Partial<ReaderPrefs>) => void }) {
  const { t } = useI18n();
  const id = useId();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <div
      className="reader-options"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.preventDefault();
          setOpen(false);
          button.current?.focus();
        }
      }}
    >
      <button
        type="button"
        ref={button}
        className="icon-button"
        aria-label={t('reader.options')}
        title={t('reader.options')}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
      >
        <Type aria-hidden="true" size={20} />
      </button>
      {open && (
        <div className="reader-options-panel" id={id} data-testid="reader-options">
          <fieldset>
            <legend>{t('reader.font')}</legend>
            {READER_FONTS.map((f) => (
              <label key={f} className={`reader-choice font-${f}${prefs.font === f ? ' is-chosen' : ''}`}>
                <input type="radio" name={`${id}-font`} value={f} checked={prefs.font === f} onChange={() => onChange({ font: f })} />
                {t(`reader.font.${f}`)}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>{t('reader.size')}</legend>
            {READER_SIZES.map((s) => (
              <label key={s} className={`reader-choice${prefs.size === s ? ' is-chosen' : ''}`}>
                <input type="radio" name={`${id}-size`} value={s} checked={prefs.size === s} onChange={() => onChange({ size: s })} />
                {t(`reader.size.${s}`)}
              </label>
            ))}
          </fieldset>
        </div>
      )}
    </div>
  );
}
