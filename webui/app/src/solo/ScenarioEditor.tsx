import { useCallback, useId, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { Field } from '../components/Field';
import { LoadThen } from '../components/LoadThen';
import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { useAction } from '../useAction';
import { CardRulesFields } from './CardRules';
import { createScenario, deleteScenario, getScenario, updateScenario, type ScenarioView } from './api';
import { AgentAccess } from './AgentAccess';
import { PlayDialog } from './PlayDialog';
import { ScriptsEditor } from './ScriptsEditor';
import {
  CARD_TYPES,
  EMPTY_SCENARIO,
  newBand,
  newCard,
  newStat,
  scenarioDraftOf,
  scenarioInputOf,
  type CardDraft,
  type ScenarioDraft,
  type StatDraft,
} from './scenarioDraft';

// ScenarioEditorPage is /solo/scenarios/new and /solo/scenarios/:id.
export function ScenarioEditorPage() {
  const { id = 'new' } = useParams();
  usePageTitle('title.scenario');
  return id === 'new' ? <Editor key="new" initial={null} /> : <LoadScenario key={id} id={id} />;
}

function LoadScenario({ id }: { id: string }) {
  const { t } = useI18n();
  const load = useCallback((signal: AbortSignal) => getScenario(id, signal), [id]);
  return (
    <LoadThen
      load={load}
      title={t('solo.editor.title')}
      failed={t('solo.editor.failed')}
      back="/solo"
      backLabel={t('solo.back')}
    >
      {(s) => <Editor initial={s} />}
    </LoadThen>
  );
}

const same = (a: ScenarioDraft, b: ScenarioDraft) =>
  JSON.stringify(scenarioInputOf(a)) === JSON.stringify(scenarioInputOf(b));

function Editor({ initial }: { initial: ScenarioView | null }) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const location = useLocation();
  const idp = useId();
  const [saved, setSaved] = useState<ScenarioView | null>(initial);
  usePageTitle('title.scenario', saved?.title);
  const [savedDraft, setSavedDraft] = useState<ScenarioDraft>(() => scenarioDraftOf(initial ?? EMPTY_SCENARIO));
  const [draft, setDraft] = useState<ScenarioDraft>(savedDraft);
  const arrived = location.state as { created?: boolean; play?: boolean } | null;
  const [justSaved, setJustSaved] = useState(arrived?.created === true);
  // Play on a new scenario saves it first; the dialog then opens on its own page.
  const [playing, setPlaying] = useState(arrived?.play === true && initial !== null);
  const [agents, setAgents] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const action = useAction();
  const dirty = !same(draft, savedDraft);

  const set = (patch: Partial<ScenarioDraft>) => {
    setJustSaved(false);
    setDraft((d) => ({ ...d, ...patch }));
  };

  // save stores the draft and returns the stored scenario (undefined on failure).
  const save = async (then?: 'play'): Promise<ScenarioView | undefined> => {
    const input = scenarioInputOf(draft);
    const s = await action.run(() => (saved ? updateScenario(saved.id, input) : createScenario(input)));
    if (!s) return undefined;
    const next = scenarioDraftOf(s);
    setSaved(s);
    setSavedDraft(next);
    setDraft(next);
    setJustSaved(true);
    if (!saved) navigate(`/solo/scenarios/${s.id}`, { replace: true, state: { created: true, play: then === 'play' } });
    return s;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await save();
  };

  const play = async () => {
    if (!saved) {
      await save('play');
      return;
    }
    const s = dirty ? await save() : saved;
    if (s) setPlaying(true);
  };

  const remove = async () => {
    if (!saved) return;
    const r = await action.run(() => deleteScenario(saved.id));
    if (r) navigate('/solo');
  };

  const badFields = action.error !== null ? Object.keys(action.fields) : [];
  const text = (key: keyof ScenarioDraft & string, label: string, rows: number, hint?: string) => (
    <div className="field wide">
      <label className="field-label" htmlFor={`${idp}-${key}`}>
        {label}
      </label>
      {hint && (
        <p className="hint" id={`${idp}-${key}-hint`}>
          {hint}
        </p>
      )}
      <textarea
        id={`${idp}-${key}`}
        rows={rows}
        value={draft[key] as string}
        onChange={(e) => set({ [key]: e.target.value } as Partial<ScenarioDraft>)}
        aria-describedby={hint ? `${idp}-${key}-hint` : undefined}
        aria-invalid={badFields.includes(key) || undefined}
      />
    </div>
  );

  return (
    <>
      <p className="crumbs">
        <Link to="/solo">{t('solo.back')}</Link>
      </p>
      <h1>{saved ? saved.title : t('solo.editor.newTitle')}</h1>
      <form className="character-form scenario-form" onSubmit={submit} noValidate>
        <fieldset>
          <legend>{t('solo.editor.story')}</legend>
          <div className="field wide">
            <label className="field-label" htmlFor={`${idp}-title`}>
              {t('solo.editor.scenarioTitle')}
            </label>
            <input
              id={`${idp}-title`}
              value={draft.title}
              maxLength={120}
              onChange={(e) => set({ title: e.target.value })}
              aria-invalid={badFields.includes('title') || undefined}
            />
          </div>
          {text('premise', t('solo.editor.premise'), 5, t('solo.editor.premiseHint'))}
          {text('plot_essentials', t('solo.editor.plotEssentials'), 4, t('solo.editor.plotEssentialsHint'))}
          {text('ai_instructions', t('solo.editor.aiInstructions'), 4, t('solo.editor.aiInstructionsHint'))}
          {text('authors_note', t('solo.editor.authorsNote'), 2, t('solo.editor.authorsNoteHint'))}
          {text('opening', t('solo.editor.opening'), 5, t('solo.editor.openingHint'))}
        </fieldset>

        <StatsEditor stats={draft.stats} onChange={(stats) => set({ stats })} />
        <CardsEditor cards={draft.cards} onChange={(cards) => set({ cards })} />
        <ScriptsEditor
          scripts={draft.scripts}
          onChange={(scripts) => set({ scripts })}
          invalid={(hook) => badFields.includes('scripts') || badFields.includes(`scripts.${hook}`)}
        />

        {action.error !== null && (
          <ErrorNotice
            code={action.error}
            lead={badFields.length > 0 ? format(t('solo.editor.badFields'), { fields: badFields.join(', ') }) : undefined}
          />
        )}
        <p className="form-actions">
          <button type="submit" disabled={action.busy}>
            {t('solo.editor.save')}
          </button>{' '}
          <button type="button" onClick={play} disabled={action.busy || draft.title.trim() === ''}>
            {t('solo.play.button')}
          </button>{' '}
          <span role="status" className="hint">
            {justSaved && !dirty && t('solo.editor.saved')}
            {dirty && saved && t('solo.editor.unsaved')}
          </span>
        </p>
        {saved && (
          <p className="form-actions">
            <button type="button" onClick={() => setAgents(true)} data-testid="agents-open">
              {t('agents.open')}
            </button>{' '}
            {confirmDelete ? (
              <>
                <span>{t('solo.editor.deleteConfirm')}</span>{' '}
                <button type="button" onClick={remove} disabled={action.busy}>
                  {t('solo.editor.deleteYes')}
                </button>{' '}
                <button type="button" onClick={() => setConfirmDelete(false)}>
                  {t('common.cancel')}
                </button>
              </>
            ) : (
              <button type="button" onClick={() => setConfirmDelete(true)}>
                {t('solo.editor.delete')}
              </button>
            )}
          </p>
        )}
      </form>
      {playing && saved && <PlayDialog scenarioId={saved.id} title={saved.title} onClose={() => setPlaying(false)} />}
      {agents && saved && <AgentAccess owner="scenarios" id={saved.id} onClose={() => setAgents(false)} />}
    </>
  );
}

function StatsEditor({ stats, onChange }: { stats: StatDraft[]; onChange: (stats: StatDraft[]) => void }) {
  const { t } = useI18n();
  const idp = useId();
  const upd = (i: number, patch: Partial<StatDraft>) => onChange(stats.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  return (
    <fieldset>
      <legend>{t('solo.stats.title')}</legend>
      <p className="hint">{t('solo.stats.hint')}</p>
      {stats.length === 0 && <p className="hint">{t('solo.stats.empty')}</p>}
      {stats.map((s, i) => {
        const p = `${idp}-${s.key}`;
        const name = s.path.trim() || format(t('solo.stats.rowN'), { n: i + 1 });
        return (
          <div className="stat-row" key={s.key} data-testid="stat-row" role="group" aria-label={name}>
            <div className="fields">
              <Field label={t('solo.stats.path')} htmlFor={`${p}-path`}>
                <input
                  id={`${p}-path`}
                  value={s.path}
                  placeholder="player.hp"
                  onChange={(e) => upd(i, { path: e.target.value })}
                />
              </Field>
              <Field label={t('solo.stats.min')} htmlFor={`${p}-min`}>
                <input id={`${p}-min`} type="number" value={s.min} onChange={(e) => upd(i, { min: e.target.value })} />
              </Field>
              <Field label={t('solo.stats.max')} htmlFor={`${p}-max`}>
                <input id={`${p}-max`} type="number" value={s.max} onChange={(e) => upd(i, { max: e.target.value })} />
              </Field>
              <Field label={t('solo.stats.initial')} htmlFor={`${p}-initial`}>
                <input
                  id={`${p}-initial`}
                  type="number"
                  value={s.initial}
                  onChange={(e) => upd(i, { initial: e.target.value })}
                />
              </Field>
              <Field label={t('solo.stats.cooldown')} htmlFor={`${p}-cooldown`}>
                <input
                  id={`${p}-cooldown`}
                  type="number"
                  min={0}
                  value={s.cooldown}
                  onChange={(e) => upd(i, { cooldown: e.target.value })}
                />
              </Field>
              <button type="button" className="row-remove" onClick={() => onChange(stats.filter((_, j) => j !== i))}>
                {format(t('solo.stats.remove'), { name })}
              </button>
            </div>
            <div className="bands">
              <p className="field-label">{t('solo.bands.title')}</p>
              {s.bands.map((b, k) => {
                const bp = `${p}-band-${b.key}`;
                const updBand = (patch: Partial<typeof b>) =>
                  upd(i, { bands: s.bands.map((x, m) => (m === k ? { ...x, ...patch } : x)) });
                return (
                  <div className="fields band-row" key={b.key} data-testid="band-row">
                    <Field label={t('solo.bands.lo')} htmlFor={`${bp}-lo`}>
                      <input id={`${bp}-lo`} type="number" value={b.lo} onChange={(e) => updBand({ lo: e.target.value })} />
                    </Field>
                    <Field label={t('solo.bands.hi')} htmlFor={`${bp}-hi`}>
                      <input id={`${bp}-hi`} type="number" value={b.hi} onChange={(e) => updBand({ hi: e.target.value })} />
                    </Field>
                    <Field label={t('solo.bands.label')} htmlFor={`${bp}-label`}>
                      <input id={`${bp}-label`} value={b.label} onChange={(e) => updBand({ label: e.target.value })} />
                    </Field>
                    <button
                      type="button"
                      className="row-remove"
                      onClick={() => upd(i, { bands: s.bands.filter((_, m) => m !== k) })}
                    >
                      {t('solo.bands.remove')}
                    </button>
                  </div>
                );
              })}
              <button type="button" onClick={() => upd(i, { bands: [...s.bands, newBand()] })}>
                {t('solo.bands.add')}
              </button>
            </div>
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...stats, newStat()])}>
        {t('solo.stats.add')}
      </button>
    </fieldset>
  );
}

function CardsEditor({ cards, onChange }: { cards: CardDraft[]; onChange: (cards: CardDraft[]) => void }) {
  const { t } = useI18n();
  const idp = useId();
  const upd = (i: number, patch: Partial<CardDraft>) => onChange(cards.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <fieldset>
      <legend>{t('solo.cards.title')}</legend>
      <p className="hint">{t('solo.cards.hint')}</p>
      {cards.length === 0 && <p className="hint">{t('solo.cards.empty')}</p>}
      <datalist id={`${idp}-types`}>
        {CARD_TYPES.map((ty) => (
          <option key={ty} value={ty} />
        ))}
      </datalist>
      {cards.map((c, i) => {
        const p = `${idp}-${c.key}`;
        const name = c.title.trim() || format(t('solo.cards.rowN'), { n: i + 1 });
        return (
          <div className="card-row" key={c.key} data-testid="card-row" role="group" aria-label={name}>
            <div className="fields">
              <Field label={t('solo.cards.cardTitle')} htmlFor={`${p}-title`}>
                <input id={`${p}-title`} value={c.title} onChange={(e) => upd(i, { title: e.target.value })} />
              </Field>
              <Field label={t('solo.cards.keys')} htmlFor={`${p}-keys`}>
                <input
                  id={`${p}-keys`}
                  value={c.keys}
                  placeholder={t('solo.cards.keysPlaceholder')}
                  onChange={(e) => upd(i, { keys: e.target.value })}
                />
              </Field>
              <Field label={t('solo.cards.type')} htmlFor={`${p}-type`}>
                <input
                  id={`${p}-type`}
                  list={`${idp}-types`}
                  value={c.type}
                  onChange={(e) => upd(i, { type: e.target.value })}
                />
              </Field>
              <button type="button" className="row-remove" onClick={() => onChange(cards.filter((_, j) => j !== i))}>
                {format(t('solo.cards.remove'), { name })}
              </button>
            </div>
            <div className="field wide">
              <label className="field-label" htmlFor={`${p}-entry`}>
                {t('solo.cards.entry')}
              </label>
              <textarea id={`${p}-entry`} rows={3} value={c.entry} onChange={(e) => upd(i, { entry: e.target.value })} />
            </div>
            <CardRulesFields rules={c.rules} onChange={(rules) => upd(i, { rules })} />
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...cards, newCard()])}>
        {t('solo.cards.add')}
      </button>
    </fieldset>
  );
}
