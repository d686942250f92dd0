import { CapabilityList } from '../components/CapabilityList';
import { useI18n } from '../i18n/I18nProvider';

export function TablesPage() {
  const { t } = useI18n();
  return (
    <>
      <h1>{t('tables.title')}</h1>
      <div className="empty-state" data-testid="tables-empty">
        <p className="empty-title">{t('tables.empty')}</p>
        <p>{t('tables.explain')}</p>
      </div>
      <CapabilityList />
    </>
  );
}
