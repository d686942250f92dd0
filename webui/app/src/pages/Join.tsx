import { useCallback, useEffect, useId, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { Field } from '../components/Field';
import { useI18n } from '../i18n/I18nProvider';
import { format } from '../i18n/messages';
import { serverText } from '../i18n/serverText';
import {
  getMe,
  importCharacter,
  joinAndSit,
  joinRoom,
  listCharacters,
  listQuickTemplates,
  previewInvite,
  type Character,
  type InvitePreview,
  type QuickTemplate,
  type User,
} from '../table/api';
import { useAction } from '../useAction';
import { useApi } from '../useApi';
import { usePageTitle } from '../usePageTitle';
import './FirstRun.css';
import { focusOnMount } from '../focus';

interface Invite {
  preview: InvitePreview;
  me: User;
  characters: Character[];
  templates: QuickTemplate[];
}

// JoinPage is the target of an invite link. At a table that lets friends
// sit down (a table made in one step does) it asks a name and a character
// and seats the friend in one call, in the running game at once; in a room
// where the DM assigns the seats it joins and goes to the room.
export function JoinPage() {
  const { t } = useI18n();
  usePageTitle('title.join');
  const { code = '' } = useParams();
  const load = useCallback(
    async (signal: AbortSignal): Promise<Invite> => {
      const [preview, me, characters, templates] = await Promise.all([
        previewInvite(code, signal),
        getMe(signal),
        listCharacters(signal),
        listQuickTemplates(signal),
      ]);
      return { preview, me, characters: characters.characters, templates: templates.templates };
    },
    [code],
  );
  const [invite, reload] = useApi(load);

  if (invite.state === 'loading')
    return (
      <div className="firstrun">
        <h1>{t('join.title')}</h1>
        <p aria-busy="true">{t('join.working')}</p>
      </div>
    );
  if (invite.state === 'error')
    return (
      <div className="firstrun">
        <h1>{t('join.title')}</h1>
        <ErrorNotice code={invite.code} lead={t('join.previewFailed')} onRetry={invite.code === 'invite_code_invalid' ? undefined : reload} />
        <p>
          <Link to="/tables">{t('join.back')}</Link>
        </p>
      </div>
    );
  const { preview } = invite.data;
  if (preview.revoked)
    return (
      <div className="firstrun">
        <h1>{preview.room_name}</h1>
        <ErrorNotice code="room_access_revoked" lead={t('join.failed')} />
      </div>
    );
  if (!preview.self_claim) return <JoinRoomOnly code={code} />;
  return <SitDown code={code} invite={invite.data} />;
}

// JoinRoomOnly joins a room whose DM assigns the seats, and goes there.
function JoinRoomOnly({ code }: { code: string }) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    joinRoom(code).then(
      (room) => {
        if (!cancelled) navigate(`/rooms/${room.id}`, { replace: true });
      },
      (e: unknown) => {
        if (!cancelled) setError(e instanceof ApiError ? e.code : '');
      },
    );
    return () => {
      cancelled = true;
    };
  }, [code, navigate]);
  return (
    <div className="firstrun">
      <h1>{t('join.title')}</h1>
      {error === null ? (
        <p aria-busy="true">{t('join.working')}</p>
      ) : (
        <>
          <ErrorNotice code={error} lead={t('join.failed')} />
          <p>
            <Link to="/tables">{t('join.back')}</Link>
          </p>
        </>
      )}
    </div>
  );
}

function InviteHead({ preview }: { preview: InvitePreview }) {
  const { t } = useI18n();
  const dm = preview.dm_name ? serverText(t, preview.dm_name_code, preview.dm_name_params, preview.dm_name) : null;
  const facts = [
    preview.campaign_name && preview.campaign_name !== preview.room_name ? format(t('join.campaign'), { name: preview.campaign_name }) : null,
    dm ? format(t('join.dm'), { name: dm }) : null,
    format(t('join.freeSeats'), { n: preview.free_seats }),
  ].filter(Boolean);
  return (
    <>
      <h1 data-testid="invite-title">{format(t('join.invited'), { room: preview.room_name })}</h1>
      <p className="firstrun-facts">{facts.join(' · ')}</p>
      {preview.session && (
        <p className="lead">{t(preview.session.status === 'active' ? 'join.running' : 'join.lobby')}</p>
      )}
    </>
  );
}

// choice is "c:<id>" for one of the friend's characters, "t:<key>" for a quick template.
type Choice = `c:${number}` | `t:${string}`;

function SitDown({ code, invite }: { code: string; invite: Invite }) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const { preview, me, templates } = invite;
  const [characters, setCharacters] = useState(invite.characters);
  // A guest still has the server's name: ask for theirs.
  const [name, setName] = useState(me.name_code ? '' : me.display_name);
  const [choice, setChoice] = useState<Choice>(
    characters.length > 0 ? `c:${characters[0]!.id}` : `t:${templates[0]?.key ?? ''}`,
  );
  const [characterName, setCharacterName] = useState('');
  const [imported, setImported] = useState<string | null>(null);
  const sit = useAction();
  const upload = useAction();
  const ids = { name: useId(), nameHint: useId(), charName: useId(), file: useId() };

  if (preview.seat_id != null)
    return (
      <div className="firstrun">
        <InviteHead preview={preview} />
        <p data-testid="join-seated">{t('join.seated')}</p>
        <p className="firstrun-actions">
          {preview.session ? (
            <Link className="firstrun-primary" to={`/sessions/${preview.session.id}`}>
              {t('join.goTable')}
            </Link>
          ) : (
            <Link to="/tables">{t('join.back')}</Link>
          )}
        </p>
      </div>
    );

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setImported(null);
    const ch = await upload.run(() => importCharacter(file));
    if (ch) {
      setCharacters((list) => [ch, ...list]);
      setChoice(`c:${ch.id}`);
      setImported(ch.name);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const [kind, value] = [choice.slice(0, 1), choice.slice(2)];
    const v = await sit.run(() =>
      joinAndSit({
        invite_code: code,
        display_name: name.trim(),
        ...(kind === 'c' ? { character_id: Number(value) } : { template: value, character_name: characterName.trim() || undefined }),
      }),
    );
    if (v) navigate(v.session ? `/sessions/${v.session.id}` : `/rooms/${v.room_id}`);
  };

  const template = choice.startsWith('t:') ? templates.find((tp) => `t:${tp.key}` === choice) : undefined;
  return (
    <div className="firstrun">
      <InviteHead preview={preview} />
      <form className="panel firstrun-form" onSubmit={submit} data-testid="join-form">
        <Field label={t('join.name')} htmlFor={ids.name}>
          <input
            id={ids.name}
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={80}
            required
            ref={focusOnMount}
            autoComplete="nickname"
            aria-describedby={ids.nameHint}
          />
          <span id={ids.nameHint} className="hint">
            {t('join.nameHint')}
          </span>
        </Field>
        <fieldset className="firstrun-choices">
          <legend className="field-label">{t('join.character')}</legend>
          {characters.length > 0 && (
            <>
              <p className="firstrun-group">{t('join.mine')}</p>
              <div className="firstrun-cards">
                {characters.map((c) => (
                  <label key={c.id} className="firstrun-card">
                    <input type="radio" name="character" checked={choice === `c:${c.id}`} onChange={() => setChoice(`c:${c.id}`)} />
                    <span className="firstrun-card-title">{c.name}</span>
                    <span className="hint">
                      {[c.class, format(t('common.levelN'), { n: c.level })].filter(Boolean).join(' · ')}
                    </span>
                  </label>
                ))}
              </div>
            </>
          )}
          <p className="firstrun-group">{t('join.quick')}</p>
          <div className="firstrun-cards">
            {templates.map((tp) => (
              <label key={tp.key} className="firstrun-card" data-template={tp.key}>
                <input type="radio" name="character" checked={choice === `t:${tp.key}`} onChange={() => setChoice(`t:${tp.key}`)} />
                <span className="firstrun-card-title">{templateName(t, tp.key)}</span>
                <span className="hint">
                  {format(t('join.template.stats'), { ac: tp.derived.ac, hp: tp.character.hp.max })}
                </span>
              </label>
            ))}
          </div>
          {template && (
            <Field label={t('join.characterName')} htmlFor={ids.charName}>
              <input
                id={ids.charName}
                value={characterName}
                onChange={(e) => setCharacterName(e.target.value)}
                maxLength={80}
                placeholder={template.character.name}
              />
            </Field>
          )}
          <Field label={t('join.import')} htmlFor={ids.file}>
            <input id={ids.file} type="file" accept=".json,application/json" onChange={onFile} disabled={upload.busy} />
            {imported !== null && (
              <p role="status" className="hint">
                {format(t('join.imported'), { name: imported })}
              </p>
            )}
            {upload.error !== null && <ErrorNotice code={upload.error} lead={t('join.importFailed')} />}
          </Field>
        </fieldset>
        <p>
          <button type="submit" className="firstrun-primary" disabled={sit.busy}>
            {t('join.submit')}
          </button>
        </p>
        {sit.error !== null && <ErrorNotice code={sit.error} lead={t('join.sitFailed')} />}
      </form>
    </div>
  );
}

const TEMPLATE_KEYS = {
  fighter: 'join.template.fighter',
  rogue: 'join.template.rogue',
  wizard: 'join.template.wizard',
  cleric: 'join.template.cleric',
} as const;

// templateName names a quick character's class in the reader's language
// (a template this build does not know by its key).
function templateName(t: (k: (typeof TEMPLATE_KEYS)[keyof typeof TEMPLATE_KEYS]) => string, key: string): string {
  return key in TEMPLATE_KEYS ? t(TEMPLATE_KEYS[key as keyof typeof TEMPLATE_KEYS]) : key;
}
