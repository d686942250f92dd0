import { useEffect, useId } from 'react';
import { useI18n } from './i18n/I18nProvider';
import { format, type MessageKey } from './i18n/messages';

// usePageTitle names the browser tab after the page, translated:
// "Room · Friday group — Adventure Table"; page null is the app's name
// alone (the home page). A page may call it before its data has loaded
// (no name) and again in the part that shows the data (with the name):
// a title with a name wins over one without, and among equals the one set
// last. The title follows the language.

interface Entry {
  id: string;
  title: string;
  named: boolean;
  at: number;
}

const entries: Entry[] = [];
let clock = 0;

function show() {
  let best: Entry | undefined;
  for (const e of entries) {
    if (!best || Number(e.named) > Number(best.named) || (e.named === best.named && e.at > best.at)) best = e;
  }
  if (best) document.title = best.title;
}

export function pageTitle(t: (key: MessageKey) => string, page: MessageKey | null, name?: string | null): string {
  const app = t('app.name');
  if (page === null) return app;
  const trimmed = name?.trim();
  const label = trimmed ? format(t('title.named'), { page: t(page), name: trimmed }) : t(page);
  return format(t('title.page'), { page: label, app });
}

export function usePageTitle(page: MessageKey | null, name?: string | null) {
  const { t } = useI18n();
  const id = useId();
  const title = pageTitle(t, page, name);
  const named = !!name?.trim();
  useEffect(() => {
    entries.push({ id, title, named, at: ++clock });
    show();
    return () => {
      const i = entries.findIndex((e) => e.id === id);
      if (i >= 0) entries.splice(i, 1);
      show();
    };
  }, [id, title, named]);
}
