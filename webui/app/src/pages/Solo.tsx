import { CapabilityList } from '../components/CapabilityList';
import { useI18n } from '../i18n/I18nProvider';

export function SoloPage() {
  const { t } = useI18n();
  return (
    <>
      <h1>{t('solo.title')}</h1>
      <div className="empty-state" data-testid="solo-empty">
        <p className="empty-title">{t('solo.empty')}</p>
        <p>{t('solo.explain')}</p>
      </div>
      <CapabilityList />
    </>
  );
}
