import { useId, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { ModalDialog } from '../components/ModalDialog';
import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { useAction } from '../useAction';
import { playScenario } from './api';
import { focusOnMount } from '../focus';

// PlayDialog asks who the player is (name, pronouns, a few words), starts an
// adventure from the scenario and opens it.
export function PlayDialog({ scenarioId, title, onClose }: { scenarioId: number; title: string; onClose: () => void }) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const id = useId();
  const [name, setName] = useState('');
  const [pronouns, setPronouns] = useState('');
  const [desc, setDesc] = useState('');
  const action = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const page = await action.run(() =>
      playScenario(scenarioId, { persona_name: name.trim(), persona_pronouns: pronouns.trim(), persona_desc: desc.trim() }),
    );
    if (page) navigate(`/solo/adventures/${page.adventure.id}`);
  };

  return (
    <ModalDialog kind="dialog" className="dialog" labelledBy={`${id}-title`} testId="play-dialog" onClose={onClose}>
      <h2 id={`${id}-title`}>{format(t('solo.play.title'), { title })}</h2>
      <p className="hint">{t('solo.play.hint')}</p>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${id}-name`}>{t('solo.persona.name')}</label>
          <input id={`${id}-name`} ref={focusOnMount} value={name} maxLength={120} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-pronouns`}>{t('solo.persona.pronouns')}</label>
          <input
            id={`${id}-pronouns`}
            value={pronouns}
            maxLength={60}
            placeholder={t('solo.persona.pronounsPlaceholder')}
            onChange={(e) => setPronouns(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-desc`}>{t('solo.persona.desc')}</label>
          <textarea id={`${id}-desc`} rows={3} value={desc} onChange={(e) => setDesc(e.target.value)} />
        </div>
        {action.error !== null && <ErrorNotice code={action.error} lead={t('solo.play.failed')} />}
        <p className="form-actions">
          <button type="submit" disabled={action.busy}>
            {t('solo.play.start')}
          </button>{' '}
          <button type="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
        </p>
      </form>
    </ModalDialog>
  );
}
