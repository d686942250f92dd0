import { useRef, useState, type ChangeEvent } from 'react';
import { Link } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { fileName, saveFile } from '../files';
import { format } from '../i18n/messages';
import { exportCharacter, importCharacter, listCharacters, type Character } from '../table/api';
import { useAction } from '../useAction';
import { useApi } from '../useApi';

// characterFileName is the name an exported character is saved under, as
// the server names it: "<name>.character.json".
export function characterFileName(name: string): string {
  return fileName(name, 'character', '.character.json');
}

// downloadCharacter saves one of the caller's characters, as the server
// writes it, under characterFileName.
export async function downloadCharacter(c: Pick<Character, 'id' | 'name'>) {
  const file = await exportCharacter(c.id);
  saveFile(characterFileName(c.name), JSON.stringify(file, null, 2));
}

export function CharactersPage() {
  const { t } = useI18n();
  usePageTitle('title.characters');
  const [chars, reload] = useApi(listCharacters);
  const importing = useAction();
  const exporting = useAction();
  const [imported, setImported] = useState<Character | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = ''; // the same file may be chosen again
    if (!file) return;
    setImported(null);
    exporting.clear();
    const created = await importing.run(() => importCharacter(file));
    if (created) {
      setImported(created);
      reload();
    }
  };
  const onExport = (c: Character) => {
    setImported(null);
    importing.clear();
    void exporting.run(() => downloadCharacter(c));
  };

  return (
    <>
      <h1>{t('characters.title')}</h1>
      <p className="character-file-actions">
        <Link to="/characters/new" className="button-link">
          {t('characters.new')}
        </Link>{' '}
        <button type="button" onClick={() => fileInput.current?.click()} disabled={importing.busy} data-testid="character-import">
          {t('characters.import')}
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,application/json"
          hidden
          onChange={(e) => void onFile(e)}
          data-testid="character-import-file"
          aria-label={t('characters.import')}
        />
      </p>
      {importing.error !== null && <ErrorNotice code={importing.error} lead={t('characters.importFailed')} />}
      {exporting.error !== null && <ErrorNotice code={exporting.error} lead={t('characters.exportFailed')} />}
      {imported && (
        <p className="notice" role="status" data-testid="character-imported">
          {format(t('characters.imported'), { name: imported.name })}{' '}
          <Link to={`/characters/${imported.id}`}>{t('characters.openImported')}</Link>
        </p>
      )}
      {chars.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {chars.state === 'error' && <ErrorNotice code={chars.code} lead={t('characters.failed')} onRetry={reload} />}
      {chars.state === 'ok' &&
        (chars.data.characters.length === 0 ? (
          <div className="empty-state" data-testid="characters-empty">
            <p className="empty-title">{t('characters.empty')}</p>
            <p>{t('characters.explain')}</p>
          </div>
        ) : (
          <ul className="item-list" data-testid="character-list">
            {chars.data.characters.map((c) => (
              <li key={c.id}>
                <Link to={`/characters/${c.id}/sheet`} aria-label={format(t('sheet.openOf'), { name: c.name })}>
                  {c.name}
                </Link>
                <span className="hint">{format(t('common.levelN'), { n: c.level })}</span>
                <Link to={`/characters/${c.id}`} className="button-link" aria-label={format(t('sheet.editOf'), { name: c.name })}>
                  {t('sheet.edit')}
                </Link>
                <button
                  type="button"
                  onClick={() => onExport(c)}
                  disabled={exporting.busy}
                  aria-label={format(t('characters.exportOf'), { name: c.name })}
                >
                  {t('characters.export')}
                </button>
              </li>
            ))}
          </ul>
        ))}
    </>
  );
}
