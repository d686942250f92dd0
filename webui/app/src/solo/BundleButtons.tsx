import { useRef, useState, type ChangeEvent } from 'react';
import { Link } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { useAction } from '../useAction';
import { downloadBundle, importAdventureBundle, importScenarioBundle, type BundleKind } from './bundles';

// ExportBundleButton downloads an adventure or a scenario as a bundle.
export function ExportBundleButton({
  kind,
  id,
  title,
  label,
  disabled,
}: {
  kind: BundleKind;
  id: number;
  title: string;
  label?: string;
  disabled?: boolean;
}) {
  const { t } = useI18n();
  const action = useAction();
  return (
    <>
      <button
        type="button"
        onClick={() => void action.run(() => downloadBundle(kind, id, title))}
        disabled={disabled || action.busy}
        // a list names the item; a label of its own names it already
        aria-label={label === undefined ? format(t('solo.bundle.exportOf'), { title }) : undefined}
        data-testid={`${kind}-export`}
      >
        {label ?? t('solo.bundle.export')}
      </button>
      {action.error !== null && <ErrorNotice code={action.error} lead={t('solo.bundle.exportFailed')} />}
    </>
  );
}

// ImportBundleButton sends a chosen bundle file to the server and announces
// the new adventure or scenario with a link to it.
export function ImportBundleButton({ kind, onImported }: { kind: BundleKind; onImported: () => void }) {
  const { t } = useI18n();
  const action = useAction();
  const input = useRef<HTMLInputElement>(null);
  const [made, setMade] = useState<{ title: string; to: string } | null>(null);
  const label = t(kind === 'adventure' ? 'solo.bundle.importAdventure' : 'solo.bundle.importScenario');

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = ''; // the same file may be chosen again
    if (!file) return;
    setMade(null);
    if (kind === 'adventure') {
      const page = await action.run(() => importAdventureBundle(file));
      if (!page) return;
      setMade({ title: page.adventure.title, to: `/solo/adventures/${page.adventure.id}` });
    } else {
      const sc = await action.run(() => importScenarioBundle(file));
      if (!sc) return;
      setMade({ title: sc.title, to: `/solo/scenarios/${sc.id}` });
    }
    onImported();
  };

  return (
    <>
      <button type="button" onClick={() => input.current?.click()} disabled={action.busy} data-testid={`${kind}-import`}>
        {label}
      </button>
      <input
        ref={input}
        type="file"
        accept=".json,application/json"
        hidden
        onChange={(e) => void onFile(e)}
        data-testid={`${kind}-import-file`}
        aria-label={label}
      />
      {action.error !== null && <ErrorNotice code={action.error} lead={t('solo.bundle.importFailed')} />}
      {made && (
        <p className="notice" role="status" data-testid={`${kind}-imported`}>
          {format(t(kind === 'adventure' ? 'solo.bundle.importedAdventure' : 'solo.bundle.importedScenario'), {
            title: made.title,
          })}{' '}
          <Link to={made.to}>{t('solo.bundle.open')}</Link>
        </p>
      )}
    </>
  );
}
