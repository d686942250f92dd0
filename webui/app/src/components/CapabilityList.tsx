import { CAPABILITY_AREAS, getCapabilities } from '../api';
import { useI18n } from '../i18n/I18nProvider';
import { useApi } from '../useApi';
import { ErrorNotice } from './ErrorNotice';

// CapabilityList shows, for each feature area, whether this server build offers it.
export function CapabilityList() {
  const { t } = useI18n();
  const [caps, reload] = useApi(getCapabilities);
  return (
    <section className="panel" aria-labelledby="caps-title">
      <h2 id="caps-title">{t('caps.title')}</h2>
      {caps.state === 'loading' && <p aria-busy="true">{t('caps.loading')}</p>}
      {caps.state === 'error' && <ErrorNotice code={caps.code} onRetry={reload} />}
      {caps.state === 'ok' && (
        <ul className="capabilities" data-testid="capabilities">
          {CAPABILITY_AREAS.map((area) => {
            const on = caps.data[area] === true;
            return (
              <li key={area} data-capability={area} data-available={on}>
                <span className="cap-name">{t(`caps.${area}`)}</span>
                <span className={on ? 'badge badge-on' : 'badge badge-off'}>
                  {on ? t('caps.available') : t('caps.unavailable')}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
