import { useParams } from 'react-router';
import { JournalPanel } from '../table/Journal';
import { usePageTitle } from '../usePageTitle';
import { NotFoundPage } from './NotFound';

// CampaignJournalPage is a campaign's journal on a page of its own: the
// same panel the table shows beside the feed, with room to read.
export function CampaignJournalPage() {
  const { id } = useParams();
  const campaignId = Number(id);
  usePageTitle('title.journal');
  if (!Number.isSafeInteger(campaignId) || campaignId <= 0) return <NotFoundPage />;
  return <JournalPanel campaignId={campaignId} page />;
}
