// The characters page's Export and Import buttons: export downloads the
// server's character file as <name>.character.json; import sends the chosen
// file as it is and shows the new character or the translated error.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import errorsEn from '../src/i18n/errors.en.json';
import errorsZhTW from '../src/i18n/errors.zh-TW.json';
import { en } from '../src/i18n/en';
import { LANGUAGE_STORAGE_KEY } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';
import { characterFileName } from '../src/pages/Characters';
import type { Character } from '../src/table/api';
import { apiError, callsTo, characterView, json, lendDownloads, renderApp, resetEachTest, stubServer } from './fixtures';

resetEachTest();

const MIRA: Character = characterView();
const { id: _id, proficiency_bonus: _pb, derived: _d, updated_at: _u, ...MIRA_INPUT } = MIRA;
const FILE = { format: 'adventure-table.character', version: 1, character: MIRA_INPUT };

function chooseFile(text: string, name = 'mira.character.json') {
  const file = new File([text], name, { type: 'application/json' });
  const input = screen.getByTestId('character-import-file') as HTMLInputElement;
  fireEvent.change(input, { target: { files: [file] } });
  return file;
}

describe('character files', () => {
  it('Export downloads the server file as <name>.character.json', async () => {
    stubServer({
      'GET /api/characters': () => json(200, { characters: [MIRA] }),
      'GET /api/characters/3/export': () => json(200, FILE),
    });
    const dl = lendDownloads();
    renderApp('/characters');
    fireEvent.click(await screen.findByRole('button', { name: 'Export Mira as a file' }));
    await vi.waitFor(() => expect(dl.downloads).toEqual(['Mira.character.json blob:mira']));
    expect(JSON.parse(await dl.blobs[0]!.text())).toEqual(FILE);
    expect(callsTo('GET', '/api/characters/3/export')).toHaveLength(1);
    await vi.waitFor(() => expect(dl.revoked).toEqual(['blob:mira']));
    dl.restore();
  });

  it('the character editor exports the saved character', async () => {
    stubServer({
      'GET /api/characters/3': () => json(200, MIRA),
      'GET /api/characters/3/export': () => json(200, FILE),
    });
    const dl = lendDownloads();
    renderApp('/characters/3');
    fireEvent.click(await screen.findByTestId('character-export'));
    await vi.waitFor(() => expect(dl.downloads).toEqual(['Mira.character.json blob:mira']));
    expect(JSON.parse(await dl.blobs[0]!.text())).toEqual(FILE);
    dl.restore();
  });

  it('Import sends the chosen file and shows the new character', async () => {
    let listed: Character[] = [];
    stubServer({
      'GET /api/characters': () => json(200, { characters: listed }),
      'POST /api/characters/import': () => {
        listed = [{ ...MIRA, id: 9 }];
        return json(201, listed[0]);
      },
    });
    renderApp('/characters');
    await screen.findByTestId('characters-empty');
    expect(screen.getByTestId('character-import').textContent).toBe(en['characters.import']);
    const text = JSON.stringify(FILE);
    const file = chooseFile(text);
    const done = await screen.findByTestId('character-imported');
    expect(done.textContent).toContain('Imported Mira as a new character.');
    expect(within(done).getByRole('link').getAttribute('href')).toBe('/characters/9');
    const sent = callsTo('POST', '/api/characters/import');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toBe(file);
    await within(await screen.findByTestId('character-list')).findByText('Mira');
  });

  it('a refused file shows the translated error and creates nothing', async () => {
    stubServer({
      'GET /api/characters': () => json(200, { characters: [] }),
      'POST /api/characters/import': () => apiError(400, 'import_format_unsupported'),
    });
    renderApp('/characters');
    await screen.findByTestId('characters-empty');
    chooseFile('{"format":"chara_card_v2"}', 'card.json');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(en['characters.importFailed']);
    expect(alert.textContent).toContain(errorsEn.import_format_unsupported);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    expect(screen.queryByTestId('character-imported')).toBeNull();
  });

  it('zh-TW: the buttons and the error read in Chinese', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    stubServer({
      'GET /api/characters': () => json(200, { characters: [MIRA] }),
      'POST /api/characters/import': () => apiError(400, 'import_format_unsupported'),
    });
    renderApp('/characters');
    await screen.findByRole('button', { name: '將 Mira 匯出為檔案' });
    expect(screen.getByTestId('character-import').textContent).toBe(zhTW['characters.import']);
    await act(async () => {
      chooseFile('{}');
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(zhTW['characters.importFailed']);
    expect(alert.textContent).toContain(errorsZhTW.import_format_unsupported);
  });

  it('file names drop path and reserved characters, as the server does', () => {
    expect(characterFileName('Mira')).toBe('Mira.character.json');
    expect(characterFileName('米拉')).toBe('米拉.character.json');
    expect(characterFileName('../etc/pass')).toBe('.._etc_pass.character.json');
    expect(characterFileName('a"b\\c')).toBe('a_b_c.character.json');
    expect(characterFileName('..')).toBe('character.character.json');
  });
});
