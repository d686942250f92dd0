import { useEffect, useRef, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { damageName } from '../pages/SheetLists';
import { useAction } from '../useAction';
import { getCharacter, quickRoll, type AttackDerived, type RollResultView } from './api';
import { newKey } from './InputBar';
import { signed } from './labels';

// OwnAttacks: a seated player's attacks from their sheet, each with a
// to-hit and a damage button. The roll names only the attack; the server
// adds the numbers of the stored sheet, so the card shows what the sheet
// says and the roll adds the same. The sheet is read when the list opens.
export function OwnAttacks({ sessionId, characterId }: { sessionId: number; characterId: number }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [attacks, setAttacks] = useState<AttackDerived[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [last, setLast] = useState<{ label: string; r: RollResultView } | null>(null);
  const action = useAction();
  const pending = useRef<{ sig: string; key: string } | null>(null);

  useEffect(() => {
    if (!open) return;
    const ctrl = new AbortController();
    getCharacter(characterId, ctrl.signal).then(
      (c) => {
        if (!ctrl.signal.aborted) {
          setAttacks(c.derived.attacks ?? []);
          setLoadError(null);
        }
      },
      (e: unknown) => {
        if (!ctrl.signal.aborted) setLoadError((e as { code?: string }).code ?? '');
      },
    );
    return () => ctrl.abort();
  }, [open, characterId]);

  // roll posts one quick roll of an attack; a retry of the same roll reuses its key.
  const roll = async (a: AttackDerived, damage: boolean, label: string) => {
    const sig = JSON.stringify([a.name, damage]);
    if (pending.current?.sig !== sig) pending.current = { sig, key: newKey() };
    const key = pending.current.key;
    const r = await action.run(() => quickRoll(sessionId, { formula: '', attack: a.name, damage, idempotency_key: key }));
    if (r) {
      pending.current = null;
      setLast({ label, r });
    }
  };

  return (
    <details className="own-resources own-attacks" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{t('card.attacks')}</summary>
      {open && attacks === null && loadError === null && <p className="hint">{t('common.loading')}</p>}
      {loadError !== null && <ErrorNotice code={loadError} />}
      {attacks !== null && attacks.length === 0 && <p className="hint">{t('card.attacks.empty')}</p>}
      {attacks !== null && attacks.length > 0 && (
        <ul className="resource-list">
          {attacks.map((a) => {
            const hit = format(t('card.attackOf'), { attack: a.name });
            const dmg = format(t('card.damageOf'), { attack: a.name });
            return (
              <li key={a.name} data-testid="card-attack" data-attack={a.name}>
                <span>{a.name}</span>{' '}
                <button type="button" aria-label={hit} title={hit} disabled={action.busy} onClick={() => roll(a, false, hit)}>
                  {format(t('card.attackRoll'), { toHit: signed(a.to_hit) })}
                </button>{' '}
                <button type="button" aria-label={dmg} title={dmg} disabled={action.busy} onClick={() => roll(a, true, dmg)}>
                  {format(t('card.damageRoll'), { damage: `${a.damage} ${damageName(a.damage_type, t)}` })}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {last && (
        <p className="hint" role="status" data-testid="card-attack-result">
          {last.label}: <code>{last.r.formula}</code> = <strong>{last.r.total}</strong>
        </p>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </details>
  );
}
