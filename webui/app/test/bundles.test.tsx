// Bundles in the web app: Export on the solo page (adventures and
// scenarios) and on the play screen downloads the server's bundle as
// <title>.adventure.json / <title>.scenario.json; Import sends the chosen
// file as it is and links the new adventure or scenario; a refused file
// shows the translated error.
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import errorsEn from '../src/i18n/errors.en.json';
import errorsZhTW from '../src/i18n/errors.zh-TW.json';
import { en } from '../src/i18n/en';
import { LANGUAGE_STORAGE_KEY } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';
import type { AdventurePage } from '../src/solo/api';
import { bundleFileName } from '../src/solo/bundles';
import { adventureView, apiError, callsTo, json, lendDownloads, narratorSettings, renderApp, resetEachTest, scenarioView, storyNode, stubServer, T0 } from './fixtures';

resetEachTest();

const ADVENTURE_FILE = {
  format: 'adventure-table.adventure',
  version: 1,
  adventure: { title: 'The Keep', branches: [{ ref: 1, parent: 0, fork_depth: 0, name: 'Main' }], head_branch: 1, turns: [] },
};
const SCENARIO_FILE = { format: 'adventure-table.scenario', version: 1, scenario: { title: 'Keep: 城堡' } };

const PAGE: AdventurePage = {
  adventure: adventureView({ scenario_id: null, title: 'The Keep', persona_name: 'Ash', head_depth: 0 }),
  story: [storyNode(1, 'opening', 'The gate is shut.')],
  has_more: false,
};

const SCENARIO = scenarioView({ id: 12, title: 'Keep: 城堡' });

function server(over: Record<string, () => Response> = {}) {
  stubServer({
    'GET /api/adventures': () => json(200, { adventures: [{ id: 7, title: 'The Keep', scenario_id: null, updated_at: T0 }] }),
    'GET /api/scenarios': () => json(200, { scenarios: [{ id: 5, title: 'Keep: 城堡', premise: '', updated_at: T0 }] }),
    'GET /api/adventures/7/bundle': () => json(200, ADVENTURE_FILE),
    'GET /api/scenarios/5/bundle': () => json(200, SCENARIO_FILE),
    'GET /api/adventures/7': () => json(200, PAGE),
    'GET /api/adventures/7/branches': () => json(200, { branches: [] }),
    'GET /api/solo/settings': () => json(200, narratorSettings()),
    ...over,
  });
}

function choose(testId: string, text: string) {
  const file = new File([text], 'bundle.json', { type: 'application/json' });
  fireEvent.change(screen.getByTestId(testId), { target: { files: [file] } });
  return file;
}

describe('bundles', () => {
  it('names files as the server does', () => {
    expect(bundleFileName('adventure', 'The Keep')).toBe('The Keep.adventure.json');
    expect(bundleFileName('scenario', 'Keep: 城堡')).toBe('Keep_ 城堡.scenario.json');
    expect(bundleFileName('adventure', ' ..')).toBe('adventure.adventure.json');
  });

  it('Export on the solo page downloads an adventure and a scenario', async () => {
    server();
    const dl = lendDownloads();
    renderApp('/solo');
    fireEvent.click(await screen.findByRole('button', { name: 'Export The Keep as a file' }));
    await vi.waitFor(() => expect(dl.downloads).toEqual(['The Keep.adventure.json blob:mira']));
    expect(JSON.parse(await dl.blobs[0]!.text())).toEqual(ADVENTURE_FILE);
    fireEvent.click(await screen.findByRole('button', { name: 'Export Keep: 城堡 as a file' }));
    await vi.waitFor(() => expect(dl.downloads).toHaveLength(2));
    expect(dl.downloads[1]).toBe('Keep_ 城堡.scenario.json blob:mira');
    expect(JSON.parse(await dl.blobs[1]!.text())).toEqual(SCENARIO_FILE);
    dl.restore();
  });

  it('Export adventure on the play screen downloads the adventure being played', async () => {
    server();
    const dl = lendDownloads();
    renderApp('/solo/adventures/7');
    await screen.findByText('The gate is shut.');
    fireEvent.click(screen.getByRole('button', { name: en['reader.more'] }));
    const item = screen.getByTestId('adventure-export');
    expect(item.getAttribute('role')).toBe('menuitem');
    expect(item.textContent).toBe(en['solo.bundle.exportAdventure']);
    fireEvent.click(item);
    await vi.waitFor(() => expect(dl.downloads).toEqual(['The Keep.adventure.json blob:mira']));
    expect(callsTo('GET', '/api/adventures/7/bundle')).toHaveLength(1);
    dl.restore();
  });

  it('Import adventure file sends the file and links the new adventure', async () => {
    server({ 'POST /api/adventures/import': () => json(201, { ...PAGE, adventure: { ...PAGE.adventure, id: 31 } }) });
    renderApp('/solo');
    await screen.findByTestId('adventure-list');
    expect(screen.getByTestId('adventure-import').textContent).toBe(en['solo.bundle.importAdventure']);
    const file = choose('adventure-import-file', JSON.stringify(ADVENTURE_FILE));
    const done = await screen.findByTestId('adventure-imported');
    expect(done.textContent).toContain('Imported The Keep as a new adventure.');
    expect(within(done).getByRole('link').getAttribute('href')).toBe('/solo/adventures/31');
    const sent = callsTo('POST', '/api/adventures/import');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toBe(file);
    // the list is read again, after the import's answer has rendered
    await vi.waitFor(() => expect(callsTo('GET', '/api/adventures').length).toBeGreaterThan(1));
  });

  it('Import scenario file links the new scenario', async () => {
    server({ 'POST /api/scenarios/import': () => json(201, SCENARIO) });
    renderApp('/solo');
    await screen.findByTestId('scenario-list');
    choose('scenario-import-file', JSON.stringify(SCENARIO_FILE));
    const done = await screen.findByTestId('scenario-imported');
    expect(done.textContent).toContain('Imported Keep: 城堡 as a new scenario.');
    expect(within(done).getByRole('link').getAttribute('href')).toBe('/solo/scenarios/12');
  });

  it('a refused file shows the translated error and links nothing', async () => {
    server({ 'POST /api/adventures/import': () => apiError(400, 'bundle_invalid', { head_branch: 'SERVER TEXT' }) });
    renderApp('/solo');
    await screen.findByTestId('adventure-list');
    choose('adventure-import-file', '{}');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(en['solo.bundle.importFailed']);
    expect(alert.textContent).toContain(errorsEn.bundle_invalid);
    expect(screen.queryByTestId('adventure-imported')).toBeNull();
  });

  it('zh-TW: the buttons and the error read in Chinese', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    server({ 'POST /api/scenarios/import': () => apiError(400, 'import_format_unsupported') });
    renderApp('/solo');
    await screen.findByTestId('scenario-list');
    expect(screen.getByTestId('adventure-import').textContent).toBe(zhTW['solo.bundle.importAdventure']);
    expect(screen.getByTestId('scenario-import').textContent).toBe(zhTW['solo.bundle.importScenario']);
    expect(screen.getByRole('button', { name: '將 The Keep 匯出為檔案' })).toBeTruthy();
    choose('scenario-import-file', '{"format":"x"}');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(zhTW['solo.bundle.importFailed']);
    expect(alert.textContent).toContain(errorsZhTW.import_format_unsupported);
  });
});
