// Shared wording for checks and rolls: skill / ability names, request labels.
import { format, type MessageKey } from '../i18n/messages';
import { damageName } from '../pages/SheetLists';
import { ABILITIES, CONDITIONS, SKILLS, type RollRequestView, type RollResultView } from './api';

type T = (key: MessageKey) => string;

export const isSkill = (x: string) => (SKILLS as readonly string[]).includes(x);
export const isAbility = (x: string) => (ABILITIES as readonly string[]).includes(x);

// checkName translates a skill or ability name ("perception", "wis") or a
// saving throw ("dex_save").
export function checkName(check: string, t: T): string {
  if (isSkill(check)) return t(`skill.${check}` as MessageKey);
  if (isAbility(check)) return t(`ability.${check}` as MessageKey);
  const save = check.endsWith(SAVE_SUFFIX) ? check.slice(0, -SAVE_SUFFIX.length) : '';
  if (isAbility(save)) return format(t('check.save'), { ability: t(`ability.${save}` as MessageKey) });
  return check;
}

// SAVE_SUFFIX ends a saving throw's key (gameplay/sheet.SaveSuffix).
export const SAVE_SUFFIX = '_save';

// requestName is what a roll request asks for, in the reader's language.
export function requestName(r: Pick<RollRequestView, 'request_type' | 'skill' | 'ability' | 'label'>, t: T): string {
  if (r.request_type === 'skill' && r.skill && isSkill(r.skill)) return t(`skill.${r.skill}` as MessageKey);
  if (r.request_type === 'save' && r.ability && isAbility(r.ability)) return checkName(r.ability + SAVE_SUFFIX, t);
  if (r.ability && isAbility(r.ability)) return t(`ability.${r.ability}` as MessageKey);
  return r.label;
}

// requestNote is the DM's own label for a check ("Spot the ambush"), or
// null when the label only names the check (the server's default).
export function requestNote(r: Pick<RollRequestView, 'request_type' | 'skill' | 'ability' | 'label'>): string | null {
  const key = r.request_type === 'save' ? r.ability + SAVE_SUFFIX : r.skill || r.ability;
  const label = (r.label ?? '').trim();
  return label !== '' && label !== key ? label : null;
}

// signed writes a modifier with its sign: +2, −1 (0 as +0).
export const signed = (n: number) => (n < 0 ? `−${-n}` : `+${n}`);

// conditionName translates a condition ("poisoned").
export function conditionName(c: string, t: T): string {
  return (CONDITIONS as readonly string[]).includes(c) ? t(`condition.${c}` as MessageKey) : c;
}

// quickRollName names what a quick roll of the sheet rolled, as the server
// stored it on the result: an attack ("Longsword: to hit", "Longsword:
// damage (slashing)") or a check ("Dexterity save"); null for plain dice.
export function quickRollName(r: Pick<RollResultView, 'check' | 'attack_name' | 'attack_roll' | 'damage_type'>, t: T): string | null {
  if (r.attack_name) {
    if (r.attack_roll === 'damage') return format(t('log.attackDamage'), { attack: r.attack_name, type: damageName(r.damage_type ?? '', t) });
    return format(t('log.attackToHit'), { attack: r.attack_name });
  }
  if (r.check) return checkName(r.check, t);
  return null;
}
