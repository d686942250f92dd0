// What the solo journeys share (solo.test.mjs, bundles.test.mjs): the fake
// model, the real server and Chromium, started before a describe block's
// tests and stopped after, and the helpers that find things on the solo
// screens.
import { after, before } from 'node:test';
import { startFakeModel } from './fake-model.mjs';
import { journey } from './harness.mjs';

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// exactly matches a whole text, give or take the spaces around it.
export const exactly = (text) => new RegExp(`^\\s*${escapeRe(text)}\\s*$`);

// soloJourney, called inside a describe block, returns the journey's
// environment: model (the fake, set once the tests start), at, button,
// label, node (the story entry whose whole text is text), stateLine,
// newPlayer, and pageErrors, which collects the uncaught errors and CSP
// refusals of every page. Each player's page is shot when its test fails.
export function soloJourney() {
  const { at, open, pageErrors, url } = journey();
  const j = { model: null, pageErrors, at, url };

  before(async () => {
    j.model = await startFakeModel();
  });

  after(async () => {
    await j.model?.close();
  });

  j.button = (scope, name) => scope.getByRole('button', { name, exact: true });
  j.label = (scope, text) => scope.getByLabel(text, { exact: true });
  j.node = (page, text) =>
    page.getByTestId('story-node').filter({ has: page.getByTestId('node-text').filter({ hasText: exactly(text) }) });
  j.stateLine = (page) => page.getByTestId('state-line');

  // pointAtModel saves narrator settings that point at the fake model,
  // from the solo page.
  j.pointAtModel = async (page) => {
    await at(page, 'solo');
    const settings = page.getByTestId('provider-settings');
    await j.label(settings, 'Base URL').fill(j.model.url);
    await j.label(settings, 'Model').fill('fake');
    await j.button(settings, 'Save narrator settings').click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  };

  // newPlayer opens a page in a fresh browser context (a new guest identity).
  j.newPlayer = async (viewport = { width: 1300, height: 1000 }) =>
    (await open('player', { viewport, acceptDownloads: true })).page;
  return j;
}
