import { NavLink } from 'react-router';
import { useI18n } from '../i18n/I18nProvider';
import { useAccount } from './AccountContext';

// AccountLink is the header's way to the account page on a hosted server: the
// account's email, or an invitation to a guest. Nothing on a local server.
export function AccountLink() {
  const { t } = useI18n();
  const { status, me } = useAccount();
  if (status !== 'on') return null;
  return (
    <NavLink to="/account" className="account-link" data-testid="account-link">
      {me === null ? (
        t('account.nav.account')
      ) : me.registered && me.email ? (
        <>
          <span className="visually-hidden">{t('account.nav.signedInAs')} </span>
          <span className="account-email">{me.email}</span>
        </>
      ) : (
        t('account.nav.guest')
      )}
    </NavLink>
  );
}
