import { useEffect, useState } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { shortCommitment, verifyDcCommitment, type DcVerdict } from './commitment';

// DcReveal is a secret DC opened: the DC and the salt of its commitment.
export interface DcReveal {
  dc: number;
  salt: string;
}

// DcSeal shows a check's secret DC commitment: "DC committed · 3b7d15c3"
// while the DC is secret, and once it is revealed the DC with the browser's
// own check of it against the commitment shown before ("✓ matches the
// commitment", or a warning that it does not). Nothing for a check without
// a commitment (no DC).
export function DcSeal({ commitment, reveal }: { commitment: string | null | undefined; reveal: DcReveal | null }) {
  const { t } = useI18n();
  const [verdict, setVerdict] = useState<{ key: string; v: DcVerdict } | null>(null);
  const key = reveal && commitment ? `${commitment}:${reveal.dc}:${reveal.salt}` : '';
  useEffect(() => {
    if (!reveal || !commitment) return;
    let live = true;
    verifyDcCommitment(commitment, reveal.dc, reveal.salt).then(
      (v) => live && setVerdict({ key, v }),
      () => live && setVerdict({ key, v: 'unavailable' }),
    );
    return () => {
      live = false;
    };
    // key names everything the check depends on
  }, [key]);
  if (!commitment) return null;
  const hash = (
    <code className="dc-hash" data-testid="dc-hash" title={commitment}>
      {shortCommitment(commitment)}
    </code>
  );
  if (!reveal) {
    return (
      <span className="tag dc-seal" data-testid="dc-commitment" title={t('check.commit.hint')}>
        {t('check.commit.sealed')} {hash}
      </span>
    );
  }
  const v = verdict?.key === key ? verdict.v : null;
  return (
    <span className={`tag dc-seal is-${v ?? 'checking'}`} data-testid="dc-verify" data-verdict={v ?? 'checking'} role={v === 'mismatch' ? 'alert' : undefined}>
      {format(t('check.dc'), { dc: reveal.dc })} ·{' '}
      {v === null ? t('check.commit.checking') : t(`check.commit.${v}`)} {hash}
    </span>
  );
}
