import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { Field } from '../components/Field';
import { LoadThen } from '../components/LoadThen';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { format, type MessageKey } from '../i18n/messages';
import { signed } from '../table/labels';
import {
  ABILITIES,
  ARMORS,
  CONDITIONS,
  DAMAGE_TYPES,
  HIT_DICE,
  SKILLS,
  UNARMORED,
  createCharacter,
  getCharacter,
  previewCharacter,
  updateCharacter,
  type Ability,
  type Character,
  type CharacterDerived,
  type CharacterInput,
} from '../table/api';
import { useAction } from '../useAction';
import { downloadCharacter } from './Characters';
import {
  AttacksEditor,
  InventoryEditor,
  SpellsEditor,
  attackRows,
  attacksOf,
  itemRows,
  itemsOf,
  spellRows,
  spellsOf,
  type AttackRow,
  type ItemRow,
  type SpellRow,
} from './SheetLists';

// PREVIEW_DELAY_MS is how long typing rests before the totals are derived.
const PREVIEW_DELAY_MS = 250;

// The form keeps numbers as the text typed, so a field can be cleared while editing.
interface Draft {
  name: string;
  level: string;
  abilities: Record<Ability, string>;
  skill_proficiencies: string[];
  skill_expertise: string[];
  hp: { max: string; current: string; temp: string };
  conditions: string[];
  resources: { key: number; name: string; current: string; max: string }[];
  biography: string;
  roleplay_guidance: string;
  class: string;
  species: string;
  background: string;
  save_proficiencies: string[];
  armor: { body: string; shield: boolean; unarmored: string; bonus: string };
  speed: string;
  hit_die: string;
  initiative_advantage: boolean;
  attacks: AttackRow[];
  spells: SpellRow[];
  inventory: ItemRow[];
  notes: string;
  // defenses: for each damage type the character resists, is immune or
  // vulnerable to, which list it is in.
  defenses: Partial<Record<string, DefenseList>>;
}

// The three lists of CharacterInput.defenses.
const DEFENSE_LISTS = ['resistances', 'immunities', 'vulnerabilities'] as const;
type DefenseList = (typeof DEFENSE_LISTS)[number];

function defenseDraft(d: CharacterInput['defenses']): Draft['defenses'] {
  const out: Draft['defenses'] = {};
  for (const list of DEFENSE_LISTS) for (const typ of d?.[list] ?? []) out[typ] = list;
  return out;
}

function defensesOf(d: Draft['defenses']): NonNullable<CharacterInput['defenses']> {
  const out = { resistances: [] as string[], immunities: [] as string[], vulnerabilities: [] as string[] };
  for (const typ of DAMAGE_TYPES) {
    const list = d[typ];
    if (list) out[list].push(typ);
  }
  return out;
}

let resourceKeys = 0;

export function draftOf(c: CharacterInput): Draft {
  return {
    name: c.name,
    level: String(c.level),
    abilities: Object.fromEntries(ABILITIES.map((a) => [a, String(c.abilities?.[a] ?? 10)])) as Record<Ability, string>,
    skill_proficiencies: [...(c.skill_proficiencies ?? [])],
    skill_expertise: [...(c.skill_expertise ?? [])],
    hp: { max: String(c.hp?.max ?? 0), current: String(c.hp?.current ?? 0), temp: String(c.hp?.temp ?? 0) },
    conditions: [...(c.conditions ?? [])],
    resources: (c.resources ?? []).map((r) => ({
      key: ++resourceKeys,
      name: r.name,
      current: String(r.current),
      max: String(r.max),
    })),
    biography: c.biography ?? '',
    roleplay_guidance: c.roleplay_guidance ?? '',
    class: c.class ?? '',
    species: c.species ?? '',
    background: c.background ?? '',
    save_proficiencies: [...(c.save_proficiencies ?? [])],
    armor: {
      body: c.armor?.body ?? '',
      shield: c.armor?.shield ?? false,
      unarmored: c.armor?.unarmored ?? '',
      bonus: String(c.armor?.bonus ?? 0),
    },
    speed: String(c.speed ?? 0),
    hit_die: String(c.hit_die ?? 0),
    initiative_advantage: c.initiative_advantage ?? false,
    attacks: attackRows(c.attacks),
    spells: spellRows(c.spells),
    inventory: itemRows(c.inventory),
    notes: c.notes ?? '',
    defenses: defenseDraft(c.defenses),
  };
}

const num = (s: string) => {
  const n = Number(s.trim());
  return s.trim() === '' || !Number.isFinite(n) ? 0 : Math.trunc(n);
};

export function inputOf(d: Draft): CharacterInput {
  return {
    name: d.name.trim(),
    level: num(d.level),
    abilities: Object.fromEntries(ABILITIES.map((a) => [a, num(d.abilities[a])])) as Record<Ability, number>,
    skill_proficiencies: SKILLS.filter((s) => d.skill_proficiencies.includes(s)),
    skill_expertise: SKILLS.filter((s) => d.skill_expertise.includes(s)),
    hp: { max: num(d.hp.max), current: num(d.hp.current), temp: num(d.hp.temp) },
    conditions: CONDITIONS.filter((c) => d.conditions.includes(c)),
    resources: d.resources.map((r) => ({ name: r.name.trim(), current: num(r.current), max: num(r.max) })),
    biography: d.biography,
    roleplay_guidance: d.roleplay_guidance,
    class: d.class.trim(),
    species: d.species.trim(),
    background: d.background.trim(),
    save_proficiencies: ABILITIES.filter((a) => d.save_proficiencies.includes(a)),
    armor: { body: d.armor.body, shield: d.armor.shield, unarmored: d.armor.unarmored, bonus: num(d.armor.bonus) },
    speed: num(d.speed),
    hit_die: num(d.hit_die),
    initiative_advantage: d.initiative_advantage,
    attacks: attacksOf(d.attacks),
    spells: spellsOf(d.spells),
    inventory: itemsOf(d.inventory),
    notes: d.notes,
    defenses: defensesOf(d.defenses),
  };
}

export const NEW_CHARACTER: CharacterInput = {
  name: '',
  level: 1,
  abilities: { str: 10, dex: 10, con: 10, int: 10, wis: 10, cha: 10 },
  skill_proficiencies: [],
  skill_expertise: [],
  hp: { max: 10, current: 10, temp: 0 },
  conditions: [],
  resources: [],
  biography: '',
  roleplay_guidance: '',
  class: '',
  species: '',
  background: '',
  save_proficiencies: [],
  armor: { body: '', shield: false, unarmored: '', bonus: 0 },
  speed: 30,
  hit_die: 0,
  initiative_advantage: false,
  attacks: [],
  spells: [],
  inventory: [],
  notes: '',
  defenses: { resistances: [], immunities: [], vulnerabilities: [] },
};

// The field groups of the form; a server field key ("hp.current",
// "resources[0].name", "abilities.str") belongs to the group it starts with.
const GROUPS = [
  'name',
  'level',
  'class',
  'species',
  'background',
  'abilities',
  'save_proficiencies',
  'armor',
  'speed',
  'hit_die',
  'skill_proficiencies',
  'skill_expertise',
  'hp',
  'defenses',
  'conditions',
  'resources',
  'attacks',
  'spells',
  'inventory',
  'notes',
  'biography',
  'roleplay_guidance',
] as const;
type Group = (typeof GROUPS)[number];

function groupOf(key: string): Group | null {
  for (const g of GROUPS) {
    if (key === g || key.startsWith(`${g}.`) || key.startsWith(`${g}[`)) return g;
  }
  return null;
}

export function CharacterEditorPage() {
  const { id = 'new' } = useParams();
  usePageTitle('title.character');
  return id === 'new' ? <Editor key="new" initial={null} /> : <LoadCharacter key={id} id={id} />;
}

function LoadCharacter({ id }: { id: string }) {
  const { t } = useI18n();
  const load = useCallback((signal: AbortSignal) => getCharacter(id, signal), [id]);
  return (
    <LoadThen
      load={load}
      title={t('characters.title')}
      failed={t('character.failed')}
      back="/characters"
      backLabel={t('character.back')}
    >
      {(c) => <Editor initial={c} />}
    </LoadThen>
  );
}

function Editor({ initial }: { initial: Character | null }) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const location = useLocation();
  const [saved, setSaved] = useState<Character | null>(initial);
  usePageTitle('title.character', saved?.name);
  const [firstDraft] = useState<Draft>(() => draftOf(initial ?? NEW_CHARACTER));
  const [draft, setDraft] = useState<Draft>(firstDraft);
  // "Saved" shows while the draft is exactly the one the server answered with.
  const created = (location.state as { created?: boolean } | null)?.created === true;
  const [savedDraft, setSavedDraft] = useState<Draft | null>(created && initial ? firstDraft : null);
  const action = useAction();
  const exporting = useAction();
  const idp = useId();

  const fieldErrors: Partial<Record<Group, string[]>> = {};
  if (action.error === 'character_invalid') {
    for (const key of Object.keys(action.fields)) {
      const g = groupOf(key);
      if (g) (fieldErrors[g] ??= []).push(key);
    }
  }
  const bad = (g: Group) => fieldErrors[g] !== undefined;
  const badKey = (key: string) => fieldErrors[groupOf(key) ?? 'name']?.includes(key) ?? false;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input = inputOf(draft);
    const c = await action.run(() => (saved ? updateCharacter(saved.id, input) : createCharacter(input)));
    if (!c) return;
    const next = draftOf(c);
    setSaved(c);
    setDraft(next);
    setSavedDraft(next);
    if (!saved) navigate(`/characters/${c.id}`, { replace: true, state: { created: true } });
  };

  // The totals follow the typing: each settled draft is sent to the
  // server's sheet rules (POST /api/characters/preview), the one place they
  // live; a draft they refuse keeps the last totals.
  const [preview, setPreview] = useState<CharacterDerived | null>(null);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      previewCharacter(inputOf(draft)).then(
        (d) => live && setPreview(d),
        () => {},
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [draft]);
  const derived = preview ?? saved?.derived ?? null;

  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const toggle = (list: string[], v: string, on: boolean) => (on ? [...new Set([...list, v])] : list.filter((x) => x !== v));

  const err = (g: Group) =>
    bad(g) ? (
      <p className="field-error" id={`${idp}-${g}-err`} data-field-error={g}>
        {t(`fieldError.${g}` as MessageKey)}
      </p>
    ) : null;
  const described = (g: Group) => (bad(g) ? `${idp}-${g}-err` : undefined);
  // textSection: one of the sheet's free texts in its own fieldset, its
  // label the legend's words for screen readers.
  const textSection = (g: 'notes' | 'biography' | 'roleplay_guidance', legend: string, o: { rows: number; maxLength?: number; hint?: string }) => {
    const id = `${idp}-${g}`;
    const hintId = o.hint !== undefined ? `${id}-hint` : undefined;
    return (
      <fieldset>
        <legend>{legend}</legend>
        {o.hint !== undefined && (
          <p className="hint" id={hintId}>
            {o.hint}
          </p>
        )}
        <label htmlFor={id} className="visually-hidden">
          {legend}
        </label>
        <textarea
          id={id}
          rows={o.rows}
          maxLength={o.maxLength}
          value={draft[g]}
          onChange={(e) => set({ [g]: e.target.value })}
          aria-invalid={bad(g) || undefined}
          aria-describedby={described(g) ?? hintId}
        />
        {err(g)}
      </fieldset>
    );
  };
  // rowBad: the server refused a field of row i of a list ("attacks.0.damage")
  const rowBad = (list: Group) => (i: number) =>
    (fieldErrors[list] ?? []).some((k) => k.startsWith(`${list}.${i}.`) || k.startsWith(`${list}[${i}]`));

  return (
    <>
      <p className="crumbs">
        <Link to="/characters">{t('character.back')}</Link>
      </p>
      <h1>{saved ? saved.name : t('character.newTitle')}</h1>
      <form className="character-form" onSubmit={submit} noValidate>
        <fieldset>
          <legend>{t('character.basics')}</legend>
          <div className="fields">
            <Field label={t('character.name')} htmlFor={`${idp}-name`}>
              <input
                id={`${idp}-name`}
                value={draft.name}
                onChange={(e) => set({ name: e.target.value })}
                aria-invalid={bad('name') || undefined}
                aria-describedby={described('name')}
              />
              {err('name')}
            </Field>
            <Field label={t('character.level')} htmlFor={`${idp}-level`}>
              <input
                id={`${idp}-level`}
                type="number"
                min={1}
                max={20}
                value={draft.level}
                onChange={(e) => set({ level: e.target.value })}
                aria-invalid={bad('level') || undefined}
                aria-describedby={described('level')}
              />
              {err('level')}
            </Field>
            <div className="field">
              <span className="field-label">{t('character.proficiency')}</span>
              <span data-testid="proficiency-bonus" className="derived">
                {saved ? `+${saved.proficiency_bonus}` : t('character.proficiencyPending')}
              </span>
            </div>
            {(['class', 'species', 'background'] as const).map((k) => (
              <Field key={k} label={t(`character.${k}`)} htmlFor={`${idp}-${k}`}>
                <input
                  id={`${idp}-${k}`}
                  value={draft[k]}
                  maxLength={80}
                  onChange={(e) => set({ [k]: e.target.value })}
                  aria-invalid={bad(k) || undefined}
                  aria-describedby={described(k)}
                />
                {err(k)}
              </Field>
            ))}
          </div>
        </fieldset>

        {derived && <SheetSummary d={derived} />}

        <fieldset aria-describedby={described('abilities')}>
          <legend>{t('character.abilities')}</legend>
          <div className="fields abilities">
            {ABILITIES.map((a) => (
              <Field key={a} label={t(`ability.${a}`)} htmlFor={`${idp}-ab-${a}`}>
                <input
                  id={`${idp}-ab-${a}`}
                  type="number"
                  min={1}
                  max={30}
                  value={draft.abilities[a]}
                  onChange={(e) => set({ abilities: { ...draft.abilities, [a]: e.target.value } })}
                  aria-invalid={badKey(`abilities.${a}`) || (fieldErrors.abilities?.includes('abilities') ?? false) || undefined}
                />
                <span className="derived" data-testid={`mod-${a}`} title={t('character.modifier')}>
                  {total(derived?.modifiers[a])}
                </span>
              </Field>
            ))}
          </div>
          {err('abilities')}
        </fieldset>

        <fieldset>
          <legend>{t('character.saves')}</legend>
          <table className="grid saves">
            <thead>
              <tr>
                <th scope="col">{t('character.saves')}</th>
                <th scope="col">{t('character.proficient')}</th>
                <th scope="col">{t('character.total')}</th>
              </tr>
            </thead>
            <tbody>
              {ABILITIES.map((a) => {
                const name = t(`ability.${a}`);
                return (
                  <tr key={a}>
                    <th scope="row">{name}</th>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`${name} ${t('character.saves')}: ${t('character.proficient')}`}
                        checked={draft.save_proficiencies.includes(a)}
                        onChange={(e) => set({ save_proficiencies: toggle(draft.save_proficiencies, a, e.target.checked) })}
                      />
                    </td>
                    <td className="derived" data-testid={`save-${a}`}>
                      {total(derived?.saves[a])}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {saved && <p className="hint">{t('character.totalsHint')}</p>}
          {err('save_proficiencies')}
        </fieldset>

        <fieldset>
          <legend>{t('character.skills')}</legend>
          <table className="grid skills">
            <thead>
              <tr>
                <th scope="col">{t('character.skill')}</th>
                <th scope="col">{t('character.proficient')}</th>
                <th scope="col">{t('character.expertise')}</th>
                <th scope="col">{t('character.total')}</th>
              </tr>
            </thead>
            <tbody>
              {SKILLS.map((s) => {
                const prof = draft.skill_proficiencies.includes(s);
                const name = t(`skill.${s}`);
                return (
                  <tr key={s}>
                    <th scope="row">{name}</th>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`${name}: ${t('character.proficient')}`}
                        checked={prof}
                        onChange={(e) =>
                          set({
                            skill_proficiencies: toggle(draft.skill_proficiencies, s, e.target.checked),
                            skill_expertise: e.target.checked ? draft.skill_expertise : toggle(draft.skill_expertise, s, false),
                          })
                        }
                      />
                    </td>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`${name}: ${t('character.expertise')}`}
                        checked={draft.skill_expertise.includes(s)}
                        disabled={!prof && !draft.skill_expertise.includes(s)}
                        onChange={(e) => set({ skill_expertise: toggle(draft.skill_expertise, s, e.target.checked) })}
                      />
                    </td>
                    <td className="derived" data-testid={`skill-${s}`}>
                      {total(derived?.skills[s])}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {err('skill_proficiencies')}
          {err('skill_expertise')}
        </fieldset>

        <fieldset>
          <legend>{t('character.defense')}</legend>
          <div className="fields">
            <Field label={t('character.armor.body')} htmlFor={`${idp}-armor`}>
              <select
                id={`${idp}-armor`}
                value={draft.armor.body}
                onChange={(e) => set({ armor: { ...draft.armor, body: e.target.value } })}
                aria-invalid={badKey('armor.body') || undefined}
              >
                <option value="">{t('character.armor.none')}</option>
                {ARMORS.map((a) => (
                  <option key={a} value={a}>
                    {t(`armor.${a}`)}
                  </option>
                ))}
              </select>
            </Field>
            <Field label={t('character.armor.unarmored')} htmlFor={`${idp}-unarmored`}>
              <select
                id={`${idp}-unarmored`}
                value={draft.armor.unarmored}
                onChange={(e) => set({ armor: { ...draft.armor, unarmored: e.target.value } })}
                aria-invalid={badKey('armor.unarmored') || undefined}
              >
                {UNARMORED.map((u) => (
                  <option key={u} value={u}>
                    {t(`unarmored.${u || 'none'}`)}
                  </option>
                ))}
              </select>
            </Field>
            <label className="check">
              <input
                type="checkbox"
                checked={draft.armor.shield}
                onChange={(e) => set({ armor: { ...draft.armor, shield: e.target.checked } })}
              />
              {t('character.armor.shield')}
            </label>
            <Field label={t('character.armor.bonus')} htmlFor={`${idp}-armor-bonus`}>
              <input
                id={`${idp}-armor-bonus`}
                type="number"
                min={-5}
                max={10}
                value={draft.armor.bonus}
                onChange={(e) => set({ armor: { ...draft.armor, bonus: e.target.value } })}
                aria-invalid={badKey('armor.bonus') || undefined}
              />
            </Field>
            <Field label={t('character.speed')} htmlFor={`${idp}-speed`}>
              <input
                id={`${idp}-speed`}
                type="number"
                min={0}
                max={200}
                step={5}
                value={draft.speed}
                onChange={(e) => set({ speed: e.target.value })}
                aria-invalid={bad('speed') || undefined}
                aria-describedby={described('speed')}
              />
            </Field>
            <Field label={t('character.hitDie')} htmlFor={`${idp}-hit-die`}>
              <select
                id={`${idp}-hit-die`}
                value={draft.hit_die}
                onChange={(e) => set({ hit_die: e.target.value })}
                aria-invalid={bad('hit_die') || undefined}
                aria-describedby={described('hit_die')}
              >
                {HIT_DICE.map((d) => (
                  <option key={d} value={String(d)}>
                    {d === 0 ? t('character.hitDie.none') : `d${d}`}
                  </option>
                ))}
              </select>
            </Field>
            <label className="check">
              <input
                type="checkbox"
                checked={draft.initiative_advantage}
                onChange={(e) => set({ initiative_advantage: e.target.checked })}
              />
              {t('character.initiativeAdvantage')}
            </label>
          </div>
          {err('armor')}
          {err('speed')}
          {err('hit_die')}
        </fieldset>

        <fieldset>
          <legend>{t('character.hp')}</legend>
          <div className="fields">
            {(['max', 'current', 'temp'] as const).map((k) => (
              <Field key={k} label={t(`character.hp.${k}`)} htmlFor={`${idp}-hp-${k}`}>
                <input
                  id={`${idp}-hp-${k}`}
                  type="number"
                  min={0}
                  value={draft.hp[k]}
                  onChange={(e) => set({ hp: { ...draft.hp, [k]: e.target.value } })}
                  aria-invalid={bad('hp') || undefined}
                  aria-describedby={described('hp')}
                />
              </Field>
            ))}
          </div>
          {err('hp')}
        </fieldset>

        <fieldset>
          <legend>{t('character.defenses')}</legend>
          <div className="fields">
            {DAMAGE_TYPES.map((typ) => (
              <Field key={typ} label={t(`damage.${typ}` as MessageKey)} htmlFor={`${idp}-def-${typ}`}>
                <select
                  id={`${idp}-def-${typ}`}
                  value={draft.defenses[typ] ?? ''}
                  onChange={(e) => set({ defenses: { ...draft.defenses, [typ]: (e.target.value || undefined) as DefenseList | undefined } })}
                  aria-invalid={bad('defenses') || undefined}
                  aria-describedby={described('defenses')}
                >
                  <option value="">{t('character.defenses.none')}</option>
                  {DEFENSE_LISTS.map((list) => (
                    <option key={list} value={list}>
                      {t(`character.defenses.${list}`)}
                    </option>
                  ))}
                </select>
              </Field>
            ))}
          </div>
          {err('defenses')}
        </fieldset>

        <fieldset>
          <legend>{t('character.conditions')}</legend>
          <div className="checks">
            {CONDITIONS.map((c) => (
              <label key={c} className="check">
                <input
                  type="checkbox"
                  checked={draft.conditions.includes(c)}
                  onChange={(e) => set({ conditions: toggle(draft.conditions, c, e.target.checked) })}
                />
                {t(`condition.${c}`)}
              </label>
            ))}
          </div>
          {err('conditions')}
        </fieldset>

        <fieldset>
          <legend>{t('character.resources')}</legend>
          {draft.resources.length === 0 && <p className="hint">{t('character.resources.empty')}</p>}
          {draft.resources.map((r, i) => {
            const upd = (patch: Partial<Draft['resources'][number]>) =>
              set({ resources: draft.resources.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
            const rowBad = Object.keys(action.fields).some(
              (k) => action.error === 'character_invalid' && (k.startsWith(`resources[${i}]`) || k.startsWith(`resources.${i}.`)),
            );
            return (
              <div className="fields resource" key={r.key} data-testid="resource">
                <Field label={t('character.resource.name')} htmlFor={`${idp}-res-${r.key}-name`}>
                  <input
                    id={`${idp}-res-${r.key}-name`}
                    value={r.name}
                    onChange={(e) => upd({ name: e.target.value })}
                    aria-invalid={rowBad || undefined}
                  />
                </Field>
                <Field label={t('character.resource.current')} htmlFor={`${idp}-res-${r.key}-cur`}>
                  <input
                    id={`${idp}-res-${r.key}-cur`}
                    type="number"
                    min={0}
                    value={r.current}
                    onChange={(e) => upd({ current: e.target.value })}
                    aria-invalid={rowBad || undefined}
                  />
                </Field>
                <Field label={t('character.resource.max')} htmlFor={`${idp}-res-${r.key}-max`}>
                  <input
                    id={`${idp}-res-${r.key}-max`}
                    type="number"
                    min={0}
                    value={r.max}
                    onChange={(e) => upd({ max: e.target.value })}
                    aria-invalid={rowBad || undefined}
                  />
                </Field>
                <button type="button" onClick={() => set({ resources: draft.resources.filter((_, j) => j !== i) })}>
                  {t('common.remove')}
                </button>
              </div>
            );
          })}
          <button
            type="button"
            onClick={() =>
              set({ resources: [...draft.resources, { key: ++resourceKeys, name: '', current: '0', max: '0' }] })
            }
          >
            {t('character.resource.add')}
          </button>
          {err('resources')}
        </fieldset>

        <fieldset>
          <legend>{t('character.attacks')}</legend>
          <AttacksEditor
            idp={idp}
            rows={draft.attacks}
            onChange={(attacks) => set({ attacks })}
            derived={derived?.attacks}
            bad={rowBad('attacks')}
          />
          {saved && draft.attacks.length > 0 && <p className="hint">{t('character.totalsHint')}</p>}
          {err('attacks')}
        </fieldset>

        <fieldset>
          <legend>{t('character.spells')}</legend>
          <p className="hint">{t('character.spells.slotsHint')}</p>
          <SpellsEditor idp={idp} rows={draft.spells} onChange={(spells) => set({ spells })} bad={rowBad('spells')} />
          {err('spells')}
        </fieldset>

        <fieldset>
          <legend>{t('character.inventory')}</legend>
          <InventoryEditor idp={idp} rows={draft.inventory} onChange={(inventory) => set({ inventory })} bad={rowBad('inventory')} />
          {err('inventory')}
        </fieldset>

        {textSection('notes', t('character.notes'), { rows: 5, maxLength: 10000 })}
        {textSection('biography', t('character.biography'), { rows: 5 })}
        {textSection('roleplay_guidance', t('character.roleplay'), { rows: 4, hint: t('character.roleplayHint') })}

        {action.error !== null && (
          <ErrorNotice
            code={action.error}
            lead={action.error === 'character_invalid' ? t('character.invalid') : undefined}
          />
        )}
        <p className="form-actions sheet-save-bar">
          <button type="submit" className="primary" disabled={action.busy}>
            {t('character.save')}
          </button>{' '}
          <span role="status" className="hint">
            {savedDraft !== null && savedDraft === draft && t('character.saved')}
          </span>
        </p>
        {saved && (
          <p>
            {/* The file is the saved character, as the server holds it. */}
            <button
              type="button"
              onClick={() => void exporting.run(() => downloadCharacter(saved))}
              disabled={exporting.busy}
              data-testid="character-export"
            >
              {t('characters.export')}
            </button>
          </p>
        )}
        {exporting.error !== null && <ErrorNotice code={exporting.error} lead={t('characters.exportFailed')} />}
      </form>
    </>
  );
}

// total writes a server-derived modifier, or a dash while none is known.
const total = (n: number | undefined) => (n === undefined ? '—' : signed(n));

// SheetSummary shows the sheet's headline numbers as the server derived
// them: AC, initiative, speed, passive Perception and hit dice.
function SheetSummary({ d }: { d: CharacterDerived }) {
  const { t } = useI18n();
  const stats: { key: string; label: string; value: string; note?: string }[] = [
    {
      key: 'ac',
      label: t('character.ac'),
      value: String(d.ac),
      note: d.stealth_disadvantage ? t('character.stealthDisadvantage') : undefined,
    },
    {
      key: 'initiative',
      label: t('character.initiative'),
      value: signed(d.initiative),
      note: d.initiative_advantage ? t('character.initiativeAdvantage') : undefined,
    },
    {
      key: 'speed',
      label: t('character.speed'),
      value: d.speed > 0 ? format(t('character.speedValue'), { n: d.speed }) : t('character.notSet'),
    },
    { key: 'passive-perception', label: t('character.passivePerception'), value: String(d.passive_perception) },
    { key: 'hit-dice', label: t('character.hitDice'), value: d.hit_dice || t('character.notSet') },
  ];
  return (
    <dl className="sheet-summary" data-testid="sheet-summary">
      {stats.map((s) => (
        <div key={s.key} className="stat" data-testid={`stat-${s.key}`}>
          <dt>{s.label}</dt>
          <dd className="derived">{s.value}</dd>
          {s.note && <dd className="hint">{s.note}</dd>}
        </div>
      ))}
    </dl>
  );
}
