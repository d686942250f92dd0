import { useId, useState } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import { THEMES, chooseTheme, isTheme, storedTheme, type Theme } from '../theme';

// ThemeSelect picks the colour theme: the system's, light or dark.
export function ThemeSelect() {
  const { t } = useI18n();
  const id = useId();
  const [theme, setTheme] = useState<Theme>(storedTheme);
  return (
    <span className="language-select">
      <label htmlFor={id}>{t('theme.label')}</label>
      <select
        id={id}
        value={theme}
        onChange={(e) => {
          if (!isTheme(e.target.value)) return;
          chooseTheme(e.target.value);
          setTheme(e.target.value);
        }}
      >
        {THEMES.map((x) => (
          <option key={x} value={x}>
            {t(`theme.${x}`)}
          </option>
        ))}
      </select>
    </span>
  );
}
