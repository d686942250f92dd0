import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import {
  errorText,
  storeLanguage,
  storedLanguage,
  translate,
  type Language,
  type MessageKey,
} from './messages';

interface I18n {
  lang: Language;
  setLang: (lang: Language) => void;
  t: (key: MessageKey) => string;
  errorText: (code: string | undefined | null) => string;
}

const I18nContext = createContext<I18n | null>(null);

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Language>(storedLanguage);

  useEffect(() => {
    // the tab's title is each page's (usePageTitle), in this language
    document.documentElement.lang = lang;
  }, [lang]);

  const setLang = useCallback((next: Language) => {
    storeLanguage(next);
    setLangState(next);
  }, []);

  const value = useMemo<I18n>(
    () => ({
      lang,
      setLang,
      t: (key) => translate(lang, key),
      errorText: (code) => errorText(lang, code),
    }),
    [lang, setLang],
  );

  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const ctx = useContext(I18nContext);
  if (!ctx) throw new Error('useI18n must be used inside <I18nProvider>');
  return ctx;
}
