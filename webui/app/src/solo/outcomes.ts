// Words for the referee's report under a narration: one chip per stat path
// ("hp −15", "trust +5 (clamped)", "gold rejected: cooldown").
import { format, type MessageKey } from '../i18n/messages';
import type { Outcome } from './api';

// shortNames names each path by its shortest unambiguous suffix of segments,
// as the server's state line does: "player.hp" is "hp", while
// npc.gwen.trust and npc.bob.trust stay "gwen.trust" and "bob.trust".
export function shortNames(paths: string[]): Map<string, string> {
  const unique = [...new Set(paths)];
  const segs = new Map(unique.map((p) => [p, p.split('.')]));
  const suffix = (p: string, k: number) => {
    const s = segs.get(p)!;
    return s.slice(Math.max(0, s.length - k)).join('.');
  };
  const names = new Map<string, string>();
  for (const p of unique) {
    const n = segs.get(p)!.length;
    for (let k = 1; ; k++) {
      const name = suffix(p, k);
      if (k >= n || unique.every((q) => q === p || suffix(q, k) !== name)) {
        names.set(p, name);
        break;
      }
    }
  }
  return names;
}

// MINUS is the typographic minus sign: "−15" reads as a change, not a hyphen.
const MINUS = '\u2212';

function formatNumber(n: number): string {
  // at most two decimals, no trailing zeros
  return String(Math.round(n * 100) / 100);
}

export function signed(n: number): string {
  if (n > 0) return `+${formatNumber(n)}`;
  if (n < 0) return `${MINUS}${formatNumber(-n)}`;
  return '±0';
}

type T = (key: MessageKey) => string;

function valueText(t: T, v: unknown): string {
  if (v === true) return t('solo.value.yes');
  if (v === false) return t('solo.value.no');
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'string') return v === '' ? '-' : v;
  return JSON.stringify(v) ?? '';
}

const REASONS = ['unknown_path', 'wrong_type', 'cooldown', 'clamped_to_min', 'clamped_to_max'] as const;

function reasonText(t: T, reason: string | undefined): string {
  if (reason && (REASONS as readonly string[]).includes(reason)) return t(`solo.reason.${reason}` as MessageKey);
  return reason ?? '';
}

// chipText renders one outcome; name is the stat's short name.
export function chipText(t: T, o: Outcome, name: string): string {
  if (o.status === 'rejected') {
    const reason = reasonText(t, o.reason);
    return reason
      ? format(t('solo.chip.rejected'), { stat: name, reason })
      : format(t('solo.chip.rejectedBare'), { stat: name });
  }
  let change: string;
  if (typeof o.from === 'number' && typeof o.to === 'number') {
    change = `${name} ${signed(o.to - o.from)}`;
  } else if (o.to !== undefined) {
    change = `${name} → ${valueText(t, o.to)}`;
  } else {
    change = name;
  }
  return o.status === 'clamped' ? format(t('solo.chip.clamped'), { change }) : change;
}

// chipTitle is the longer explanation offered on hover and to screen readers.
export function chipTitle(t: T, o: Outcome): string {
  const parts = [o.path, t(`solo.status.${o.status}` as MessageKey)];
  if (o.from !== undefined || o.to !== undefined) {
    parts.push(`${o.from === undefined ? '?' : valueText(t, o.from)} → ${o.to === undefined ? '?' : valueText(t, o.to)}`);
  }
  const reason = reasonText(t, o.reason);
  if (reason) parts.push(reason);
  return parts.join(' · ');
}

// chipTrend says which way an applied or clamped number went: 'loss' (hp −15:
// damage, shown red), 'gain' (healing, green), or 'set' for anything else
// (a text or yes/no stat, a rejected change).
export function chipTrend(o: Outcome): 'loss' | 'gain' | 'set' {
  if (o.status === 'rejected' || typeof o.from !== 'number' || typeof o.to !== 'number') return 'set';
  return o.to < o.from ? 'loss' : o.to > o.from ? 'gain' : 'set';
}
