// The scenario editor's draft: numbers kept as the text typed (so a field can
// be cleared while editing), card keys as one comma-separated line, and a
// stable React key per row.
import type { Band, CardInput, ScenarioInput, ScenarioScripts, ScenarioView, StatKind, StatSchema } from './api';

export interface BandDraft {
  key: number;
  lo: string;
  hi: string;
  label: string;
}
export interface StatDraft {
  key: number;
  path: string;
  min: string;
  max: string;
  initial: string;
  cooldown: string;
  // kept as loaded: the editor edits number stats, and passes other kinds through
  kind?: StatKind;
  bands: BandDraft[];
}
export interface CardDraft {
  key: number;
  title: string;
  keys: string;
  type: string;
  entry: string;
  rules: RulesDraft;
}

// The logics of a card's secondary keys (SillyTavern's selectiveLogic).
export const LOGICS = ['and_any', 'and_all', 'not_any', 'not_all'] as const;
export type Logic = (typeof LOGICS)[number];

// RulesDraft is how a card fires, as its boxes hold it: secondary keys and
// their logic, always in, and the priority ('' is 0).
export interface RulesDraft {
  secondary: string;
  logic: Logic;
  constant: boolean;
  priority: string;
}

export const rulesDraftOf = (c: Pick<CardInput, 'secondary_keys' | 'logic' | 'constant' | 'priority'>): RulesDraft => ({
  secondary: (c.secondary_keys ?? []).join(', '),
  logic: (LOGICS as readonly string[]).includes(c.logic ?? '') ? (c.logic as Logic) : 'and_any',
  constant: c.constant ?? false,
  priority: c.priority ? String(c.priority) : '',
});

// rulesInputOf writes the rules that are set (a new card, a scenario's
// cards, which are written whole); explicit writes every one, so an edit in
// play also clears one.
export function rulesInputOf(d: RulesDraft, explicit = false): Partial<CardInput> {
  const secondary_keys = splitKeys(d.secondary);
  const priority = Math.trunc(num(d.priority));
  if (explicit) return { secondary_keys, logic: d.logic, constant: d.constant, priority };
  return {
    ...(secondary_keys.length > 0 ? { secondary_keys } : {}),
    ...(secondary_keys.length > 0 && d.logic !== 'and_any' ? { logic: d.logic } : {}),
    ...(d.constant ? { constant: true } : {}),
    ...(priority !== 0 ? { priority } : {}),
  };
}
export interface ScenarioDraft {
  title: string;
  premise: string;
  plot_essentials: string;
  ai_instructions: string;
  authors_note: string;
  opening: string;
  stats: StatDraft[];
  cards: CardDraft[];
  // kept exactly as typed (never trimmed): whitespace is part of a script
  scripts: ScenarioScripts;
}

let rowKeys = 0;
export const nextKey = () => ++rowKeys;

export const CARD_TYPES = ['character', 'location', 'item', 'lore'] as const;

// The script tabs of the editor, in the order they are shown.
export const SCRIPT_TABS = ['library', 'input', 'context', 'output'] as const satisfies readonly (keyof ScenarioScripts)[];

export const EMPTY_SCRIPTS: ScenarioScripts = { library: '', input: '', context: '', output: '' };

export const EMPTY_SCENARIO: ScenarioInput = {
  title: '',
  premise: '',
  plot_essentials: '',
  ai_instructions: '',
  authors_note: '',
  opening: '',
  stat_schema: {},
  cards: [],
  scripts: EMPTY_SCRIPTS,
};

export const newStat = (): StatDraft => ({
  key: nextKey(),
  path: '',
  min: '0',
  max: '100',
  initial: '100',
  cooldown: '',
  bands: [],
});
export const newBand = (): BandDraft => ({ key: nextKey(), lo: '', hi: '', label: '' });
export const newCard = (): CardDraft => ({
  key: nextKey(),
  title: '',
  keys: '',
  type: 'character',
  entry: '',
  rules: rulesDraftOf({}),
});

export function scenarioDraftOf(s: ScenarioInput | ScenarioView): ScenarioDraft {
  return {
    title: s.title ?? '',
    premise: s.premise ?? '',
    plot_essentials: s.plot_essentials ?? '',
    ai_instructions: s.ai_instructions ?? '',
    authors_note: s.authors_note ?? '',
    opening: s.opening ?? '',
    stats: Object.entries(s.stat_schema ?? {}).map(([path, spec]) => ({
      key: nextKey(),
      path,
      min: String(spec.min ?? 0),
      max: String(spec.max ?? 0),
      initial: String(spec.initial ?? 0),
      cooldown: spec.cooldown ? String(spec.cooldown) : '',
      ...(spec.kind ? { kind: spec.kind as StatKind } : {}),
      bands: (spec.bands ?? []).map(([lo, hi, label]) => ({ key: nextKey(), lo: String(lo), hi: String(hi), label })),
    })),
    cards: (s.cards ?? []).map((c) => ({
      key: nextKey(),
      title: c.title,
      keys: c.keys.join(', '),
      type: c.type,
      entry: c.entry,
      rules: rulesDraftOf(c),
    })),
    // a scenario stored before scripts existed has none
    scripts: {
      library: s.scripts?.library ?? '',
      input: s.scripts?.input ?? '',
      context: s.scripts?.context ?? '',
      output: s.scripts?.output ?? '',
    },
  };
}

const num = (s: string) => {
  const n = Number(s.trim());
  return s.trim() === '' || !Number.isFinite(n) ? 0 : n;
};

const REGEX_KEY = /^\/.+\/[gimsuy]*$/s;

// splitKeys turns "Gwen, the smith，forge" into ["Gwen", "the smith", "forge"]
// (ASCII, full-width and ideographic commas all separate keys); a
// /pattern/flags key stays whole with commas inside ("/a{1,3}/i"), as the
// server reads keys.
export function splitKeys(line: string): string[] {
  const parts = line.split(/([,，、])/);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    let k = (parts[i] ?? '').trim();
    if (k.startsWith('/') && !REGEX_KEY.test(k)) {
      for (let j = i + 2; j < parts.length; j += 2) {
        const joined = parts.slice(i, j + 1).join('').trim();
        if (REGEX_KEY.test(joined)) {
          k = joined;
          i = j;
          break;
        }
      }
    }
    if (k !== '') out.push(k);
  }
  return out;
}

// scenarioInputOf builds the body of POST/PUT /api/scenarios. The server
// rejects unknown fields, so cards go without their ids and optional stat
// fields only when set. Rows without a path are dropped. Scripts always go,
// all four, empty ones included.
export function scenarioInputOf(d: ScenarioDraft): ScenarioInput {
  const stat_schema: StatSchema = {};
  for (const row of d.stats) {
    const path = row.path.trim();
    if (path === '') continue;
    const bands: Band[] = row.bands
      .filter((b) => b.label.trim() !== '' || b.lo.trim() !== '' || b.hi.trim() !== '')
      .map((b) => [num(b.lo), num(b.hi), b.label.trim()]);
    const cooldown = Math.trunc(num(row.cooldown));
    stat_schema[path] = {
      min: num(row.min),
      max: num(row.max),
      initial: num(row.initial),
      ...(bands.length > 0 ? { bands } : {}),
      ...(cooldown > 0 ? { cooldown } : {}),
      ...(row.kind ? { kind: row.kind } : {}),
    };
  }
  const cards: CardInput[] = d.cards
    .filter((c) => c.title.trim() !== '' || c.entry.trim() !== '' || c.keys.trim() !== '')
    .map((c) => ({ title: c.title.trim(), keys: splitKeys(c.keys), entry: c.entry, type: c.type.trim(), ...rulesInputOf(c.rules) }));
  return {
    title: d.title.trim(),
    premise: d.premise,
    plot_essentials: d.plot_essentials,
    ai_instructions: d.ai_instructions,
    authors_note: d.authors_note,
    opening: d.opening,
    stat_schema,
    cards,
    scripts: { library: d.scripts.library, input: d.scripts.input, context: d.scripts.context, output: d.scripts.output },
  };
}
