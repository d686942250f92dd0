import { useId, useState, type ChangeEvent } from 'react';
import { useNavigate } from 'react-router';
import type { Schemas } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { ModalDialog } from '../components/ModalDialog';
import { format, isMessageKey, type MessageKey } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { apiUpload } from '../identityApi';
import { useAction } from '../useAction';
import { focusOnMount } from '../focus';

// The server reads SillyTavern World Info, character cards (JSON or PNG), AI
// Dungeon exports and NovelAI lorebooks, and answers a preview: the scenario
// it would create, what maps and what does not (codes with params).
export type ImportPreview = Schemas['Preview'];
export type ImportNote = Schemas['Note'];
export type Imported = Schemas['Imported'];

export const previewImport = (file: Blob) => apiUpload<ImportPreview>('/api/imports/preview', file);
export const createImport = (file: Blob) => apiUpload<Imported>('/api/imports', file);

type T = (key: MessageKey) => string;

// known returns the text of a key built from a server code, or the fallback
// when this version has no text for it.
function known(t: T, key: string, fallback: string): string {
  return isMessageKey(key) ? t(key as MessageKey) : fallback;
}

// noteText writes one preview line in the reader's language.
export function noteText(t: T, n: ImportNote): string {
  const p = n.params ?? {};
  const vars: Record<string, string> = { ...p, entry: n.entry ?? '' };
  switch (n.code) {
    case 'field':
    case 'script':
      vars.to = known(t, `solo.import.to.${p.to}`, p.to ?? '');
      break;
    case 'text_clipped':
      vars.where = n.entry ? `${n.entry} (${p.field})` : known(t, `solo.import.to.${p.field}`, p.field ?? '');
      break;
    case 'regex_key':
      vars.reason = known(t, `solo.import.regex.${p.reason}`, p.reason ?? '');
      break;
    case 'field_not_mapped':
      vars.field = p.count ? `${p.field} (${p.count})` : (p.field ?? '');
      vars.reason = known(t, `solo.import.reason.${p.reason}`, p.reason ?? '');
      break;
  }
  const key = `solo.import.note.${n.code}`;
  return isMessageKey(key) ? format(t(key as MessageKey), vars) : [n.code, n.entry, ...Object.values(p)].filter(Boolean).join(' ');
}

const ACCEPT = '.json,.png,.charx,.lorebook,application/json,image/png,application/zip';

// ImportDialog: choose a file, read the server's preview, and import it as
// a new scenario, then open that scenario in the editor.
export function ImportDialog({ onClose }: { onClose: () => void }) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const reading = useAction();
  const importing = useAction();

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0] ?? null;
    setFile(f);
    setPreview(null);
    importing.clear();
    if (!f) return;
    const p = await reading.run(() => previewImport(f));
    if (p) setPreview(p);
  };
  const submit = async () => {
    if (!file) return;
    const r = await importing.run(() => createImport(file));
    if (r) navigate(`/solo/scenarios/${r.scenario.id}`);
  };
  const sc = preview?.scenario;
  const scripts = sc ? Object.values(sc.scripts).filter((s) => s.trim() !== '').length : 0;

  return (
    <ModalDialog kind="dialog" className="dialog import-dialog" labelledBy={`${id}-title`} testId="import-dialog" onClose={onClose}>
      <h2 id={`${id}-title`}>{t('solo.import.title')}</h2>
      <p className="hint">{t('solo.import.hint')}</p>
      <div className="field">
        <label htmlFor={`${id}-file`}>{t('solo.import.file')}</label>
        <input
          id={`${id}-file`}
          ref={focusOnMount}
          type="file"
          accept={ACCEPT}
          onChange={(e) => void onFile(e)}
          data-testid="import-file"
        />
      </div>
      {reading.busy && <p aria-busy="true">{t('solo.import.reading')}</p>}
      {reading.error !== null && <ErrorNotice code={reading.error} lead={t('solo.import.previewFailed')} />}
      {preview && sc && (
        <div data-testid="import-preview">
          <dl className="import-facts">
            <dt>{t('solo.import.format')}</dt>
            <dd data-testid="import-format">{known(t, `solo.import.fmt.${preview.format}`, preview.format)}</dd>
            <dt>{t('solo.import.scenarioTitle')}</dt>
            <dd data-testid="import-title">{preview.title}</dd>
          </dl>
          <p data-testid="import-counts">{format(t('solo.import.counts'), { cards: sc.cards.length, scripts })}</p>
          <h3>{format(t('solo.import.mapped'), { n: preview.mapped.length })}</h3>
          <ul className="import-notes" data-testid="import-mapped">
            {preview.mapped.map((n, i) => (
              <li key={i}>{noteText(t, n)}</li>
            ))}
          </ul>
          <h3>{format(t('solo.import.unmapped'), { n: preview.unmapped.length })}</h3>
          {preview.unmapped.length === 0 ? (
            <p className="hint">{t('solo.import.nothingLost')}</p>
          ) : (
            <ul className="import-notes" data-testid="import-unmapped">
              {preview.unmapped.map((n, i) => (
                <li key={i}>{noteText(t, n)}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {importing.error !== null && <ErrorNotice code={importing.error} lead={t('solo.import.failed')} />}
      <p className="form-actions">
        <button type="button" onClick={() => void submit()} disabled={!preview || importing.busy} data-testid="import-submit">
          {t('solo.import.submit')}
        </button>{' '}
        <button type="button" onClick={onClose}>
          {t('common.cancel')}
        </button>
      </p>
    </ModalDialog>
  );
}
