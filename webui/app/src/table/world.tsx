import { Plus, Save, Trash2 } from 'lucide-react';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { useAction } from '../useAction';
import { getWorld, putWorld, type WorldNPC, type WorldView } from './api';

// The server's limits (gameplay/table/world.go), shown under each field.
export const WORLD_LIMITS = { premise: 2000, plot: 4000, npcs: 20, name: 80, description: 400, statBlock: 1500 };

// CampaignWorld is the campaign card's world: opened on demand, read-only
// (the premise) for the table, a compact editor for the room owner and
// DM-key holders (who read the plot essentials and NPCs too).
export function CampaignWorld({ campaignId }: { campaignId: number }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [view, setView] = useState<WorldView | null>(null);
  const [premise, setPremise] = useState('');
  const [plot, setPlot] = useState('');
  const [npcs, setNpcs] = useState<WorldNPC[]>([]);
  const [saved, setSaved] = useState(false);
  const load = useAction();
  const save = useAction();
  const id = useId();

  useEffect(() => {
    if (!open || view) return;
    const ctl = new AbortController();
    void load.run(() => getWorld(campaignId, ctl.signal)).then((v) => v && take(v));
    return () => ctl.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, campaignId]);

  const take = (v: WorldView) => {
    setView(v);
    setPremise(v.premise ?? '');
    setPlot(v.plot_essentials ?? '');
    setNpcs(v.npcs ?? []);
  };
  const setNpc = (i: number, change: Partial<WorldNPC>) =>
    setNpcs((list) => list.map((n, j) => (j === i ? { ...n, ...change } : n)));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const v = await save.run(() => putWorld(campaignId, { premise, plot_essentials: plot, npcs }));
    if (v) {
      take(v);
      setSaved(true);
    }
  };
  const limit = (n: number) => format(t('room.world.limit'), { n });

  return (
    <details className="world-box" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="campaign-world">
      <summary>{t('room.world.title')}</summary>
      {load.error !== null && <ErrorNotice code={load.error} />}
      {view && !view.can_edit && (
        <p className="world-premise" data-testid="world-premise">
          {view.premise || t('room.world.noPremise')}
        </p>
      )}
      {view?.can_edit && (
        <form className="world-form" onSubmit={submit} aria-describedby={`${id}-dm`}>
          <p id={`${id}-dm`} className="hint">
            {t('room.world.audience')}
          </p>
          <label>
            {t('room.world.premise')}
            <textarea value={premise} rows={3} maxLength={WORLD_LIMITS.premise} onChange={(e) => setPremise(e.target.value)} />
            <small>{limit(WORLD_LIMITS.premise)}</small>
          </label>
          <label>
            {t('room.world.plot')}
            <textarea value={plot} rows={3} maxLength={WORLD_LIMITS.plot} onChange={(e) => setPlot(e.target.value)} />
            <small>{limit(WORLD_LIMITS.plot)}</small>
          </label>
          <fieldset className="world-npcs">
            <legend>{t('room.world.npcs')}</legend>
            {npcs.map((n, i) => (
              <div className="world-npc" key={i} data-testid="world-npc">
                <label>
                  {t('room.world.npcName')}
                  <input value={n.name} required maxLength={WORLD_LIMITS.name} onChange={(e) => setNpc(i, { name: e.target.value })} />
                </label>
                <label>
                  {t('room.world.npcDescription')}
                  <input
                    value={n.description ?? ''}
                    maxLength={WORLD_LIMITS.description}
                    onChange={(e) => setNpc(i, { description: e.target.value })}
                  />
                </label>
                <label>
                  {t('room.world.npcStatBlock')}
                  <textarea
                    value={n.stat_block ?? ''}
                    rows={2}
                    maxLength={WORLD_LIMITS.statBlock}
                    onChange={(e) => setNpc(i, { stat_block: e.target.value })}
                  />
                </label>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={format(t('room.world.removeNpc'), { name: n.name || String(i + 1) })}
                  onClick={() => setNpcs((list) => list.filter((_, j) => j !== i))}
                >
                  <Trash2 aria-hidden="true" size={16} />
                </button>
              </div>
            ))}
            {npcs.length < WORLD_LIMITS.npcs && (
              <button type="button" onClick={() => setNpcs((list) => [...list, { name: '' }])}>
                <Plus aria-hidden="true" size={16} />
                {t('room.world.addNpc')}
              </button>
            )}
          </fieldset>
          <p className="world-actions">
            <button type="submit" disabled={save.busy}>
              <Save aria-hidden="true" size={16} />
              {t('room.world.save')}
            </button>
            {saved && <span role="status">{t('room.world.saved')}</span>}
          </p>
          {save.error !== null && <ErrorNotice code={save.error} />}
        </form>
      )}
    </details>
  );
}
