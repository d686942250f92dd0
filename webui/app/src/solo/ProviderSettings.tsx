import { useId, useState, type FormEvent } from 'react';
import { ErrorNotice, MODEL_SETTINGS_ID } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { useAction } from '../useAction';
import { useApi } from '../useApi';
import { getProviderSettings, putProviderSettings, type ProviderSettingsInput, type ProviderSettingsView } from './api';
import { ProviderProbe } from './ProviderProbe';

// ProviderSettingsPanel edits the language-model endpoint that narrates solo
// adventures. The API key is write-only: the server never returns it, the
// field starts empty, and the key is sent only when one is typed (or "" when
// the player asks to remove the stored one).
export function ProviderSettingsPanel() {
  const { t } = useI18n();
  const [settings, reload] = useApi(getProviderSettings);
  return (
    <section
      className="panel"
      id={MODEL_SETTINGS_ID}
      tabIndex={-1}
      aria-labelledby="solo-provider-title"
      data-testid="provider-settings"
    >
      <h2 id="solo-provider-title">{t('solo.provider.title')}</h2>
      <p className="hint">{t('solo.provider.intro')}</p>
      {settings.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {settings.state === 'error' && (
        <ErrorNotice code={settings.code} lead={t('solo.provider.failed')} onRetry={reload} inSettings />
      )}
      {settings.state === 'ok' && <ProviderForm initial={settings.data} />}
    </section>
  );
}

interface Draft {
  base_url: string;
  model: string;
  context_budget: string;
  max_output_tokens: string;
  temperature: string;
  top_p: string;
  embedding_model: string;
  memory_top_k: string;
  memory_capacity: string;
  reasoning_effort: ReasoningEffort;
}

// the reasoning_effort values: '' sends none (the endpoint's default)
export const REASONING_EFFORTS = ['', 'low', 'medium', 'high'] as const;
type ReasoningEffort = (typeof REASONING_EFFORTS)[number];
const effortOf = (v: string | undefined): ReasoningEffort =>
  (REASONING_EFFORTS as readonly string[]).includes(v ?? '') ? (v as ReasoningEffort) : '';

const draftOf = (v: ProviderSettingsView): Draft => ({
  base_url: v.base_url,
  model: v.model,
  context_budget: String(v.context_budget),
  max_output_tokens: String(v.max_output_tokens),
  temperature: String(v.temperature),
  top_p: String(v.top_p),
  embedding_model: v.embedding_model ?? '',
  memory_top_k: String(v.memory_top_k ?? ''),
  memory_capacity: String(v.memory_capacity ?? ''),
  reasoning_effort: effortOf(v.reasoning_effort),
});

const num = (s: string) => {
  const n = Number(s.trim());
  return s.trim() === '' || !Number.isFinite(n) ? 0 : n;
};

// providerInputOf builds the PUT body; apiKey is what was typed, clear the
// "remove the stored key" choice.
export function providerInputOf(d: Draft, apiKey: string, clear: boolean): ProviderSettingsInput {
  const input: ProviderSettingsInput = {
    base_url: d.base_url.trim(),
    model: d.model.trim(),
    context_budget: Math.trunc(num(d.context_budget)),
    max_output_tokens: Math.trunc(num(d.max_output_tokens)),
    temperature: num(d.temperature),
    top_p: num(d.top_p),
    // the memory bank: "" recalls with the built-in lexical scorer; 0 is the default
    embedding_model: d.embedding_model.trim(),
    memory_top_k: Math.trunc(num(d.memory_top_k)),
    memory_capacity: Math.trunc(num(d.memory_capacity)),
    // '' sends no reasoning_effort to the model
    reasoning_effort: d.reasoning_effort,
  };
  if (apiKey.trim() !== '') input.api_key = apiKey.trim();
  else if (clear) input.api_key = '';
  return input;
}

// demoModel is the model the demo narrator would use: the chosen one when it
// is on the whitelist, else the default (the first), as the server decides.
export function demoModel(models: readonly string[], chosen: string): string {
  return models.includes(chosen) ? chosen : (models[0] ?? chosen);
}

function ProviderForm({ initial }: { initial: ProviderSettingsView }) {
  const { t } = useI18n();
  const id = useId();
  const [view, setView] = useState(initial);
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial));
  const [apiKey, setApiKey] = useState('');
  const [clearKey, setClearKey] = useState(false);
  const [saved, setSaved] = useState(false);
  const action = useAction();

  const set = (patch: Partial<Draft>) => {
    setSaved(false);
    setDraft((d) => ({ ...d, ...patch }));
  };

  // The server's demo narrator serves a player with no key of their own and
  // the default endpoint: the model is then one of its whitelist.
  const demo = view.demo?.available ? view.demo : null;
  const onDemo = demo !== null && demo.in_use && demo.models.length > 0;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const d = onDemo ? { ...draft, model: demoModel(demo.models, draft.model) } : draft;
    const next = await action.run(() => putProviderSettings(providerInputOf(d, apiKey, clearKey)));
    if (!next) return;
    setView(next);
    setDraft(draftOf(next));
    setApiKey('');
    setClearKey(false);
    setSaved(true);
  };

  const numberField = (key: keyof Draft, label: string, hint: string, min: number, max: number, step: number) => (
    <div className="field">
      <label className="field-label" htmlFor={`${id}-${key}`}>
        {label}
      </label>
      <input
        id={`${id}-${key}`}
        type="number"
        min={min}
        max={max}
        step={step}
        value={draft[key]}
        aria-describedby={`${id}-${key}-hint`}
        onChange={(e) => set({ [key]: e.target.value })}
      />
      <span className="hint" id={`${id}-${key}-hint`}>
        {hint}
      </span>
    </div>
  );

  return (
    <form className="provider-form" onSubmit={submit} noValidate>
      {demo !== null && (
        <p className="hint" data-testid="demo-status">
          {onDemo
            ? format(t('solo.provider.demoInUse'), {
                left: Math.max(0, demo.daily_tokens - demo.used_today),
                total: demo.daily_tokens,
              })
            : t('solo.provider.demoAvailable')}
        </p>
      )}
      <div className="fields">
        <div className="field wide">
          <label className="field-label" htmlFor={`${id}-base_url`}>
            {t('solo.provider.baseUrl')}
          </label>
          <input
            id={`${id}-base_url`}
            type="url"
            value={draft.base_url}
            placeholder="http://127.0.0.1:11434/v1"
            aria-describedby={`${id}-base_url-hint`}
            onChange={(e) => set({ base_url: e.target.value })}
          />
          <span className="hint" id={`${id}-base_url-hint`}>
            {t('solo.provider.baseUrlHint')}
          </span>
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-model`}>
            {t('solo.provider.model')}
          </label>
          {onDemo ? (
            <select
              id={`${id}-model`}
              value={demoModel(demo.models, draft.model)}
              onChange={(e) => set({ model: e.target.value })}
            >
              {demo.models.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          ) : (
            <input id={`${id}-model`} value={draft.model} onChange={(e) => set({ model: e.target.value })} />
          )}
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-key`}>
            {t('solo.provider.apiKey')}
          </label>
          <input
            id={`${id}-key`}
            type="password"
            autoComplete="new-password"
            spellCheck="false"
            value={apiKey}
            placeholder={view.api_key_set ? t('solo.provider.apiKeyReplace') : t('solo.provider.apiKeyNone')}
            aria-describedby={`${id}-key-state`}
            onChange={(e) => {
              setSaved(false);
              setApiKey(e.target.value);
            }}
          />
          <span className="hint" id={`${id}-key-state`} data-testid="api-key-state">
            {view.api_key_set ? t('solo.provider.keyStored') : t('solo.provider.keyNotStored')}
          </span>
          {view.api_key_set && (
            <label className="check">
              <input
                type="checkbox"
                checked={clearKey}
                disabled={apiKey.trim() !== ''}
                onChange={(e) => {
                  setSaved(false);
                  setClearKey(e.target.checked);
                }}
              />
              {t('solo.provider.clearKey')}
            </label>
          )}
        </div>
      </div>
      <ProviderProbe
        baseUrl={draft.base_url}
        model={onDemo ? demoModel(demo.models, draft.model) : draft.model}
        apiKey={apiKey}
        clearKey={clearKey}
        canList={!onDemo}
        onPickModel={(model) => set({ model })}
      />
      <details className="provider-advanced" data-testid="provider-advanced">
        <summary>{t('provider.advanced')}</summary>
        <p className="hint">{t('provider.advancedHint')}</p>
        <div className="fields">
          {numberField('context_budget', t('solo.provider.contextBudget'), t('solo.provider.contextBudgetHint'), 512, 200000, 1)}
          {numberField('max_output_tokens', t('solo.provider.maxOutput'), t('solo.provider.maxOutputHint'), 32, 16000, 1)}
          {numberField('temperature', t('solo.provider.temperature'), t('solo.provider.temperatureHint'), 0, 2, 0.05)}
          {numberField('top_p', t('solo.provider.topP'), t('solo.provider.topPHint'), 0, 1, 0.01)}
          <div className="field">
            <label className="field-label" htmlFor={`${id}-reasoning_effort`}>
              {t('solo.provider.reasoning')}
            </label>
            <select
              id={`${id}-reasoning_effort`}
              value={draft.reasoning_effort}
              aria-describedby={`${id}-reasoning_effort-hint`}
              onChange={(e) => set({ reasoning_effort: effortOf(e.target.value) })}
            >
              {REASONING_EFFORTS.map((e) => (
                <option key={e} value={e}>
                  {t(`solo.provider.reasoning.${e === '' ? 'unset' : e}`)}
                </option>
              ))}
            </select>
            <span className="hint" id={`${id}-reasoning_effort-hint`}>
              {t('solo.provider.reasoningHint')}
            </span>
          </div>
        </div>
        <fieldset className="provider-memory" aria-describedby={`${id}-memory-intro`}>
          <legend>{t('solo.provider.memoryTitle')}</legend>
          <p className="hint" id={`${id}-memory-intro`}>
            {t('solo.provider.memoryIntro')}
          </p>
          <div className="fields">
            <div className="field wide">
              <label className="field-label" htmlFor={`${id}-embedding_model`}>
                {t('solo.provider.embeddingModel')}
              </label>
              <input
                id={`${id}-embedding_model`}
                value={draft.embedding_model}
                maxLength={200}
                spellCheck="false"
                aria-describedby={`${id}-embedding_model-hint`}
                onChange={(e) => set({ embedding_model: e.target.value })}
              />
              <span className="hint" id={`${id}-embedding_model-hint`}>
                {t('solo.provider.embeddingModelHint')}
              </span>
            </div>
            {numberField('memory_top_k', t('solo.provider.memoryTopK'), t('solo.provider.memoryTopKHint'), 1, 20, 1)}
            {numberField(
              'memory_capacity',
              t('solo.provider.memoryCapacity'),
              t('solo.provider.memoryCapacityHint'),
              10,
              10000,
              1,
            )}
          </div>
        </fieldset>
      </details>
      {action.error !== null && <ErrorNotice code={action.error} inSettings />}
      <p className="form-actions">
        <button type="submit" disabled={action.busy}>
          {t('solo.provider.save')}
        </button>{' '}
        <span role="status" className="hint">
          {saved && t('common.saved')}
        </span>
      </p>
    </form>
  );
}
