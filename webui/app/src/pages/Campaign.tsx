import { BookOpen, Download, Skull, Swords } from 'lucide-react';
import { useCallback } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { fileName, saveFile } from '../files';
import { exportCampaign, getTimeline, type CampaignTimeline, type SessionStatus } from '../table/api';
import { useAction } from '../useAction';
import { JournalPanel } from '../table/Journal';
import { useApi } from '../useApi';
import { usePageTitle } from '../usePageTitle';
import { NotFoundPage } from './NotFound';

// CampaignPage is a campaign's story so far: each session with the recap
// that opened it, its fights, who fell and what it added to the journal;
// then the journal itself.
export function CampaignPage() {
  const { id } = useParams();
  const campaignId = Number(id);
  usePageTitle('title.campaign');
  if (!Number.isSafeInteger(campaignId) || campaignId <= 0) return <NotFoundPage />;
  return <CampaignStory campaignId={campaignId} />;
}

function CampaignStory({ campaignId }: { campaignId: number }) {
  const { t } = useI18n();
  const load = useCallback((signal: AbortSignal) => getTimeline(campaignId, signal), [campaignId]);
  const [timeline, reload] = useApi(load);
  if (timeline.state === 'loading') return <p role="status">{t('common.loading')}</p>;
  if (timeline.state === 'error') return <ErrorNotice code={timeline.code} lead={t('timeline.failed')} onRetry={reload} />;
  return (
    <div className="campaign-page">
      <Timeline data={timeline.data} />
      <JournalPanel campaignId={campaignId} />
    </div>
  );
}

function Timeline({ data }: { data: CampaignTimeline }) {
  const { t, lang } = useI18n();
  usePageTitle('title.campaign', data.campaign_name);
  const exporting = useAction();
  // the file as the server writes it for this reader, named as the server names it
  const download = async () => {
    const file = await exportCampaign(data.campaign_id);
    saveFile(fileName(data.campaign_name, 'campaign', '.campaign.json'), JSON.stringify(file, null, 2));
  };
  const day = (at: string | null | undefined) => (at ? new Date(at).toLocaleDateString(lang, { year: 'numeric', month: 'short', day: 'numeric' }) : '');
  return (
    <section className="timeline" aria-labelledby="timeline-title" data-testid="timeline">
      <p className="crumbs">
        <Link to={`/rooms/${data.room_id}`}>{t('journal.page.back')}</Link>
      </p>
      <div className="campaign-head">
        <h1>{data.campaign_name}</h1>
        <button type="button" disabled={exporting.busy} onClick={() => void exporting.run(download)} data-testid="campaign-export">
          <Download aria-hidden="true" size={16} />
          {t('timeline.export')}
        </button>
      </div>
      <p className="hint">{t('timeline.exportHint')}</p>
      {exporting.error !== null && <ErrorNotice code={exporting.error} />}
      <h2 id="timeline-title">{t('timeline.title')}</h2>
      {data.sessions.length === 0 ? (
        <p className="hint">{t('timeline.empty')}</p>
      ) : (
        <ol className="timeline-sessions">
          {data.sessions.map((s) => {
            const empty = !s.recap && s.fights.length === 0 && s.deaths.length === 0 && s.journal.length === 0;
            return (
              <li key={s.id} className="timeline-session" data-testid="timeline-session">
                <header>
                  <h3>
                    <Link to={`/sessions/${s.id}`}>{format(t('timeline.session'), { n: s.number })}</Link>
                  </h3>
                  <span className="timeline-date">{day(s.started_at)}</span>
                  <span className={`badge status-${s.status}`}>{t(`sessionStatus.${s.status as SessionStatus}`)}</span>
                </header>
                {s.recap && (
                  <blockquote className="timeline-recap">
                    <span className="timeline-label">{t('timeline.recap')}</span> {s.recap}
                  </blockquote>
                )}
                {s.fights.length > 0 && (
                  <p className="timeline-line">
                    <Swords aria-hidden="true" size={16} />
                    <span className="timeline-label">{t('timeline.fights')}:</span>{' '}
                    <span>{s.fights.map((f) => (f.rounds > 0 ? format(t('timeline.fight'), { name: f.name, rounds: f.rounds }) : f.name)).join(' · ')}</span>
                  </p>
                )}
                {s.deaths.length > 0 && (
                  <p className="timeline-line timeline-deaths">
                    <Skull aria-hidden="true" size={16} />
                    <span className="timeline-label">{t('timeline.deaths')}:</span> <span>{s.deaths.join(', ')}</span>
                  </p>
                )}
                {s.journal.length > 0 && (
                  <p className="timeline-line">
                    <BookOpen aria-hidden="true" size={16} />
                    <span className="timeline-label">{t('timeline.journal')}:</span>{' '}
                    <span>
                      {s.journal.map((e, i) => (
                        <span key={e.id} className="timeline-entry">
                          {i > 0 && ', '}
                          <span className="journal-kind">{t(`journal.kind.${e.kind}` as MessageKey)}</span> {e.title}
                        </span>
                      ))}
                    </span>
                  </p>
                )}
                {empty && <p className="hint">{t('timeline.nothing')}</p>}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
