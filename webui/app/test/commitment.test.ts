// The browser's check of a secret DC's commitment (src/table/commitment.ts).
import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dcCommitment, shortCommitment, verifyDcCommitment } from '../src/table/commitment';

// The vector gameplay/table/commitment_test.go pins on the server.
const SALT = '000102030405060708090a0b0c0d0e0f';
const COMMITMENT = '3b7d15c3ee80b14e1a3f9b3e75d5546f112931d5b9503e293ab5041a9e3231a0';
const subtle = webcrypto.subtle as SubtleCrypto;

describe('DC commitment', () => {
  it('hashes the encoding the server commits to', async () => {
    expect(await dcCommitment(15, SALT, subtle)).toBe(COMMITMENT);
    expect(shortCommitment(COMMITMENT)).toBe('3b7d15c3');
  });

  it('matches the revealed DC and salt', async () => {
    expect(await verifyDcCommitment(COMMITMENT, 15, SALT, subtle)).toBe('match');
    expect(await verifyDcCommitment(COMMITMENT.toUpperCase(), 15, SALT, subtle)).toBe('match');
  });

  it('does not match another DC, another salt or another commitment', async () => {
    expect(await verifyDcCommitment(COMMITMENT, 14, SALT, subtle)).toBe('mismatch');
    expect(await verifyDcCommitment(COMMITMENT, 15, SALT.replace('0f', '10'), subtle)).toBe('mismatch');
    expect(await verifyDcCommitment(COMMITMENT.replace('3b', '3c'), 15, SALT, subtle)).toBe('mismatch');
  });

  it('says so where the page has no Web Crypto', async () => {
    expect(await verifyDcCommitment(COMMITMENT, 15, SALT, null)).toBe('unavailable');
  });
});
