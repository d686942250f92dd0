// The account page of a hosted server: a guest registers (in place: what the
// guest played is kept) or logs in; an account logs out (here or everywhere),
// sees the browsers logged in to it and ends any other one, changes its
// password or deletes itself. A local server has no accounts: there the
// page says so and leads home.
import { useCallback, useId, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { useAccount } from '../account/AccountContext';
import {
  changePassword,
  deleteAccount,
  endSession,
  listSessions,
  login,
  logout,
  register,
  type AccountMe,
  type BrowserSession,
} from '../account/api';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { format, type MessageKey } from '../i18n/messages';
import { personName } from '../i18n/serverText';
import { useAction, type Action } from '../useAction';
import { Link } from 'react-router';
import { useApi } from '../useApi';
import { focusOnMount } from '../focus';

const PASSWORD_MAX = 256;

// fieldBad: the server refused the form naming this field (account_invalid).
const fieldBad = (action: Action, ...names: string[]) =>
  action.error === 'account_invalid' && names.some((n) => Object.hasOwn(action.fields, n));

// AccountError shows a refused account action next to its form: the lead, and
// the error's own text; a rate limit adds how long to wait. When the refusal
// is only about fields already marked at their inputs (a wrong current
// password is account_invalid on that field), the general account_invalid text
// would mislead, and the notice points at the fields instead.
function AccountError({ action, lead, atFields = false }: { action: Action; lead: string; atFields?: boolean }) {
  const { t } = useI18n();
  if (action.error === null) return null;
  const wait = action.details.retry_after_seconds;
  const detail =
    action.error === 'rate_limited' && typeof wait === 'number' && wait > 0
      ? wait < 90
        ? format(t('account.retryAfterSeconds'), { n: Math.ceil(wait) })
        : format(t('account.retryAfter'), { n: Math.ceil(wait / 60) })
      : undefined;
  if (atFields && action.error === 'account_invalid')
    return (
      <div className="notice notice-error" role="alert">
        <p className="notice-lead">{lead}</p>
        <p>{t('account.fieldsMarked')}</p>
      </div>
    );
  return <ErrorNotice code={action.error} lead={lead} detail={detail} />;
}

function Field({
  id,
  label,
  type,
  value,
  onChange,
  autoComplete,
  hint,
  error,
  autoFocus,
}: {
  id: string;
  label: string;
  type: 'email' | 'password';
  value: string;
  onChange: (v: string) => void;
  autoComplete: string;
  hint?: string;
  error?: string | null;
  autoFocus?: boolean;
}) {
  const hintId = hint ? `${id}-hint` : '';
  const errId = error ? `${id}-err` : '';
  const describedBy = [hintId, errId].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        ref={autoFocus ? focusOnMount : undefined}
        type={type}
        value={value}
        required
        autoComplete={autoComplete}
        maxLength={type === 'password' ? PASSWORD_MAX : 320}
        spellCheck="false"
        autoCapitalize="none"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={errId}>
          {error}
        </p>
      )}
    </div>
  );
}

// Notice tells the outcome of the last account action and takes the focus, as
// the form that was used is usually gone.
function Notice() {
  const { t } = useI18n();
  const { notice, me } = useAccount();
  const ref = useRef<HTMLParagraphElement>(null);
  useLayoutEffect(() => {
    if (notice) ref.current?.focus();
  }, [notice]);
  return (
    <p role="status" ref={ref} tabIndex={-1} className="account-notice" data-testid="account-notice">
      {notice && format(t(notice), { email: me?.email ?? '' })}
    </p>
  );
}

// usePasswordPair keeps a new password and its confirmation for a form that
// sets one (register, change password).
function usePasswordPair(action: Action) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  // matches is the submit guard: a confirmation that differs is marked at its
  // field (and the last refusal cleared) before anything is sent.
  const matches = () => {
    if (password !== confirm) {
      action.clear();
      setMismatch(true);
      return false;
    }
    setMismatch(false);
    return true;
  };
  const reset = () => {
    setPassword('');
    setConfirm('');
  };
  return { password, setPassword, confirm, setConfirm, mismatch, matches, reset };
}

// NewPasswordFields are the fields of a usePasswordPair: the new password
// (with the rules as its hint; invalid when the server refused it) at
// `${id}-${name}` and its confirmation at `${id}-confirm`.
function NewPasswordFields({
  id,
  name,
  pair,
  label,
  confirmLabel,
  invalid,
}: {
  id: string;
  name: string;
  pair: ReturnType<typeof usePasswordPair>;
  label: string;
  confirmLabel: string;
  invalid: boolean;
}) {
  const { t } = useI18n();
  return (
    <>
      <Field
        id={`${id}-${name}`}
        label={label}
        type="password"
        value={pair.password}
        onChange={pair.setPassword}
        autoComplete="new-password"
        hint={t('account.password.hint')}
        error={invalid ? t('account.field.password') : null}
      />
      <Field
        id={`${id}-confirm`}
        label={confirmLabel}
        type="password"
        value={pair.confirm}
        onChange={pair.setConfirm}
        autoComplete="new-password"
        error={pair.mismatch ? t('account.password.mismatch') : null}
      />
    </>
  );
}

function RegisterForm() {
  const { t, errorText } = useI18n();
  const { switched } = useAccount();
  const id = useId();
  const [email, setEmail] = useState('');
  const action = useAction();
  const pair = usePasswordPair(action);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!pair.matches()) return;
    const me = await action.run(() => register(email.trim(), pair.password));
    if (me) await switched('account.register.done');
  };

  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.register.title')}</h2>
      <p>{t('account.register.intro')}</p>
      <form className="account-form" onSubmit={submit} noValidate data-testid="register-form">
        <Field
          id={`${id}-email`}
          label={t('account.email')}
          type="email"
          value={email}
          onChange={setEmail}
          autoComplete="email"
          error={
            fieldBad(action, 'email') ? t('account.field.email') : action.error === 'email_taken' ? errorText('email_taken') : null
          }
        />
        <NewPasswordFields
          id={id}
          name="password"
          pair={pair}
          label={t('account.password')}
          confirmLabel={t('account.password.confirm')}
          invalid={fieldBad(action, 'password')}
        />
        <AccountError action={action} lead={t('account.register.failed')} />
        <p className="form-actions">
          <button type="submit" disabled={action.busy}>
            {t('account.register.submit')}
          </button>
        </p>
      </form>
    </section>
  );
}

function LoginForm() {
  const { t } = useI18n();
  const { switched } = useAccount();
  const id = useId();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const me = await action.run(() => login(email.trim(), password));
    if (me) await switched('account.login.done');
  };

  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.login.title')}</h2>
      <p>{t('account.login.intro')}</p>
      <form className="account-form" onSubmit={submit} noValidate data-testid="login-form">
        <Field
          id={`${id}-email`}
          label={t('account.email')}
          type="email"
          value={email}
          onChange={setEmail}
          autoComplete="username"
          error={fieldBad(action, 'email') ? t('account.field.email') : null}
        />
        <Field
          id={`${id}-password`}
          label={t('account.password')}
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="current-password"
        />
        <AccountError action={action} lead={t('account.login.failed')} />
        <p className="form-actions">
          <button type="submit" disabled={action.busy}>
            {t('account.login.submit')}
          </button>
        </p>
      </form>
    </section>
  );
}

function LogoutPanel() {
  const { t } = useI18n();
  const { switched } = useAccount();
  const id = useId();
  const action = useAction();

  const out = async (everywhere: boolean) => {
    const r = await action.run(() => logout(everywhere));
    if (r) await switched(everywhere ? 'account.logout.everywhereDone' : 'account.logout.done');
  };

  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.logout.title')}</h2>
      <p>{t('account.logout.intro')}</p>
      <p className="form-actions">
        <button type="button" onClick={() => void out(false)} disabled={action.busy}>
          {t('account.logout.submit')}
        </button>
        <button type="button" onClick={() => void out(true)} disabled={action.busy}>
          {t('account.logout.everywhere')}
        </button>
      </p>
      <AccountError action={action} lead={t('account.logout.failed')} />
    </section>
  );
}

// sessionName is how a session's browser reads: "Chrome on Android", or the
// browser alone when the system is unknown.
function sessionName(t: (k: MessageKey) => string, s: BrowserSession): string {
  const browser = s.browser || t('account.sessions.unknownBrowser');
  return s.os ? format(t('account.sessions.family'), { browser, os: s.os }) : browser;
}

// SessionsPanel lists the browsers logged in to the account (this one
// marked) with an End button for each other one: that browser is logged out
// on its next request.
function SessionsPanel() {
  const { t, lang } = useI18n();
  const id = useId();
  const [loaded, reload] = useApi(useCallback((signal: AbortSignal) => listSessions(signal), []));
  const action = useAction();
  const [ended, setEnded] = useState('');
  const when = (iso: string) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? '' : d.toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' });
  };

  const end = async (s: BrowserSession) => {
    setEnded('');
    const r = await action.run(() => endSession(s.id));
    if (r) setEnded(format(t('account.sessions.ended'), { name: sessionName(t, s) }));
    // Ended now, or refused (perhaps ended elsewhere): the list says what is left.
    reload();
  };

  return (
    <section className="panel" aria-labelledby={`${id}-title`} data-testid="sessions-panel">
      <h2 id={`${id}-title`}>{t('account.sessions.title')}</h2>
      <p>{t('account.sessions.intro')}</p>
      {loaded.state === 'loading' ? (
        <p aria-busy="true">{t('common.loading')}</p>
      ) : loaded.state === 'error' ? (
        <ErrorNotice code={loaded.code} lead={t('account.sessions.failed')} onRetry={reload} />
      ) : (
        <ul className="session-list" data-testid="session-list">
          {loaded.data.map((s) => {
            const name = sessionName(t, s);
            const seen = when(s.last_seen_at);
            return (
              <li key={s.id} className="session-item">
                <div className="session-what">
                  <span className="session-name">{name}</span>
                  <span className="hint">{format(t('account.sessions.times'), { created: when(s.created_at), seen })}</span>
                </div>
                {s.current ? (
                  <span className="badge badge-on">{t('account.sessions.current')}</span>
                ) : (
                  <button
                    type="button"
                    onClick={() => void end(s)}
                    disabled={action.busy}
                    aria-label={format(t('account.sessions.endLabel'), { name, seen })}
                  >
                    {t('account.sessions.end')}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p role="status" className="hint session-status" data-testid="sessions-status">
        {ended}
      </p>
      <AccountError action={action} lead={t('account.sessions.endFailed')} />
    </section>
  );
}

function PasswordForm() {
  const { t } = useI18n();
  const { switched } = useAccount();
  const id = useId();
  const [current, setCurrent] = useState('');
  const action = useAction();
  const pair = usePasswordPair(action);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!pair.matches()) return;
    const me = await action.run(() => changePassword(current, pair.password));
    if (!me) return;
    setCurrent('');
    pair.reset();
    await switched('account.password.done');
  };

  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.password.title')}</h2>
      <p>{t('account.password.intro')}</p>
      <form className="account-form" onSubmit={submit} noValidate data-testid="password-form">
        <Field
          id={`${id}-current`}
          label={t('account.password.current')}
          type="password"
          value={current}
          onChange={setCurrent}
          autoComplete="current-password"
          error={action.error === 'login_failed' || fieldBad(action, 'current_password') ? t('account.field.current') : null}
        />
        <NewPasswordFields
          id={id}
          name="new"
          pair={pair}
          label={t('account.password.new')}
          confirmLabel={t('account.password.newConfirm')}
          invalid={fieldBad(action, 'new_password', 'password')}
        />
        <AccountError
          action={action}
          lead={t('account.password.failed')}
          atFields={fieldBad(action, 'current_password', 'new_password', 'password')}
        />
        <p className="form-actions">
          <button type="submit" disabled={action.busy}>
            {t('account.password.submit')}
          </button>
        </p>
      </form>
    </section>
  );
}

const DELETED: MessageKey[] = [
  'account.delete.what.account',
  'account.delete.what.rooms',
  'account.delete.what.characters',
  'account.delete.what.solo',
  'account.delete.what.agents',
  'account.delete.what.memberships',
];

function DeletePanel({ me }: { me: AccountMe }) {
  const { t } = useI18n();
  const { switched } = useAccount();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const action = useAction();
  const openRef = useRef<HTMLButtonElement>(null);
  // closed: the form was open and is closed now, so the focus goes back to
  // the button that opened it. Opening focuses the password as it mounts
  // (focusOnMount runs in the commit, with the input in place).
  const closed = useRef(false);

  useLayoutEffect(() => {
    if (closed.current) openRef.current?.focus();
    closed.current = false;
  }, [open]);

  const show = (yes: boolean) => {
    closed.current = !yes;
    setOpen(yes);
    setPassword('');
    action.clear();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await action.run(() => deleteAccount(password));
    if (r) await switched('account.delete.done');
  };

  return (
    <section className="panel account-danger" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('account.delete.title')}</h2>
      <p>{t('account.delete.intro')}</p>
      {open ? (
        <form
          className="account-form"
          onSubmit={submit}
          noValidate
          aria-labelledby={`${id}-confirm`}
          aria-describedby={`${id}-what`}
          data-testid="delete-form"
        >
          <p id={`${id}-confirm`}>
            <strong>{format(t('account.delete.confirm'), { email: me.email ?? '' })}</strong>
          </p>
          <div id={`${id}-what`}>
            <p>{t('account.delete.what')}</p>
            <ul className="account-deleted" data-testid="delete-what">
              {DELETED.map((k) => (
                <li key={k}>{t(k)}</li>
              ))}
            </ul>
          </div>
          <Field
            id={`${id}-password`}
            autoFocus
            label={t('account.delete.password')}
            type="password"
            value={password}
            onChange={setPassword}
            autoComplete="current-password"
            error={action.error === 'login_failed' || fieldBad(action, 'password') ? t('account.field.current') : null}
          />
          <AccountError action={action} lead={t('account.delete.failed')} atFields={fieldBad(action, 'password')} />
          <p className="form-actions">
            <button type="submit" className="danger" disabled={action.busy || password === ''}>
              {t('account.delete.submit')}
            </button>
            <button type="button" onClick={() => show(false)}>
              {t('common.cancel')}
            </button>
          </p>
        </form>
      ) : (
        <button type="button" ref={openRef} onClick={() => show(true)}>
          {t('account.delete.open')}
        </button>
      )}
    </section>
  );
}

export function AccountPage() {
  const { t } = useI18n();
  usePageTitle('title.account');
  const { status, me, error, refresh } = useAccount();
  if (status === 'loading') return <p aria-busy="true">{t('common.loading')}</p>;
  if (status === 'off') return <LocalAccount />;
  return (
    <div className="account-page">
      <h1>{t('account.title')}</h1>
      <Notice />
      {me === null ? (
        error !== null ? (
          <ErrorNotice code={error} lead={t('account.failed')} onRetry={refresh} />
        ) : (
          <p aria-busy="true">{t('account.loading')}</p>
        )
      ) : me.registered ? (
        <>
          <p className="lead" data-testid="account-state">
            {format(t('account.registered.lead'), { email: me.email ?? '', name: personName(t, me) })}
          </p>
          <LogoutPanel />
          <SessionsPanel />
          <PasswordForm />
          <DeletePanel me={me} />
        </>
      ) : (
        <>
          <p className="lead" data-testid="account-state">
            {format(t('account.guest.lead'), { name: personName(t, me) })}
          </p>
          <RegisterForm />
          <LoginForm />
        </>
      )}
    </div>
  );
}

// LocalAccount is the account page of a local server: one implicit user,
// nothing to sign in to.
function LocalAccount() {
  const { t } = useI18n();
  return (
    <div className="account-page" data-testid="account-local">
      <h1>{t('account.local.title')}</h1>
      <p className="lead">{t('account.local.body')}</p>
      <p>
        <Link to="/" className="button-link">{t('account.local.home')}</Link>
      </p>
    </div>
  );
}
