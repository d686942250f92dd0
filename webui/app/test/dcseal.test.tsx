// The check card's DC seal (src/table/DcSeal.tsx): the commitment while the
// DC is secret, then the browser's own check of the revealed DC.
import { cleanup, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { I18nProvider } from '../src/i18n/I18nProvider';
import { DcSeal } from '../src/table/DcSeal';

const SALT = '000102030405060708090a0b0c0d0e0f';
const COMMITMENT = '3b7d15c3ee80b14e1a3f9b3e75d5546f112931d5b9503e293ab5041a9e3231a0';
const wrap = (node: ReactNode) => <I18nProvider>{node}</I18nProvider>;

afterEach(cleanup);

describe('DcSeal', () => {
  it('shows the commitment, not a DC, while the DC is secret', () => {
    render(wrap(<DcSeal commitment={COMMITMENT} reveal={null} />));
    const seal = screen.getByTestId('dc-commitment');
    expect(seal.textContent).toContain('DC committed');
    expect(screen.getByTestId('dc-hash').textContent).toBe('3b7d15c3');
    expect(screen.getByTestId('dc-hash').getAttribute('title')).toBe(COMMITMENT);
    expect(seal.textContent).not.toMatch(/DC \d/);
  });

  it('checks a revealed DC that matches', async () => {
    render(wrap(<DcSeal commitment={COMMITMENT} reveal={{ dc: 15, salt: SALT }} />));
    const verify = screen.getByTestId('dc-verify');
    await expect.poll(() => verify.getAttribute('data-verdict')).toBe('match');
    expect(verify.textContent).toContain('DC 15');
    expect(verify.textContent).toContain('✓ matches the commitment');
  });

  it('warns when the revealed DC does not match', async () => {
    render(wrap(<DcSeal commitment={COMMITMENT} reveal={{ dc: 14, salt: SALT }} />));
    const verify = screen.getByTestId('dc-verify');
    await expect.poll(() => verify.getAttribute('data-verdict')).toBe('mismatch');
    expect(verify.getAttribute('role')).toBe('alert');
    expect(verify.textContent).toContain('does not match the commitment');
  });

  it('shows nothing for a check without a DC', () => {
    const view = render(wrap(<DcSeal commitment={undefined} reveal={null} />));
    expect(view.container.textContent).toBe('');
  });
});
