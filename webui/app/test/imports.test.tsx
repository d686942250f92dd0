// The import dialog on the solo page against a fake server at the fetch
// boundary: choose a file → the server's preview (format, title, counts,
// what maps and what does not, translated) → Import creates the scenario and
// opens it in the editor; a refused file shows the translated error.
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import errorsEn from '../src/i18n/errors.en.json';
import { en } from '../src/i18n/en';
import { LANGUAGE_STORAGE_KEY } from '../src/i18n/messages';
import { zhTW } from '../src/i18n/zh-TW';
import type { ImportPreview } from '../src/solo/ImportDialog';
import type { ScenarioView } from '../src/solo/api';
import { apiError, callsTo, json, renderApp, resetEachTest, stubServer, T0 } from './fixtures';

resetEachTest();

const PREVIEW: ImportPreview = {
  format: 'character_card_v2',
  title: 'Captain Vell',
  scenario: {
    title: 'Captain Vell',
    premise: 'Vell commands the Kestrel.',
    plot_essentials: '',
    ai_instructions: '',
    authors_note: '',
    opening: 'Vell looks up.',
    stat_schema: {},
    cards: [{ title: 'The Kestrel', keys: ['Kestrel'], entry: 'An airship.', type: '' }],
    scripts: { library: '', input: '', context: '', output: '' },
  },
  mapped: [
    { code: 'field', params: { from: 'first_mes', to: 'opening' } },
    { code: 'cards', params: { from: 'character_book', count: '1' } },
  ],
  unmapped: [
    { code: 'field_not_mapped', params: { field: 'system_prompt', reason: 'narrator_instructions' } },
    { code: 'field_not_mapped', params: { field: 'alternate_greetings', reason: 'no_equivalent', count: '2' } },
    { code: 'entry_option', entry: 'Mutiny', params: { option: 'selectiveLogic', value: 'AND_ALL' } },
    { code: 'entry_disabled', entry: 'Secret past' },
    { code: 'a_future_code', entry: 'X', params: { k: 'v' } },
  ],
};

const SCENARIO: ScenarioView = { ...PREVIEW.scenario, id: 41, cards: [{ id: 1, ...PREVIEW.scenario.cards[0]! }], created_at: T0, updated_at: T0 };

function server(over: Record<string, () => Response> = {}) {
  stubServer({
    'GET /api/scenarios': () => json(200, { scenarios: [] }),
    'GET /api/adventures': () => json(200, { adventures: [] }),
    'POST /api/imports/preview': () => json(200, PREVIEW),
    'POST /api/imports': () => json(201, { preview: PREVIEW, scenario: SCENARIO }),
    'GET /api/scenarios/41': () => json(200, SCENARIO),
    ...over,
  });
}

async function openAndChoose(name = 'vell.png') {
  renderApp('/solo');
  fireEvent.click(await screen.findByTestId('import-open'));
  const dialog = screen.getByTestId('import-dialog');
  const file = new File([new Uint8Array([137, 80, 78, 71])], name, { type: 'image/png' });
  fireEvent.change(within(dialog).getByTestId('import-file'), { target: { files: [file] } });
  return { dialog, file };
}

describe('import dialog', () => {
  it('previews the file, then imports it and opens the new scenario', async () => {
    server();
    const { dialog, file } = await openAndChoose();
    expect(screen.getByTestId('import-open').textContent).toBe(en['solo.import.button']);
    await within(dialog).findByTestId('import-preview');
    expect(callsTo('POST', '/api/imports/preview')[0]!.body).toBe(file);
    expect(callsTo('POST', '/api/imports')).toHaveLength(0); // nothing created by the preview
    expect(within(dialog).getByTestId('import-format').textContent).toBe('Character Card V2');
    expect(within(dialog).getByTestId('import-title').textContent).toBe('Captain Vell');
    expect(within(dialog).getByTestId('import-counts').textContent).toBe('1 story cards, 0 scripts');
    const mapped = within(dialog).getByTestId('import-mapped').querySelectorAll('li');
    expect([...mapped].map((li) => li.textContent)).toEqual(['first_mes → opening', '1 story cards from character_book']);
    const unmapped = within(dialog).getByTestId('import-unmapped').querySelectorAll('li');
    expect([...unmapped].map((li) => li.textContent)).toEqual([
      'system_prompt: it would replace the narrator’s own instructions',
      'alternate_greetings (2): no equivalent in a scenario',
      'Mutiny: the setting selectiveLogic = AND_ALL has no equivalent (cards trigger on their keys)',
      'Secret past: disabled in the file, so not imported',
      'a_future_code X v', // a code this version does not know is still shown
    ]);

    fireEvent.click(within(dialog).getByTestId('import-submit'));
    await screen.findByDisplayValue('Vell looks up.');
    expect(callsTo('POST', '/api/imports')[0]!.body).toBe(file);
    expect(screen.queryByTestId('import-dialog')).toBeNull();
  });

  it('speaks Traditional Chinese', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-TW');
    server();
    const { dialog } = await openAndChoose();
    await within(dialog).findByTestId('import-preview');
    expect(within(dialog).getByTestId('import-format').textContent).toBe(zhTW['solo.import.fmt.character_card_v2']);
    expect(within(dialog).getByTestId('import-unmapped').textContent).toContain(zhTW['solo.import.reason.narrator_instructions']);
  });

  it('a refused file shows the translated error and cannot be imported', async () => {
    server({ 'POST /api/imports/preview': () => apiError(400, 'import_png_without_card') });
    const { dialog } = await openAndChoose('photo.png');
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain(en['solo.import.previewFailed']);
    expect(alert.textContent).toContain(errorsEn.import_png_without_card);
    expect(alert.textContent).not.toContain('SERVER TEXT');
    expect((within(dialog).getByTestId('import-submit') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(dialog).getByText(en['common.cancel']));
    expect(screen.queryByTestId('import-dialog')).toBeNull();
    expect(callsTo('POST', '/api/imports')).toHaveLength(0);
  });
});
