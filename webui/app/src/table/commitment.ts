// A secret DC's commitment, checked in the browser. The server
// (gameplay/table/commitment.go) shows players, while a check is pending,
// the lowercase hex SHA-256 of the UTF-8 string
//
//   adventure-table-dc-v1:<dc in decimal>:<salt, 16 random bytes in lowercase hex>
//
// and reveals the DC and the salt when the check is rolled. Recomputing the
// hash here, not trusting the server's word, shows the DC was not changed
// after the roll.

export const DC_COMMITMENT_PREFIX = 'adventure-table-dc-v1:';

// webCrypto is the page's Web Crypto, which browsers offer only on a secure
// origin (HTTPS, or localhost).
const webCrypto = (): SubtleCrypto | null => globalThis.crypto?.subtle ?? null;

// The outcome of a check: 'match', 'mismatch', or 'unavailable' where the
// page has no Web Crypto (an insecure origin: plain HTTP other than
// localhost).
export type DcVerdict = 'match' | 'mismatch' | 'unavailable';

// dcCommitment is the commitment to dc with salt, or null without Web Crypto.
export async function dcCommitment(dc: number, salt: string, subtle: SubtleCrypto | null = webCrypto()): Promise<string | null> {
  if (!subtle) return null;
  const bytes = new TextEncoder().encode(`${DC_COMMITMENT_PREFIX}${dc}:${salt}`);
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

// verifyDcCommitment recomputes the commitment of the revealed dc and salt
// and compares it with the one shown while the DC was secret.
export async function verifyDcCommitment(
  commitment: string,
  dc: number,
  salt: string,
  subtle: SubtleCrypto | null = webCrypto(),
): Promise<DcVerdict> {
  const got = await dcCommitment(dc, salt, subtle);
  if (got === null) return 'unavailable';
  return got === commitment.toLowerCase() ? 'match' : 'mismatch';
}

// shortCommitment is the commitment as a card shows it: its first 8 hex digits.
export const shortCommitment = (c: string) => c.slice(0, 8);
