// The script editor's test run: POST /api/scripts/test runs the scripts as
// the editor holds them once against a sample story, as a turn would, and
// answers what each hook did; markersByTab turns its errors into the lines
// to mark in each tab.
import type { Schemas } from '../api';
import { apiSend } from '../identityApi';
import type { ScenarioScripts } from './api';
import type { LineMarker } from './codemirror';
import { SCRIPT_TABS } from './scenarioDraft';

export type ScriptTestResult = Schemas['ScriptTestResult'];
export type ScriptTestHook = Schemas['ScriptTestHook'];
export type ScriptTab = (typeof SCRIPT_TABS)[number];

export const testScripts = (scripts: ScenarioScripts) =>
  apiSend<ScriptTestResult>('POST', '/api/scripts/test', { scripts });

// markersByTab places each error of a test run on its lines: a hook's error
// on the hook's own tab (its line), and, when it was raised in the Library,
// on the Library's tab too (its library_line); the Library's own run on the
// Library's tab. describe writes the message shown on the line.
export function markersByTab(
  result: ScriptTestResult | null,
  describe: (hook: ScriptTestHook) => string,
): Record<ScriptTab, LineMarker[]> {
  const out = Object.fromEntries(SCRIPT_TABS.map((t) => [t, [] as LineMarker[]])) as Record<ScriptTab, LineMarker[]>;
  for (const h of result?.hooks ?? []) {
    const e = h.error;
    if (!e) continue;
    const message = describe(h);
    if (h.hook !== 'library' && e.line > 0 && (SCRIPT_TABS as readonly string[]).includes(h.hook)) {
      out[h.hook as ScriptTab].push({ line: e.line, message });
    }
    if (e.library_line > 0) out.library.push({ line: e.library_line, message });
  }
  return out;
}
