import { useId } from 'react';
import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { LOGICS, splitKeys, type Logic, type RulesDraft } from './scenarioDraft';

// CardRulesFields edit how a card fires, as lorebooks have it: secondary
// keys and their logic, always in (constant) and the priority. Folded
// under a summary that says what is set, so a plain card stays four boxes.
export function CardRulesFields({ rules, onChange }: { rules: RulesDraft; onChange: (r: RulesDraft) => void }) {
  const { t } = useI18n();
  const id = useId();
  const set = (patch: Partial<RulesDraft>) => onChange({ ...rules, ...patch });
  const hasSecondary = splitKeys(rules.secondary).length > 0;
  return (
    <details className="card-rules wide" data-testid="card-rules" open={rulesSet(rules) || undefined}>
      <summary>
        {t('solo.rules.title')}
        <span className="hint"> — {rulesSummary(t, rules)}</span>
      </summary>
      <div className="fields">
        <div className="field wide">
          <label className="field-label" htmlFor={`${id}-secondary`}>
            {t('solo.rules.secondary')}
          </label>
          <input
            id={`${id}-secondary`}
            value={rules.secondary}
            aria-describedby={`${id}-secondary-hint`}
            onChange={(e) => set({ secondary: e.target.value })}
          />
          <span className="hint" id={`${id}-secondary-hint`}>
            {t('solo.rules.secondaryHint')}
          </span>
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-logic`}>
            {t('solo.rules.logic')}
          </label>
          <select
            id={`${id}-logic`}
            value={rules.logic}
            disabled={!hasSecondary}
            onChange={(e) => set({ logic: e.target.value as Logic })}
          >
            {LOGICS.map((l) => (
              <option key={l} value={l}>
                {t(`solo.rules.logic.${l}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-priority`}>
            {t('solo.rules.priority')}
          </label>
          <input
            id={`${id}-priority`}
            type="number"
            inputMode="numeric"
            step={1}
            min={-1000000}
            max={1000000}
            placeholder="0"
            value={rules.priority}
            aria-describedby={`${id}-priority-hint`}
            onChange={(e) => set({ priority: e.target.value })}
          />
          <span className="hint" id={`${id}-priority-hint`}>
            {t('solo.rules.priorityHint')}
          </span>
        </div>
        <div className="field wide">
          <label className="check">
            <input type="checkbox" checked={rules.constant} onChange={(e) => set({ constant: e.target.checked })} />{' '}
            {t('solo.rules.constant')}
          </label>
          <span className="hint">{t('solo.rules.constantHint')}</span>
        </div>
      </div>
    </details>
  );
}

// rulesSet says whether a card has any rule beyond "fires on a key".
export const rulesSet = (r: RulesDraft): boolean =>
  r.constant || splitKeys(r.secondary).length > 0 || (r.priority.trim() !== '' && Number(r.priority) !== 0);

// rulesSummary says in one line what the rules are.
export function rulesSummary(t: ReturnType<typeof useI18n>['t'], r: RulesDraft): string {
  const parts: string[] = [];
  if (r.constant) parts.push(t('solo.rules.always'));
  const secondary = splitKeys(r.secondary);
  if (secondary.length > 0)
    parts.push(format(t(`solo.rules.with.${r.logic}`), { keys: secondary.join(', ') }));
  const p = Math.trunc(Number(r.priority));
  if (Number.isFinite(p) && p !== 0) parts.push(format(t('solo.rules.priorityN'), { n: p }));
  return parts.length > 0 ? parts.join(' · ') : t('solo.rules.none');
}
