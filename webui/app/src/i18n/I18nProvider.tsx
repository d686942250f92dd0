import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import {
  errorsLoaded,
  errorText,
  languageLoaded,
  loadErrors,
  loadLanguage,
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

// I18nProvider gives its children the words of the reader's language. It
// shows nothing until that language's dictionary is loaded (main.tsx loads
// it before the first render, so normally at once); a switch keeps the
// current language on screen until the new one has arrived.
export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Language>(storedLanguage);
  const [ready, setReady] = useState(() => languageLoaded(lang));

  useEffect(() => {
    if (ready) return;
    let live = true;
    void loadLanguage(lang).then(() => live && setReady(true));
    return () => {
      live = false;
    };
  }, [lang, ready]);

  useEffect(() => {
    // the tab's title is each page's (usePageTitle), in this language
    document.documentElement.lang = lang;
  }, [lang]);

  // the latest choice wins when two switches race their loads
  const wanted = useRef(lang);
  const setLang = useCallback((next: Language) => {
    storeLanguage(next);
    wanted.current = next;
    if (languageLoaded(next)) {
      setLangState(next);
      return;
    }
    void loadLanguage(next).then(() => {
      if (wanted.current === next) setLangState(next);
    });
  }, []);

  // The error texts load when one is first asked for (no page shows an
  // error at first): until then errorText gives the generic text, and the
  // provider renders again when they are here.
  const [errorsHere, setErrorsHere] = useState(0);
  const value = useMemo<I18n>(
    () => ({
      lang,
      setLang,
      t: (key) => translate(lang, key),
      errorText: (code) => {
        if (!errorsLoaded(lang)) {
          loadErrors(lang).then(
            () => setErrorsHere((n) => n + 1),
            () => {},
          );
        }
        return errorText(lang, code);
      },
    }),
    // errorsHere: a new value once the error texts arrive, for errorText's users
    [lang, setLang, errorsHere],
  );

  if (!ready) return null;
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const ctx = useContext(I18nContext);
  if (!ctx) throw new Error('useI18n must be used inside <I18nProvider>');
  return ctx;
}
