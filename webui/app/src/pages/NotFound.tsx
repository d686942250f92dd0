import { Link } from 'react-router';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';

export function NotFoundPage() {
  const { t } = useI18n();
  usePageTitle('title.notFound');
  return (
    <>
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.body')}</p>
      <p>
        <Link to="/">{t('notFound.home')}</Link>
      </p>
    </>
  );
}
