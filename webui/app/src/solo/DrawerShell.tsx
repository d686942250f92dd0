import { useId, type ReactNode, type RefObject } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { ModalDialog } from '../components/ModalDialog';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/messages';
import type { Loadable } from '../useApi';

// DrawerShell is the frame of a play-screen drawer (the story cards, the
// memory bank): a labelled dialog that Escape closes, its title with Reload
// and Close, an intro, and the loading and error states of useDrawerData;
// children show the data once there is some. keys names its texts:
// solo.<keys>.title, .reload, .close, .intro and .failed.
export function DrawerShell({
  keys,
  loaded,
  ready,
  reload,
  close,
  onClose,
  children,
}: {
  keys: 'lore' | 'memory';
  loaded: Loadable<unknown>;
  ready: boolean;
  reload: () => void;
  close: RefObject<HTMLButtonElement | null>;
  onClose: () => void;
  children: ReactNode;
}) {
  const { t } = useI18n();
  const id = useId();
  const key = (k: string) => `solo.${keys}.${k}` as MessageKey;
  return (
    <ModalDialog
      kind="drawer"
      className={`drawer ${keys}-drawer`}
      labelledBy={`${id}-title`}
      testId={`${keys}-panel`}
      onClose={onClose}
    >
      <div className="drawer-head">
        <h2 id={`${id}-title`}>{t(key('title'))}</h2>
        <span className="drawer-tools">
          <button type="button" onClick={reload} disabled={loaded.state === 'loading'}>
            {t(key('reload'))}
          </button>{' '}
          <button type="button" ref={close} onClick={onClose}>
            {t(key('close'))}
          </button>
        </span>
      </div>
      <p className="hint">{t(key('intro'))}</p>
      {!ready && loaded.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {loaded.state === 'error' && <ErrorNotice code={loaded.code} lead={t(key('failed'))} onRetry={reload} />}
      {ready && children}
    </ModalDialog>
  );
}
