import { Link } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { format } from '../i18n/messages';
import { listCharacters } from '../table/api';
import { useApi } from '../useApi';

export function CharactersPage() {
  const { t } = useI18n();
  usePageTitle('title.characters');
  const [chars, reload] = useApi(listCharacters);
  return (
    <>
      <h1>{t('characters.title')}</h1>
      <p>
        <Link to="/characters/new" className="button-link">
          {t('characters.new')}
        </Link>
      </p>
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
                <Link to={`/characters/${c.id}`}>{c.name}</Link>
                <span className="hint">{format(t('common.levelN'), { n: c.level })}</span>
              </li>
            ))}
          </ul>
        ))}
    </>
  );
}
