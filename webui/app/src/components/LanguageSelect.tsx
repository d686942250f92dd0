import { useId } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import { LANGUAGES, isLanguage } from '../i18n/messages';

// LanguageSelect switches the UI language; the choice is kept in localStorage.
export function LanguageSelect({ label }: { label?: string }) {
  const { lang, setLang, t } = useI18n();
  const id = useId();
  return (
    <span className="language-select">
      <label htmlFor={id}>{label ?? t('lang.label')}</label>
      <select
        id={id}
        value={lang}
        onChange={(e) => {
          if (isLanguage(e.target.value)) setLang(e.target.value);
        }}
      >
        {LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {t(`lang.${l}`)}
          </option>
        ))}
      </select>
    </span>
  );
}
