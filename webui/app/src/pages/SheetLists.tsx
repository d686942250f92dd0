import type { InputHTMLAttributes, ReactNode } from 'react';
import { Field } from '../components/Field';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { signed } from '../table/labels';
import {
  ABILITIES,
  DAMAGE_TYPES,
  type Attack,
  type AttackDerived,
  type Item,
  type Spell,
} from '../table/api';

// The sheet's lists as the form holds them: numbers as the text typed, a
// key per row for React.
export interface AttackRow {
  key: number;
  name: string;
  ability: string;
  proficient: boolean;
  bonus: string;
  damage: string;
  damage_type: string;
  add_modifier: boolean;
}
export interface SpellRow {
  key: number;
  name: string;
  level: string;
  prepared: boolean;
  notes: string;
}
export interface ItemRow {
  key: number;
  name: string;
  quantity: string;
  notes: string;
}

let rowKeys = 0;
export const nextRowKey = () => ++rowKeys;

const num = (s: string) => {
  const n = Number(s.trim());
  return s.trim() === '' || !Number.isFinite(n) ? 0 : Math.trunc(n);
};

export const attackRows = (list: Attack[] | undefined): AttackRow[] =>
  (list ?? []).map((a) => ({ ...a, key: nextRowKey(), bonus: String(a.bonus) }));
export const spellRows = (list: Spell[] | undefined): SpellRow[] =>
  (list ?? []).map((s) => ({ ...s, key: nextRowKey(), level: String(s.level) }));
export const itemRows = (list: Item[] | undefined): ItemRow[] =>
  (list ?? []).map((i) => ({ ...i, key: nextRowKey(), quantity: String(i.quantity) }));

export const attacksOf = (rows: AttackRow[]): Attack[] =>
  rows.map(({ key: _k, ...a }) => ({ ...a, name: a.name.trim(), damage: a.damage.trim(), bonus: num(a.bonus) }));
export const spellsOf = (rows: SpellRow[]): Spell[] =>
  rows.map(({ key: _k, ...s }) => ({ ...s, name: s.name.trim(), level: num(s.level) }));
export const itemsOf = (rows: ItemRow[]): Item[] =>
  rows.map(({ key: _k, ...i }) => ({ ...i, name: i.name.trim(), quantity: num(i.quantity) }));

// RowInput: one labelled text or number input of a list row, marked
// invalid when the server refused a field of the row; other input
// attributes (type, min, max, maxLength…) pass through.
function RowInput({
  id,
  label,
  value,
  onChange,
  invalid,
  ...attrs
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  invalid: true | undefined;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'>) {
  return (
    <Field label={label} htmlFor={id}>
      <input id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={invalid} {...attrs} />
    </Field>
  );
}

// RowCheck: one labelled checkbox of a list row.
function RowCheck({ label, checked, onChange }: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label className="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      {label}
    </label>
  );
}

// ListEditor edits one list of the sheet: its rows, Remove on each, Add
// below. bad(i) says whether the server refused a field of row i.
function ListEditor<R extends { key: number }>({
  rows,
  onChange,
  blank,
  empty,
  add,
  testId,
  bad,
  render,
}: {
  rows: R[];
  onChange: (rows: R[]) => void;
  blank: () => R;
  empty: string;
  add: string;
  testId: string;
  bad: (i: number) => boolean;
  render: (row: R, upd: (patch: Partial<R>) => void, invalid: true | undefined, i: number) => ReactNode;
}) {
  const { t } = useI18n();
  return (
    <>
      {rows.length === 0 && <p className="hint">{empty}</p>}
      {rows.map((r, i) => {
        const upd = (patch: Partial<R>) => onChange(rows.map((x, j) => (j === i ? { ...x, ...patch } : x)));
        return (
          <div className="fields resource" key={r.key} data-testid={testId}>
            {render(r, upd, bad(i) || undefined, i)}
            <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              {t('common.remove')}
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...rows, blank()])}>
        {add}
      </button>
    </>
  );
}

// AttacksEditor: each attack's name, ability, proficiency, extra bonus,
// damage dice and type; the saved sheet's to-hit and damage beside a row
// the server has derived.
export function AttacksEditor({
  idp,
  rows,
  onChange,
  derived,
  bad,
}: {
  idp: string;
  rows: AttackRow[];
  onChange: (rows: AttackRow[]) => void;
  derived: AttackDerived[] | undefined;
  bad: (i: number) => boolean;
}) {
  const { t } = useI18n();
  const blank = (): AttackRow => ({
    key: nextRowKey(),
    name: '',
    ability: 'str',
    proficient: true,
    bonus: '0',
    damage: '1d6',
    damage_type: 'slashing',
    add_modifier: true,
  });
  return (
    <ListEditor
      rows={rows}
      onChange={onChange}
      blank={blank}
      empty={t('character.attacks.empty')}
      add={t('character.attack.add')}
      testId="attack"
      bad={bad}
      render={(a, upd, invalid, i) => {
        const id = `${idp}-atk-${a.key}`;
        // the saved numbers, only for the row they were derived for
        const d = derived?.[i];
        return (
          <>
            <RowInput id={`${id}-name`} label={t('character.attack.name')} value={a.name} maxLength={80} invalid={invalid} onChange={(name) => upd({ name })} />
            <Field label={t('character.attack.ability')} htmlFor={`${id}-ability`}>
              <select id={`${id}-ability`} value={a.ability} onChange={(e) => upd({ ability: e.target.value })} aria-invalid={invalid}>
                <option value="">{t('character.attack.abilityNone')}</option>
                {ABILITIES.map((ab) => (
                  <option key={ab} value={ab}>
                    {t(`ability.${ab}`)}
                  </option>
                ))}
              </select>
            </Field>
            <RowCheck label={t('character.attack.proficient')} checked={a.proficient} onChange={(proficient) => upd({ proficient })} />
            <RowInput
              id={`${id}-bonus`}
              label={t('character.attack.bonus')}
              type="number"
              min={-20}
              max={20}
              value={a.bonus}
              invalid={invalid}
              onChange={(bonus) => upd({ bonus })}
            />
            <RowInput
              id={`${id}-damage`}
              label={t('character.attack.damage')}
              className="damage-input"
              value={a.damage}
              maxLength={40}
              spellCheck="false"
              autoComplete="off"
              invalid={invalid}
              onChange={(damage) => upd({ damage })}
            />
            <Field label={t('character.attack.damageType')} htmlFor={`${id}-type`}>
              <select id={`${id}-type`} value={a.damage_type} onChange={(e) => upd({ damage_type: e.target.value })} aria-invalid={invalid}>
                {DAMAGE_TYPES.map((dt) => (
                  <option key={dt} value={dt}>
                    {t(`damage.${dt}`)}
                  </option>
                ))}
              </select>
            </Field>
            <RowCheck label={t('character.attack.addModifier')} checked={a.add_modifier} onChange={(add_modifier) => upd({ add_modifier })} />
            {d && d.name === a.name.trim() && (
              <span className="derived" data-testid="attack-derived">
                {format(t('character.attack.derived'), {
                  toHit: signed(d.to_hit),
                  damage: d.damage,
                  type: damageName(d.damage_type, t),
                })}
              </span>
            )}
          </>
        );
      }}
    />
  );
}

// damageName is a damage type in the reader's language (the key as sent
// when the app does not know it).
export function damageName(type: string, t: ReturnType<typeof useI18n>['t']): string {
  return (DAMAGE_TYPES as readonly string[]).includes(type) ? t(`damage.${type as (typeof DAMAGE_TYPES)[number]}`) : type;
}

export function SpellsEditor({
  idp,
  rows,
  onChange,
  bad,
}: {
  idp: string;
  rows: SpellRow[];
  onChange: (rows: SpellRow[]) => void;
  bad: (i: number) => boolean;
}) {
  const { t } = useI18n();
  return (
    <ListEditor
      rows={rows}
      onChange={onChange}
      blank={() => ({ key: nextRowKey(), name: '', level: '0', prepared: false, notes: '' })}
      empty={t('character.spells.empty')}
      add={t('character.spell.add')}
      testId="spell"
      bad={bad}
      render={(s, upd, invalid) => {
        const id = `${idp}-spell-${s.key}`;
        return (
          <>
            <RowInput id={`${id}-name`} label={t('character.spell.name')} value={s.name} maxLength={80} invalid={invalid} onChange={(name) => upd({ name })} />
            <RowInput
              id={`${id}-level`}
              label={t('character.spell.level')}
              type="number"
              min={0}
              max={9}
              value={s.level}
              invalid={invalid}
              onChange={(level) => upd({ level })}
            />
            <RowCheck label={t('character.spell.prepared')} checked={s.prepared} onChange={(prepared) => upd({ prepared })} />
            <RowInput id={`${id}-notes`} label={t('character.spell.notes')} value={s.notes} maxLength={200} invalid={invalid} onChange={(notes) => upd({ notes })} />
          </>
        );
      }}
    />
  );
}

export function InventoryEditor({
  idp,
  rows,
  onChange,
  bad,
}: {
  idp: string;
  rows: ItemRow[];
  onChange: (rows: ItemRow[]) => void;
  bad: (i: number) => boolean;
}) {
  const { t } = useI18n();
  return (
    <ListEditor
      rows={rows}
      onChange={onChange}
      blank={() => ({ key: nextRowKey(), name: '', quantity: '1', notes: '' })}
      empty={t('character.inventory.empty')}
      add={t('character.item.add')}
      testId="item"
      bad={bad}
      render={(it, upd, invalid) => {
        const id = `${idp}-item-${it.key}`;
        return (
          <>
            <RowInput id={`${id}-name`} label={t('character.item.name')} value={it.name} maxLength={80} invalid={invalid} onChange={(name) => upd({ name })} />
            <RowInput
              id={`${id}-qty`}
              label={t('character.item.quantity')}
              type="number"
              min={0}
              max={9999}
              value={it.quantity}
              invalid={invalid}
              onChange={(quantity) => upd({ quantity })}
            />
            <RowInput id={`${id}-notes`} label={t('character.item.notes')} value={it.notes} maxLength={200} invalid={invalid} onChange={(notes) => upd({ notes })} />
          </>
        );
      }}
    />
  );
}
