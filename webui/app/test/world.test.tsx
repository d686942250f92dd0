import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import errorsEn from '../src/i18n/errors.en.json';
import { en } from '../src/i18n/en';
import { I18nProvider } from '../src/i18n/I18nProvider';
import { CampaignWorld } from '../src/table/world';

// A fake server at the fetch boundary.
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
let puts: unknown[] = [];
function stubServer(get: unknown, put: (body: unknown) => Response) {
  puts = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      const method = (init?.method ?? 'GET').toUpperCase();
      if (path !== '/api/campaigns/7/world') return json(404, { error: { code: 'route_not_found', message: 'x' } });
      if (method === 'GET') return json(200, get);
      const body = JSON.parse(String(init?.body));
      puts.push(body);
      return put(body);
    }),
  );
}

async function openWorld() {
  render(
    <I18nProvider>
      <CampaignWorld campaignId={7} />
    </I18nProvider>,
  );
  const details = screen.getByTestId('campaign-world') as HTMLDetailsElement;
  await act(async () => {
    details.open = true;
    fireEvent(details, new Event('toggle'));
  });
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the campaign world editor', () => {
  it('lets room authority edit the premise, plot and NPCs, and saves the whole world', async () => {
    stubServer({ campaign_id: 7, premise: 'A drowned city.', whole: true, can_edit: true }, (body) =>
      json(200, { campaign_id: 7, ...(body as object), whole: true, can_edit: true }),
    );
    await openWorld();
    const premise = await screen.findByLabelText(/Premise/);
    expect((premise as HTMLTextAreaElement).value).toBe('A drowned city.');
    fireEvent.change(screen.getByLabelText(/Plot essentials/), { target: { value: 'The harbourmaster sank it.' } });
    fireEvent.click(screen.getByRole('button', { name: en['room.world.addNpc'] }));
    fireEvent.change(screen.getByLabelText(en['room.world.npcName']), { target: { value: 'Vell' } });
    fireEvent.change(screen.getByLabelText(en['room.world.npcStatBlock']), { target: { value: 'AC 15, HP 40' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: en['room.world.save'] }));
    });
    expect(puts).toEqual([
      {
        premise: 'A drowned city.',
        plot_essentials: 'The harbourmaster sank it.',
        npcs: [{ name: 'Vell', stat_block: 'AC 15, HP 40' }],
      },
    ]);
    expect((await screen.findByRole('status')).textContent).toBe(en['room.world.saved']);
    // An NPC can be removed again.
    fireEvent.click(screen.getByRole('button', { name: 'Remove NPC Vell' }));
    expect(screen.queryAllByTestId('world-npc')).toHaveLength(0);
  });

  it('shows the server refusal by its code', async () => {
    stubServer({ campaign_id: 7, whole: true, can_edit: true }, () =>
      json(400, { error: { code: 'campaign_world_invalid', message: 'SERVER TEXT', fields: { premise: 'at most 2000 characters' } } }),
    );
    await openWorld();
    await screen.findByLabelText(/Premise/);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: en['room.world.save'] }));
    });
    expect(await screen.findByText(errorsEn.campaign_world_invalid)).toBeTruthy();
    expect(screen.queryByText('SERVER TEXT')).toBeNull();
  });

  it('shows a player the premise only, with no editor', async () => {
    stubServer({ campaign_id: 7, premise: 'A drowned city.', whole: false, can_edit: false }, () => json(500, {}));
    await openWorld();
    expect((await screen.findByTestId('world-premise')).textContent).toBe('A drowned city.');
    expect(screen.queryByRole('button', { name: en['room.world.save'] })).toBeNull();
    expect(screen.queryByLabelText(/Plot essentials/)).toBeNull();
  });
});
