import { useId, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { useAction } from '../useAction';
import {
  listProviderModels,
  probeInputOf,
  testProvider,
  type ProviderModel,
  type ProviderTestResult,
} from './providerProbe';

// ProviderProbe loads the endpoint's models into a picker beside the model
// field (typing a name stays possible), shows the chosen model's context
// window when the endpoint gives it, and tests the connection. Both use the
// form's values, saved or not.
export function ProviderProbe({
  baseUrl,
  model,
  apiKey,
  clearKey,
  canList,
  onPickModel,
}: {
  baseUrl: string;
  model: string;
  apiKey: string;
  clearKey: boolean;
  // canList is false when the model is already a fixed list (the demo narrator).
  canList: boolean;
  onPickModel: (id: string) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [models, setModels] = useState<ProviderModel[] | null>(null);
  const [result, setResult] = useState<ProviderTestResult | null>(null);
  const loading = useAction();
  const testing = useAction();
  const input = () => probeInputOf(baseUrl, model, apiKey, clearKey);

  const load = async () => {
    const list = await loading.run(() => listProviderModels(input()));
    if (list) setModels(list.models);
  };
  const test = async () => {
    setResult(null);
    const r = await testing.run(() => testProvider(input()));
    if (r) setResult(r);
  };
  const chosen = models?.find((m) => m.id === model.trim());

  // A probe's failure: the endpoint's own reason when the server names one,
  // else the translated code.
  const failure = (a: typeof loading) => {
    if (a.error === null) return null;
    const reason = a.details.reason;
    if (reason === 'model_not_found' || reason === 'no_model_list') {
      return (
        <div className="notice notice-error" role="alert" data-testid="probe-error">
          <p>{t(reason === 'model_not_found' ? 'solo.provider.modelNotFound' : 'solo.provider.noModelList')}</p>
        </div>
      );
    }
    return <ErrorNotice code={a.error} inSettings />;
  };

  return (
    <div className="provider-probe" data-testid="provider-probe">
      {canList && models !== null && models.length > 0 && (
        <div className="field">
          <label className="field-label" htmlFor={`${id}-models`}>
            {t('solo.provider.modelList')}
          </label>
          <select
            id={`${id}-models`}
            value={chosen ? chosen.id : ''}
            onChange={(e) => e.target.value && onPickModel(e.target.value)}
          >
            <option value="">{t('solo.provider.pickModel')}</option>
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
          </select>
        </div>
      )}
      {chosen?.context_length ? (
        <p className="hint" data-testid="context-length">
          {format(t('solo.provider.contextLength'), { tokens: chosen.context_length })}
        </p>
      ) : null}
      <p className="form-actions">
        {canList && (
          <>
            <button type="button" onClick={load} disabled={loading.busy} aria-busy={loading.busy}>
              {t('solo.provider.loadModels')}
            </button>{' '}
          </>
        )}
        <button type="button" onClick={test} disabled={testing.busy} aria-busy={testing.busy}>
          {t('solo.provider.testConnection')}
        </button>{' '}
        <span role="status" className="hint" data-testid="probe-status">
          {result !== null
            ? format(t('solo.provider.testOk'), { model: result.model, ms: result.latency_ms })
            : canList && models !== null && loading.error === null
              ? models.length > 0
                ? format(t('solo.provider.modelsFound'), { count: models.length })
                : t('solo.provider.noModels')
              : ''}
        </span>
      </p>
      <p className="hint">{t('solo.provider.probeHint')}</p>
      {failure(loading)}
      {failure(testing)}
    </div>
  );
}
