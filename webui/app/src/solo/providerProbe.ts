// The narrator settings' probes: the endpoint's model list and a connection
// test, both run with the form's values (saved or not).
import type { Schemas } from '../api';
import { apiSend } from '../identityApi';

export type ProviderProbeInput = Schemas['ProviderProbeInput'];
export type ProviderModel = Schemas['ProviderModel'];
export type ProviderModelList = Schemas['ProviderModelList'];
export type ProviderTestResult = Schemas['ProviderTestResult'];

export const listProviderModels = (input: ProviderProbeInput) =>
  apiSend<ProviderModelList>('POST', '/api/solo/settings/models', input);
export const testProvider = (input: ProviderProbeInput) =>
  apiSend<ProviderTestResult>('POST', '/api/solo/settings/test', input);

// probeInputOf is what a probe sends: the typed base URL and model, the
// typed key, "" when the player chose to remove the stored key, and no key
// field (the stored one) otherwise.
export function probeInputOf(baseUrl: string, model: string, apiKey: string, clearKey: boolean): ProviderProbeInput {
  const input: ProviderProbeInput = { base_url: baseUrl.trim(), model: model.trim() };
  if (apiKey.trim() !== '') input.api_key = apiKey.trim();
  else if (clearKey) input.api_key = '';
  return input;
}
