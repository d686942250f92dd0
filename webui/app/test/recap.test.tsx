// The DM's "Previously on…" panel: the draft in a box to edit, Post sends
// the edited text, Skip drops it; while the draft is written, a note and no
// Post. The posted recap is a card in the feed.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../src/i18n/I18nProvider';
import type { SessionResume } from '../src/table/api';
import { RecapPanel } from '../src/table/Recap';
import { TableFeed } from '../src/table/Feed';
import { tableNames } from '../src/table/names';
import { callsTo, ev, json, resume, stubServer } from './fixtures';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const withRecap = (status: string, text?: string): SessionResume => ({ ...resume('dm'), recap: { status, ...(text ? { text } : {}) } });

describe('RecapPanel', () => {
  it('posts the DM’s edit of the draft', async () => {
    const posted = withRecap('posted');
    stubServer({ 'POST /api/sessions/12/recap/post': () => json(200, posted) });
    const onSession = vi.fn();
    render(
      <I18nProvider>
        <RecapPanel data={withRecap('draft', 'Previously: the innkeeper Bertha.')} onSession={onSession} reload={async () => {}} />
      </I18nProvider>,
    );
    const box = screen.getByTestId('recap-text') as HTMLTextAreaElement;
    expect(box.value).toBe('Previously: the innkeeper Bertha.');
    fireEvent.change(box, { target: { value: 'Last time: Bertha promised a map.' } });
    fireEvent.click(screen.getByRole('button', { name: 'Post to the table' }));
    await vi.waitFor(() => expect(onSession).toHaveBeenCalledWith(posted));
    expect(callsTo('POST', '/api/sessions/12/recap/post')[0]!.body).toEqual({ text: 'Last time: Bertha promised a map.' });
  });

  it('while the draft is written: a note, Skip, no Post, and the page looks again', async () => {
    stubServer({});
    const reload = vi.fn(async () => {});
    vi.useFakeTimers();
    try {
      render(
        <I18nProvider>
          <RecapPanel data={withRecap('drafting')} onSession={() => {}} reload={reload} />
        </I18nProvider>,
      );
      expect(screen.getByRole('status').textContent).toMatch(/Writing the recap/);
      expect(screen.queryByRole('button', { name: 'Post to the table' })).toBeNull();
      expect(screen.getByRole('button', { name: 'Skip the recap' })).toBeTruthy();
      vi.advanceTimersByTime(2100);
      expect(reload).toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('skips', async () => {
    const skipped = withRecap('skipped');
    stubServer({ 'POST /api/sessions/12/recap/skip': () => json(200, skipped) });
    const onSession = vi.fn();
    render(
      <I18nProvider>
        <RecapPanel data={withRecap('draft', 'x')} onSession={onSession} reload={async () => {}} />
      </I18nProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Skip the recap' }));
    await vi.waitFor(() => expect(onSession).toHaveBeenCalledWith(skipped));
  });
});

describe('the posted recap in the feed', () => {
  it('is a card with its paragraphs', () => {
    stubServer({});
    const data = resume('player');
    render(
      <I18nProvider>
        <TableFeed events={[ev(3, 'recap.posted', { payload: { version: 1, text: 'Last time, Bertha.\n\nThe map waits.' } })]} names={tableNames(data)} />
      </I18nProvider>,
    );
    const card = screen.getByTestId('recap-card');
    expect(card.textContent).toContain('Previously on…');
    expect(card.querySelectorAll('p')).toHaveLength(2);
  });
});
