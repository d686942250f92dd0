import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppShell, preloadPages } from '../src/App';
import errorsEn from '../src/i18n/errors.en.json';
import errorsZhTW from '../src/i18n/errors.zh-TW.json';
import { en } from '../src/i18n/en';
import { I18nProvider } from '../src/i18n/I18nProvider';
import { LANGUAGE_STORAGE_KEY } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';

// The pages' scripts are here before any test renders one, as in the app
// once a page has been seen (the operator's chart library needs a real browser).
await preloadPages(['/operator']);

const HEALTH = {
  status: 'ok',
  mode: 'local',
  version: 'dev',
  schema_version: 2,
  database: { dialect: 'sqlite', reachable: true },
};
const CAPS = {
  table: false,
  ai_actor: false,
  solo: false,
  scripting: false,
  combat: false,
  timeline: false,
  mcp: true,
  api_docs: true,
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

function stubServer(routes: Record<string, () => Response>) {
  const fetchMock = vi.fn(async (input: RequestInfo | URL) => {
    const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
    const route = routes[path];
    return route ? route() : json(404, { error: { code: 'route_not_found', message: 'no route' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

function renderApp(path = '/') {
  return render(
    <I18nProvider>
      <MemoryRouter initialEntries={[path]}>
        <AppShell />
      </MemoryRouter>
    </I18nProvider>,
  );
}

// nav is the app's main navigation (the header's; the home page has its own after it).
const nav = () => screen.getAllByRole('navigation')[0]!;
// statusAlert is the server facts' error (the home page's lists have their own).
const statusAlert = async () => within(await screen.findByTestId('status-panel')).findByRole('alert');

beforeEach(() => {
  localStorage.clear();
  document.documentElement.lang = 'en';
  stubServer({ '/api/health': () => json(200, HEALTH), '/api/meta/capabilities': () => json(200, CAPS), ...HOME_LISTS });
});

// The home page's lists: no tables, no stories.
const HOME_LISTS = {
  '/api/me': () => json(200, { id: 1, display_name: 'Ann' }),
  '/api/rooms': () => json(200, { rooms: [] }),
  '/api/adventures': () => json(200, { adventures: [] }),
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('app shell', () => {
  it('shows the product name, the navigation and the server status', async () => {
    renderApp('/');
    expect(screen.getByRole('link', { name: 'Adventure Table' })).toBeTruthy();
    for (const label of ['Tables', 'Characters', 'Solo adventures', 'Settings']) {
      expect(within(nav()).getByRole('link', { name: label })).toBeTruthy();
    }
    expect((await screen.findByTestId('status-schema')).textContent).toBe('2');
    expect(screen.getByTestId('status-version').textContent).toBe('dev');
    expect(screen.getByTestId('status-database').textContent).toBe('SQLite');
    expect(screen.getByTestId('status-mode').textContent).toBe(en['status.mode.local']);
  });

  it('switches to zh-TW and back, persisting the choice and <html lang>', async () => {
    renderApp('/');
    await screen.findByTestId('status-schema');
    const select = screen.getByLabelText('Language') as HTMLSelectElement;

    fireEvent.change(select, { target: { value: 'zh-TW' } });
    expect(within(nav()).getByRole('link', { name: zhTW['nav.tables'] })).toBeTruthy();
    expect(within(nav()).queryByRole('link', { name: 'Tables' })).toBeNull();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(zhTW['home.title']);
    expect(screen.getByText(zhTW['status.title'])).toBeTruthy();
    expect(document.documentElement.lang).toBe('zh-TW');
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('zh-TW');

    // the select stays findable by "Language" in Chinese too
    fireEvent.change(screen.getByLabelText(/Language/), { target: { value: 'en' } });
    expect(within(nav()).getByRole('link', { name: 'Tables' })).toBeTruthy();
    expect(screen.queryByText(zhTW['nav.tables'])).toBeNull();
    expect(document.documentElement.lang).toBe('en');
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('en');
  });

  it('starts in the stored language', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    renderApp('/tables');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(zhTW['tables.title']);
    expect(document.documentElement.lang).toBe('zh-TW');
    await screen.findByTestId('capabilities');
  });

  it('shows the translated error for a failing health check, never the server text', async () => {
    stubServer({
      '/api/health': () =>
        json(503, { error: { code: 'database_unavailable', message: 'SERVER TEXT sql: database is closed' } }),
      '/api/meta/capabilities': () => json(200, CAPS),
      ...HOME_LISTS,
    });
    renderApp('/');
    const alert = await statusAlert();
    expect(alert.textContent).toContain(errorsEn.database_unavailable);
    expect(alert.textContent).not.toContain('SERVER TEXT');

    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(within(screen.getByTestId('status-panel')).getByRole('alert').textContent).toContain(errorsZhTW.database_unavailable);
  });

  it('falls back to the generic message for an unknown code and a network failure', async () => {
    stubServer({
      '/api/health': () => json(500, { error: { code: 'brand_new_code', message: 'SERVER TEXT' } }),
      '/api/meta/capabilities': () => json(200, CAPS),
      ...HOME_LISTS,
    });
    renderApp('/');
    expect((await statusAlert()).textContent).toContain(en['error.generic']);
    cleanup();

    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    renderApp('/');
    expect((await statusAlert()).textContent).toContain(en['error.generic']);
  });

  it('retries the status after an error', async () => {
    let calls = 0;
    stubServer({
      '/api/health': () => (++calls === 1 ? json(500, { error: { code: 'internal', message: 'x' } }) : json(200, HEALTH)),
      ...HOME_LISTS,
    });
    renderApp('/');
    await statusAlert();
    await act(async () => fireEvent.click(within(screen.getByTestId('status-panel')).getByRole('button', { name: en['common.retry'] })));
    expect((await screen.findByTestId('status-schema')).textContent).toBe('2');
  });
});

describe('pages', () => {
  it('Tables: honest empty state and capabilities', async () => {
    stubServer({
      '/api/health': () => json(200, HEALTH),
      '/api/meta/capabilities': () => json(200, CAPS),
      '/api/rooms': () => json(200, { rooms: [] }),
    });
    renderApp('/tables');
    expect((await screen.findByTestId('tables-empty')).textContent).toContain(en['tables.empty']);
    expect(screen.getByRole('button', { name: en['tables.create.submit'] })).toBeTruthy();
    const caps = await screen.findByTestId('capabilities');
    const table = caps.querySelector('[data-capability="table"]')!;
    expect(table.textContent).toContain(en['caps.unavailable']);
    const mcp = caps.querySelector('[data-capability="mcp"]')!;
    expect(mcp.textContent).toContain(en['caps.available']);
    expect(caps.querySelectorAll('li')).toHaveLength(8);
  });

  it('Solo: empty lists, a way to write a scenario, and the narrator settings', async () => {
    stubServer({
      '/api/me': () => json(200, { id: 1, display_name: 'Ann' }),
      '/api/scenarios': () => json(200, { scenarios: [] }),
      '/api/adventures': () => json(200, { adventures: [] }),
      '/api/solo/settings': () =>
        json(200, {
          base_url: 'http://127.0.0.1:11434/v1',
          model: '',
          api_key_set: false,
          context_budget: 8000,
          max_output_tokens: 600,
          temperature: 0.8,
          top_p: 0.95,
        }),
    });
    renderApp('/solo');
    expect(screen.getByRole('heading', { level: 1, name: en['solo.title'] })).toBeTruthy();
    expect((await screen.findByTestId('scenarios-empty')).textContent).toContain(en['solo.scenarios.empty']);
    expect((await screen.findByTestId('adventures-empty')).textContent).toBe(en['solo.adventures.empty']);
    expect(screen.getByRole('link', { name: en['solo.scenarios.new'] }).getAttribute('href')).toBe('/solo/scenarios/new');
    expect(((await screen.findByLabelText(en['solo.provider.baseUrl'])) as HTMLInputElement).value).toBe(
      'http://127.0.0.1:11434/v1',
    );
  });

  it('Settings: MCP URL, language choice and API docs link when offered', async () => {
    renderApp('/settings');
    expect(screen.getByTestId('mcp-url').textContent).toBe(`${window.location.origin}/mcp`);
    expect(screen.getAllByLabelText('Language').length).toBe(2);
    const link = await screen.findByRole('link', { name: en['settings.api.docs'] });
    expect(link.getAttribute('href')).toBe('/api/docs');
  });

  it('Settings: no API docs link when the build does not offer it', async () => {
    stubServer({ '/api/meta/capabilities': () => json(200, { ...CAPS, api_docs: false }) });
    renderApp('/settings');
    expect(await screen.findByText(en['docs.unavailable'])).toBeTruthy();
    expect(screen.queryByRole('link', { name: en['settings.api.docs'] })).toBeNull();
  });

  it('unknown route: translated page not found', () => {
    renderApp('/no/such/page');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(en['notFound.title']);
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-TW' } });
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(zhTW['notFound.title']);
  });
});
