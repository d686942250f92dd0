import { useCallback, useRef, useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { Dices, Pencil, X } from 'lucide-react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { useApi } from '../useApi';
import { useAction } from '../useAction';
import { usePageTitle } from '../usePageTitle';
import { newKey } from '../table/InputBar';
import { checkName, conditionName, quickRollName, SAVE_SUFFIX, signed } from '../table/labels';
import {
  ABILITIES,
  SKILLS,
  getCharacterSheet,
  rollFromSheet,
  type Ability,
  type CharacterSheet,
  type RollResultView,
  type SheetRollInput,
  type Skill,
} from '../table/api';
import { damageName } from './SheetLists';
import './CharacterSheet.css';

// SKILL_ABILITY is the ability each 5e SRD skill checks (gameplay/sheet.Skills).
const SKILL_ABILITY: Record<Skill, Ability> = {
  acrobatics: 'dex',
  animal_handling: 'wis',
  arcana: 'int',
  athletics: 'str',
  deception: 'cha',
  history: 'int',
  insight: 'wis',
  intimidation: 'cha',
  investigation: 'int',
  medicine: 'wis',
  nature: 'int',
  perception: 'wis',
  performance: 'cha',
  persuasion: 'cha',
  religion: 'int',
  sleight_of_hand: 'dex',
  stealth: 'dex',
  survival: 'wis',
};

// CharacterSheetPage is the character sheet to read and play from (D&D
// Beyond's way), apart from the editor: big ability modifiers, saves,
// skills, attacks and the vitals. While the character plays at a running
// table from the reader's seat, a click on a check, save or attack rolls
// it there: the server rolls its dice and adds the stored sheet's
// modifier, and the roll goes to the table's feed as that seat. Away from
// a table the sheet rolls nothing (a roll nobody sees is no roll at the
// table) and says where rolling happens.
export function CharacterSheetPage() {
  const { id } = useParams();
  const { t } = useI18n();
  usePageTitle('title.sheet');
  const load = useCallback((signal: AbortSignal) => getCharacterSheet(id ?? '', signal), [id]);
  const [loaded, reload] = useApi(load);
  if (loaded.state === 'loading') return <p aria-busy="true">{t('common.loading')}</p>;
  if (loaded.state === 'error')
    return (
      <>
        <h1>{t('title.sheet')}</h1>
        <ErrorNotice code={loaded.code} lead={t('character.failed')} onRetry={reload} />
        <p>
          <Link to="/characters">{t('character.back')}</Link>
        </p>
      </>
    );
  return <SheetView sheet={loaded.data} />;
}

interface Rolled {
  label: string;
  r: RollResultView;
  sessionId: number;
}

function SheetView({ sheet }: { sheet: CharacterSheet }) {
  const { t } = useI18n();
  const c = sheet.character;
  const d = c.derived;
  const table = sheet.table ?? null;
  usePageTitle('title.sheet', c.name);
  const action = useAction();
  const [last, setLast] = useState<Rolled | null>(null);
  // A retry of the same roll after a failure reuses its key, so the server
  // rolls it once; another roll gets a new key.
  const pending = useRef<{ sig: string; key: string } | null>(null);

  const roll = async (body: SheetRollInput) => {
    const sig = JSON.stringify(body);
    if (pending.current?.sig !== sig) pending.current = { sig, key: newKey() };
    const r = await action.run(() => rollFromSheet(c.id, { ...body, idempotency_key: pending.current!.key }));
    if (r) {
      pending.current = null;
      setLast({ label: quickRollName(r.result, t) ?? t('dice.quick'), r: r.result, sessionId: r.session_id });
    }
  };

  const abbr = (a: Ability) => t(`sheet.abbr.${a}` as MessageKey);
  const checkLabel = (check: string) => {
    const name = checkName(check, t);
    return check.endsWith(SAVE_SUFFIX) ? name : format(t('sheet.checkOf'), { check: name });
  };
  // RollCell: a number of the sheet that rolls when the character is at a
  // table, and only reads otherwise.
  const rollCell = (body: SheetRollInput, label: string, className: string, children: ReactNode, testId?: string) =>
    table ? (
      <button
        type="button"
        className={`${className} sheet-rolls`}
        title={format(t('sheet.rollLabel'), { what: label })}
        disabled={action.busy}
        onClick={() => void roll(body)}
        data-testid={testId}
      >
        {children}
      </button>
    ) : (
      <div className={className} data-testid={testId}>
        {children}
      </div>
    );
  // The buttons' names are their visible text read in order, with words
  // only a screen reader needs ("Roll … check") in hidden spans: the name
  // holds what the eye reads (WCAG 2.5.3).
  const sr = (text: string) => (
    <>
      {' '}
      <span className="visually-hidden">{text}</span>{' '}
    </>
  );
  const rollWord = table ? sr(t('sheet.rollPrefix')) : null;
  const profMark = (level: 0 | 1 | 2) => (
    <span className={`sheet-prof is-${['none', 'prof', 'expert'][level]}`} aria-hidden="true" title={level ? t(level === 2 ? 'character.expertise' : 'character.proficient') : undefined}>
      {['○', '●', '◆'][level]}
    </span>
  );
  const profWord = (level: 0 | 1 | 2) => (level ? sr(format(t('sheet.profSuffix'), { what: t(level === 2 ? 'character.expertise' : 'character.proficient') })) : null);

  const who = [c.class, c.species, c.background].filter((x) => x.trim() !== '').join(' · ');
  const hpLow = c.hp.max > 0 && c.hp.current * 2 <= c.hp.max;
  const vitals: { key: string; label: string; value: ReactNode; hint?: string }[] = [
    {
      key: 'hp',
      label: t('character.hp'),
      value: (
        <>
          <span className={hpLow ? 'sheet-hp-low' : undefined}>{c.hp.current}</span>
          <span className="sheet-vital-of">/{c.hp.max}</span>
        </>
      ),
      hint: c.hp.temp > 0 ? format(t('card.tempHp'), { n: c.hp.temp }) : undefined,
    },
    { key: 'ac', label: t('character.ac'), value: d.ac },
    { key: 'speed', label: t('card.stat.speed'), value: d.speed > 0 ? format(t('character.speedValue'), { n: d.speed }) : t('character.notSet') },
    {
      key: 'initiative',
      label: t('character.initiative'),
      value: signed(d.initiative),
      hint: d.initiative_advantage ? t('sheet.advantage') : undefined,
    },
    { key: 'proficiency', label: t('character.proficiency'), value: signed(c.proficiency_bonus) },
    { key: 'passive', label: t('character.passivePerception'), value: d.passive_perception },
  ];
  if (d.hit_dice) vitals.push({ key: 'hitdice', label: t('character.hitDice'), value: d.hit_dice });

  const defenses = (['resistances', 'immunities', 'vulnerabilities'] as const).filter((k) => c.defenses[k].length > 0);

  return (
    <article className="sheet" data-testid="character-sheet">
      <header className="sheet-head">
        <p className="crumbs">
          <Link to="/characters">{t('character.back')}</Link>
        </p>
        <div className="sheet-title">
          <div>
            <h1>{c.name}</h1>
            <p className="sheet-who">
              {format(t('common.levelN'), { n: c.level })}
              {who && ` · ${who}`}
            </p>
          </div>
          <Link to={`/characters/${c.id}`} className="button-link sheet-edit" data-testid="sheet-edit">
            <Pencil size={16} aria-hidden="true" /> {t('sheet.edit')}
          </Link>
        </div>
        {table ? (
          <p className="sheet-where is-live" data-testid="sheet-where">
            <Dices size={18} aria-hidden="true" />
            <span>
              {format(t('sheet.rollsTo'), { campaign: table.campaign_name, room: table.room_name })}{' '}
              <Link to={`/sessions/${table.session_id}`}>{t('sheet.openTable')}</Link>
            </span>
          </p>
        ) : (
          <p className="sheet-where" data-testid="sheet-where">
            {t('sheet.noTable')}
          </p>
        )}
      </header>

      <dl className="sheet-vitals" data-testid="sheet-vitals">
        {vitals.map((v) => (
          <div key={v.key} className="sheet-vital" data-stat={v.key}>
            <dt>{v.label}</dt>
            <dd>
              <span className="sheet-vital-value">{v.value}</span>
              {v.hint && <span className="sheet-vital-hint">{v.hint}</span>}
            </dd>
          </div>
        ))}
      </dl>
      {c.conditions.length > 0 && (
        <ul className="sheet-chips" aria-label={t('character.conditions')}>
          {c.conditions.map((x) => (
            <li key={x} className="sheet-chip">
              {conditionName(x, t)}
            </li>
          ))}
        </ul>
      )}

      <section aria-labelledby="sheet-abilities" className="sheet-block">
        <h2 id="sheet-abilities" className="sheet-h2">
          {t('character.abilities')}
        </h2>
        <ul className="sheet-abilities">
          {ABILITIES.map((a) => (
            <li key={a}>
              {rollCell(
                { check: a },
                checkLabel(a),
                'sheet-ability',
                <>
                  {rollWord}
                  <span className="sheet-ability-name" title={t(`ability.${a}`)}>
                    {abbr(a)}
                  </span>
                  {table && sr(t('sheet.checkSuffix'))}
                  {' '}
                  <span className="sheet-ability-mod">{signed(d.modifiers[a] ?? 0)}</span>
                  {sr(t('sheet.scorePrefix'))}
                  <span className="sheet-ability-score">{c.abilities[a]}</span>
                </>,
                `sheet-ability-${a}`,
              )}
            </li>
          ))}
        </ul>
      </section>

      <div className="sheet-columns">
        <div className="sheet-stack">
          <section aria-labelledby="sheet-saves" className="sheet-block">
            <h2 id="sheet-saves" className="sheet-h2">
              {t('character.saves')}
            </h2>
            <ul className="sheet-rows">
              {ABILITIES.map((a) => (
                <li key={a}>
                  {rollCell(
                    { check: a + SAVE_SUFFIX },
                    checkLabel(a + SAVE_SUFFIX),
                    'sheet-row',
                    <>
                      {profMark(c.save_proficiencies.includes(a) ? 1 : 0)}
                      {rollWord}
                      <span className="sheet-row-name">
                        {t(`ability.${a}`)}
                        {table && sr(t('sheet.saveSuffix'))}
                      </span>
                      {' '}
                      <span className="sheet-row-mod">{signed(d.saves[a] ?? 0)}</span>
                      {profWord(c.save_proficiencies.includes(a) ? 1 : 0)}
                    </>,
                    `sheet-save-${a}`,
                  )}
                </li>
              ))}
            </ul>
            {defenses.length > 0 && (
              <>
                <h3 className="sheet-h3">{t('sheet.defenses')}</h3>
                <dl className="sheet-facts">
                  {defenses.map((k) => (
                    <div key={k}>
                      <dt>{t(`character.defenses.${k}`)}</dt>
                      <dd>{c.defenses[k].map((x) => damageName(x, t)).join(', ')}</dd>
                    </div>
                  ))}
                </dl>
              </>
            )}
            {c.resources.length > 0 && (
              <>
                <h3 className="sheet-h3">{t('character.resources')}</h3>
                <dl className="sheet-facts">
                  {c.resources.map((r) => (
                    <div key={r.name}>
                      <dt>{r.name}</dt>
                      <dd>
                        {r.current}/{r.max}
                      </dd>
                    </div>
                  ))}
                </dl>
              </>
            )}
          </section>

          <section aria-labelledby="sheet-attacks" className="sheet-block">
            <h2 id="sheet-attacks" className="sheet-h2">
              {t('character.attacks')}
            </h2>
            {d.attacks.length === 0 ? (
              <p className="hint">{t('card.attacks.empty')}</p>
            ) : (
              <ul className="sheet-attacks">
                {d.attacks.map((a, i) => (
                  <li key={`${i}-${a.name}`} className="sheet-attack" data-testid="sheet-attack" data-attack={a.name}>
                    <span className="sheet-attack-name">{a.name}</span>
                    {rollCell(
                      { attack: String(i + 1) },
                      format(t('log.attackToHit'), { attack: a.name }),
                      'sheet-attack-roll',
                      <>
                        {table && sr(format(t('sheet.rollOf'), { attack: a.name }))}
                        <span className="sheet-attack-label">{t('sheet.toHit')}</span>
                        {' '}
                        {' '}
                      <span className="sheet-attack-value">{signed(a.to_hit)}</span>
                      </>,
                    )}
                    {rollCell(
                      { attack: String(i + 1), damage: true },
                      format(t('log.attackDamage'), { attack: a.name, type: damageName(a.damage_type, t) }),
                      'sheet-attack-roll',
                      <>
                        {table && sr(format(t('sheet.rollOf'), { attack: a.name }))}
                        <span className="sheet-attack-label">{t('card.damage')}</span>
                        {' '}
                        {' '}
                      <span className="sheet-attack-value">
                          {a.damage} <span className="sheet-attack-type">{damageName(a.damage_type, t)}</span>
                        </span>
                      </>,
                    )}
                  </li>
                ))}
              </ul>
            )}
          </section>
        </div>

        <section aria-labelledby="sheet-skills" className="sheet-block">
          <h2 id="sheet-skills" className="sheet-h2">
            {t('character.skills')}
          </h2>
          <ul className="sheet-rows">
            {SKILLS.map((s) => {
              const level = c.skill_expertise.includes(s) ? 2 : c.skill_proficiencies.includes(s) ? 1 : 0;
              return (
                <li key={s}>
                  {rollCell(
                    { check: s },
                    checkLabel(s),
                    'sheet-row',
                    <>
                      {profMark(level)}
                      {rollWord}
                      <span className="sheet-row-name">
                        {t(`skill.${s}` as MessageKey)}
                        {table && sr(t('sheet.checkSuffix'))} <span className="sheet-row-ability">{abbr(SKILL_ABILITY[s])}</span>
                        {s === 'stealth' && d.stealth_disadvantage && <span className="sheet-row-note">{t('sheet.disadvantage')}</span>}
                      </span>
                      {' '}
                      <span className="sheet-row-mod">{signed(d.skills[s] ?? 0)}</span>
                      {profWord(level)}
                    </>,
                    `sheet-skill-${s}`,
                  )}
                </li>
              );
            })}
          </ul>
        </section>
      </div>


      {(c.spells.length > 0 || c.inventory.length > 0 || c.notes.trim() !== '' || c.biography.trim() !== '') && (
        <div className="sheet-columns">
          {c.spells.length > 0 && (
            <section aria-labelledby="sheet-spells" className="sheet-block">
              <h2 id="sheet-spells" className="sheet-h2">
                {t('character.spells')}
              </h2>
              <ul className="sheet-list">
                {c.spells.map((s, i) => (
                  <li key={i}>
                    <strong>{s.name}</strong>{' '}
                    <span className="hint">
                      {s.level === 0 ? t('sheet.cantrip') : format(t('sheet.spellLevel'), { n: s.level })}
                      {s.prepared && ` · ${t('character.spell.prepared')}`}
                    </span>
                    {s.notes && <span className="sheet-list-note">{s.notes}</span>}
                  </li>
                ))}
              </ul>
            </section>
          )}
          {c.inventory.length > 0 && (
            <section aria-labelledby="sheet-inventory" className="sheet-block">
              <h2 id="sheet-inventory" className="sheet-h2">
                {t('character.inventory')}
              </h2>
              <ul className="sheet-list">
                {c.inventory.map((it, i) => (
                  <li key={i}>
                    <strong>{it.name}</strong> {it.quantity !== 1 && <span className="hint">×{it.quantity}</span>}
                    {it.notes && <span className="sheet-list-note">{it.notes}</span>}
                  </li>
                ))}
              </ul>
            </section>
          )}
          {(c.biography.trim() !== '' || c.notes.trim() !== '') && (
            <section aria-labelledby="sheet-notes" className="sheet-block sheet-prose">
              <h2 id="sheet-notes" className="sheet-h2">
                {t('character.notes')}
              </h2>
              {c.biography.trim() !== '' && <p>{c.biography}</p>}
              {c.notes.trim() !== '' && <p>{c.notes}</p>}
            </section>
          )}
        </div>
      )}

      {/* The last roll, announced politely; the region is always there so a
          screen reader hears each new one. */}
      <div className="sheet-toast-region" role="status" aria-live="polite" data-testid="sheet-roll-result">
        {action.error !== null ? (
          <div className="sheet-toast">
            <ErrorNotice code={action.error} />
            <button type="button" className="sheet-toast-close" aria-label={t('sheet.dismiss')} onClick={() => action.clear()}>
              <X size={16} aria-hidden="true" />
            </button>
          </div>
        ) : (
          last && (
            <div className="sheet-toast">
              <span className="sheet-toast-what">{last.label}</span>
              <code className="sheet-toast-formula">{last.r.formula}</code>
              <span aria-hidden="true">=</span>
              <strong className="sheet-toast-total" data-testid="sheet-roll-total">
                {last.r.total}
              </strong>
              <Link to={`/sessions/${last.sessionId}`} className="sheet-toast-link">
                {t('sheet.inFeed')}
              </Link>
              <button type="button" className="sheet-toast-close" aria-label={t('sheet.dismiss')} onClick={() => setLast(null)}>
                <X size={16} aria-hidden="true" />
              </button>
            </div>
          )
        )}
      </div>
    </article>
  );
}
