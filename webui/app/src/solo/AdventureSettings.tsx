import { useId, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { format, type MessageKey } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { useAction } from '../useAction';
import { updateAdventure, type AdventureChange, type AdventureView } from './api';
import { focusOnMount } from '../focus';

type Field = 'authors_note' | 'persona_name' | 'persona_pronouns' | 'persona_desc';
type Draft = Record<Field, string>;

const FIELDS: readonly Field[] = ['authors_note', 'persona_name', 'persona_pronouns', 'persona_desc'];
const LABELS: Record<Field, MessageKey> = {
  authors_note: 'solo.editor.authorsNote',
  persona_name: 'solo.persona.name',
  persona_pronouns: 'solo.persona.pronouns',
  persona_desc: 'solo.persona.desc',
};

const draftOf = (a: AdventureView): Draft => ({
  authors_note: a.authors_note,
  persona_name: a.persona_name,
  persona_pronouns: a.persona_pronouns,
  persona_desc: a.persona_desc,
});

// the value sent for a field: one-line fields lose their outer spaces
const sent = (f: Field, v: string) => (f === 'persona_name' || f === 'persona_pronouns' ? v.trim() : v);

// AdventureSettings edits the author's note and the protagonist of a running
// adventure. Save sends only the fields that differ from the adventure and
// hands the server's answer to onSaved.
export function AdventureSettings({
  id,
  adventure,
  busy,
  onSaved,
  onClose,
}: {
  id: string;
  adventure: AdventureView;
  busy: boolean;
  onSaved: (adventure: AdventureView) => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const uid = useId();
  const [draft, setDraft] = useState<Draft>(() => draftOf(adventure));
  const [justSaved, setJustSaved] = useState(false);
  const action = useAction();

  const change: AdventureChange = {};
  for (const f of FIELDS) if (sent(f, draft[f]) !== adventure[f]) change[f] = sent(f, draft[f]);
  const dirty = Object.keys(change).length > 0;
  const badFields = action.error !== null ? Object.keys(action.fields) : [];

  const set = (f: Field, v: string) => {
    setDraft((d) => ({ ...d, [f]: v }));
    setJustSaved(false);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!dirty || busy || action.busy) return;
    const view = await action.run(() => updateAdventure(adventure.id, change));
    if (!view) return;
    setDraft(draftOf(view));
    setJustSaved(true);
    onSaved(view);
  };
  const fieldProps = (f: Field) => ({
    id: `${uid}-${f}`,
    value: draft[f],
    'aria-invalid': badFields.includes(f) || undefined,
    onChange: (e: { target: { value: string } }) => set(f, e.target.value),
  });
  const label = (f: Field) => <label htmlFor={`${uid}-${f}`}>{t(LABELS[f])}</label>;

  return (
    <section
      id={id}
      className="panel adventure-settings"
      aria-labelledby={`${uid}-title`}
      data-testid="adventure-settings"
    >
      <h2 id={`${uid}-title`}>{t('solo.settings.title')}</h2>
      <p className="hint">{t('solo.settings.intro')}</p>
      <form onSubmit={submit}>
        <div className="field wide">
          {label('authors_note')}
          <textarea ref={focusOnMount} rows={3} aria-describedby={`${uid}-note-hint`} {...fieldProps('authors_note')} />
          <span className="hint" id={`${uid}-note-hint`}>
            {t('solo.editor.authorsNoteHint')}
          </span>
        </div>
        <fieldset className="adventure-protagonist">
          <legend>{t('solo.settings.protagonist')}</legend>
          <div className="fields">
            <div className="field">
              {label('persona_name')}
              <input maxLength={120} {...fieldProps('persona_name')} />
            </div>
            <div className="field">
              {label('persona_pronouns')}
              <input maxLength={60} placeholder={t('solo.persona.pronounsPlaceholder')} {...fieldProps('persona_pronouns')} />
            </div>
          </div>
          <div className="field wide">
            {label('persona_desc')}
            <textarea rows={3} maxLength={2000} {...fieldProps('persona_desc')} />
          </div>
        </fieldset>
        {action.error !== null && (
          <ErrorNotice
            code={action.error}
            lead={
              badFields.length > 0
                ? format(t('solo.editor.badFields'), {
                    fields: badFields.map((f) => ((FIELDS as readonly string[]).includes(f) ? t(LABELS[f as Field]) : f)).join(', '),
                  })
                : t('solo.settings.failed')
            }
          />
        )}
        <p className="form-actions">
          <button type="submit" disabled={busy || action.busy || !dirty}>
            {t('solo.settings.save')}
          </button>{' '}
          <button type="button" onClick={onClose}>
            {t('solo.settings.close')}
          </button>{' '}
          <span role="status" className="hint">
            {justSaved && !dirty && t('common.saved')}
          </span>
        </p>
      </form>
    </section>
  );
}
