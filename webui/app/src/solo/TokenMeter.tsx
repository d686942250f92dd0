import { useCallback, useEffect, useState } from 'react';
import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { useApi } from '../useApi';
import { countTokens, getCards, type ContextFill, type TokenCount } from './api';
import { ContextFillBar } from './LorePanel';

// COUNT_DELAY_MS is how long typing pauses before the text is counted.
export const COUNT_DELAY_MS = 300;

// TokenMeter sits under the player's box: an estimate of the tokens of what
// is typed (the server's tokenizer times the ratio learnt from the model
// endpoint, so marked ≈; the browser has no tokenizer of its own) and how
// full the line's last prompt was. The count is asked for once typing
// pauses; the fill is read again when version changes (a turn ended).
export function TokenMeter({ adventureId, version, text }: { adventureId: number; version: string; text: string }) {
  const { t } = useI18n();
  const [count, setCount] = useState<{ text: string; result: TokenCount } | null>(null);
  useEffect(() => {
    if (text.trim() === '') return;
    let live = true;
    const timer = setTimeout(() => {
      countTokens(text).then(
        (result) => {
          if (live) setCount({ text, result });
        },
        () => {
          // no count is shown rather than a stale or made-up one
          if (live) setCount(null);
        },
      );
    }, COUNT_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text]);
  const load = useCallback(
    (signal: AbortSignal) => (void version, getCards(adventureId, signal)),
    [adventureId, version],
  );
  const [cards] = useApi(load);
  // the fill as shown: kept while the next one loads, so the bar does not flicker
  const [fill, setFill] = useState<ContextFill | null | undefined>(undefined);
  useEffect(() => {
    if (cards.state === 'ok') setFill(cards.data.last_build ?? null);
  }, [cards]);

  const shown = text.trim() === '' ? 0 : count?.text === text ? count.result.tokens : null;
  const ratio = count?.result.token_ratio ?? 1;
  return (
    <div className="token-meter" data-testid="token-meter">
      <span className="hint" data-testid="token-count" title={format(t('solo.tokens.hint'), { ratio: ratio.toFixed(2) })}>
        {shown === null ? '\u00a0' : format(t('solo.tokens.count'), { n: shown })}
      </span>
      {fill !== undefined && <ContextFillBar fill={fill} />}
    </div>
  );
}
