// Bundles: an adventure (every branch and take, cards, scripts, stats,
// persona, memories) or a scenario as one file in the app's own format
// (adventure-table.adventure / adventure-table.scenario, version 1).
import type { Schemas } from '../api';
import { fileName, saveFile } from '../files';
import { apiGet, apiUpload } from '../identityApi';
import type { AdventurePage, ScenarioView } from './api';

export type BundleKind = 'adventure' | 'scenario';
export type AdventureBundle = Schemas['AdventureBundle'];
export type ScenarioBundle = Schemas['ScenarioBundle'];

const base = (kind: BundleKind) => (kind === 'adventure' ? '/api/adventures' : '/api/scenarios');

export const exportBundle = (kind: BundleKind, id: number) =>
  apiGet<AdventureBundle | ScenarioBundle>(`${base(kind)}/${id}/bundle`);

// The chosen file is sent as it is: the server alone decides whether it is
// a bundle, and every row it writes is new.
export const importAdventureBundle = (file: Blob) => apiUpload<AdventurePage>('/api/adventures/import', file);
export const importScenarioBundle = (file: Blob) => apiUpload<ScenarioView>('/api/scenarios/import', file);

// bundleFileName is the name a bundle is saved under, as the server names
// it: "<title>.adventure.json" or "<title>.scenario.json".
export const bundleFileName = (kind: BundleKind, title: string) => fileName(title, kind, `.${kind}.json`);

// downloadBundle saves an adventure or scenario as the server writes it.
export async function downloadBundle(kind: BundleKind, id: number, title: string) {
  const bundle = await exportBundle(kind, id);
  saveFile(bundleFileName(kind, title), JSON.stringify(bundle, null, 2));
}
