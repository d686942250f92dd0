import { useCallback, useId, useState, type FormEvent } from 'react';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { ModalDialog } from '../components/ModalDialog';
import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { claudeConfig, CopyField, mcpUrl, sdkSnippet } from '../table/ai';
import { useAction } from '../useAction';
import { useApi } from '../useApi';
import {
  getSoloGrants,
  mintSoloGrant,
  revokeSoloGrant,
  type MintedSoloGrant,
  type SoloGrantOwner,
  type SoloGrantView,
} from './api';
import { focusOnMount } from '../focus';

const DAYS = [7, 30, 90, 365] as const;

const dateOf = (iso: string, lang: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString(lang, { year: 'numeric', month: 'short', day: 'numeric' });
};

// AgentAccess is the drawer in which the owner of an adventure (or a
// scenario) gives an AI agent a token for it, sees the tokens given and
// revokes them. A new token is shown once, with what an MCP client needs;
// closing the drawer forgets it.
export function AgentAccess({ owner, id, onClose }: { owner: SoloGrantOwner; id: number; onClose: () => void }) {
  const { t, lang } = useI18n();
  const uid = useId();
  const load = useCallback((signal: AbortSignal) => getSoloGrants(owner, id, signal), [owner, id]);
  const [list, reload] = useApi(load);
  const [label, setLabel] = useState('');
  const [days, setDays] = useState<number>(30);
  const [minted, setMinted] = useState<MintedSoloGrant | null>(null);
  const action = useAction();

  const create = async (e: FormEvent) => {
    e.preventDefault();
    const m = await action.run(() => mintSoloGrant(owner, id, { label: label.trim(), days }));
    if (m) {
      setMinted(m);
      setLabel('');
      reload();
    }
  };
  const revoke = async (g: SoloGrantView) => {
    if (await action.run(() => revokeSoloGrant(g.id))) {
      if (minted?.grant.id === g.id) setMinted(null);
      reload();
    }
  };
  const url = mcpUrl();
  const grants = list.state === 'ok' ? list.data.grants : [];
  const nameOf = (g: SoloGrantView) => (g.label !== '' ? g.label : t('agents.unnamed'));

  return (
    <ModalDialog kind="drawer" className="drawer agents-drawer" labelledBy={`${uid}-title`} testId="agents-panel" onClose={onClose}>
      <div className="drawer-head">
        <h2 id={`${uid}-title`}>{t('agents.title')}</h2>
        <span className="drawer-tools">
          <button type="button" ref={focusOnMount} onClick={onClose}>
            {t('agents.close')}
          </button>
        </span>
      </div>
      <p className="hint">{t(owner === 'adventures' ? 'agents.introAdventure' : 'agents.introScenario')}</p>

      {minted ? (
        <section className="agents-new" aria-labelledby={`${uid}-new`} data-testid="agents-new">
          <h3 id={`${uid}-new`}>{t('agents.newTitle')}</h3>
          <p className="notice notice-warn" role="note">
            <strong>{t('agents.once')}</strong>
          </p>
          <CopyField label={t('ai.token.token')} value={minted.token} testId="ai-token" />
          <CopyField label={t('ai.token.mcpUrl')} value={url} testId="mcp-url" />
          <CopyField label={t('ai.token.configClaude')} value={claudeConfig(url, minted.token)} testId="config-claude" multiline />
          <CopyField
            label={t('ai.token.configSdk')}
            value={sdkSnippet(url, minted.token, owner === 'adventures' ? 'read_story' : 'get_scenario')}
            testId="config-sdk"
            multiline
          />
          <p>
            <button type="button" onClick={() => setMinted(null)}>
              {t('agents.done')}
            </button>
          </p>
        </section>
      ) : (
        <form className="agents-form" onSubmit={create} aria-label={t('agents.create')}>
          <div className="field">
            <label htmlFor={`${uid}-label`}>{t('agents.label')}</label>
            <input
              id={`${uid}-label`}
              value={label}
              maxLength={80}
              onChange={(e) => setLabel(e.target.value)}
              aria-describedby={`${uid}-label-hint`}
              aria-invalid={'label' in action.fields}
            />
            <p className="hint" id={`${uid}-label-hint`}>
              {t('agents.labelHint')}
            </p>
          </div>
          <div className="field">
            <label htmlFor={`${uid}-days`}>{t('agents.days')}</label>
            <select id={`${uid}-days`} value={days} onChange={(e) => setDays(Number(e.target.value))}>
              {DAYS.map((n) => (
                <option key={n} value={n}>
                  {format(t('agents.daysN'), { n: String(n) })}
                </option>
              ))}
            </select>
          </div>
          <p>
            <button type="submit" className="primary" disabled={action.busy}>
              {t('agents.create')}
            </button>
          </p>
        </form>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}

      <h3>{t('agents.list')}</h3>
      {list.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {list.state === 'error' && <ErrorNotice code={list.code} lead={t('agents.failed')} onRetry={reload} />}
      {list.state === 'ok' && grants.length === 0 && <p className="hint">{t('agents.none')}</p>}
      {grants.length > 0 && (
        <ul className="agents-list" data-testid="agents-list">
          {grants.map((g) => (
            <li key={g.id} data-testid="agent-grant" data-status={g.status}>
              <div>
                <strong>{nameOf(g)}</strong> <code>{g.display_prefix}</code>
                <p className="hint">
                  <span className={`agent-status agent-${g.status}`}>
                    {t(g.status === 'active' ? 'agents.status.active' : g.status === 'revoked' ? 'agents.status.revoked' : 'agents.status.expired')}
                  </span>
                  {g.status === 'active' && <>{' · '}{format(t('agents.expires'), { date: dateOf(g.expires_at, lang) })}</>}
                  {' · '}
                  {g.last_seen_at ? format(t('agents.lastSeen'), { date: dateOf(g.last_seen_at, lang) }) : t('agents.neverSeen')}
                </p>
              </div>
              {g.status === 'active' && (
                <ConfirmButton
                  question={t('agents.revokeAsk')}
                  yes={t('agents.revokeYes')}
                  disabled={action.busy}
                  onConfirm={() => revoke(g)}
                  testId="agent-revoke"
                  label={format(t('agents.revokeWhat'), { what: nameOf(g) })}
                >
                  {t('agents.revoke')}
                </ConfirmButton>
              )}
            </li>
          ))}
        </ul>
      )}
    </ModalDialog>
  );
}
