import { createHash } from 'node:crypto';
import { API_KEY_LENGTH, API_KEY_PATTERN, API_KEY_PREFIX, apiKeyLookupHash, generateApiKey, isWellFormedApiKey } from '../src/api-key';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** The checksum as documented: the first 32 bits of SHA-256("ocg_" + body) as 6 base58 digits, most significant first. */
function checksum(body: string): string {
  let n = createHash('sha256').update(`ocg_${body}`).digest().readUInt32BE(0);
  let digits = '';
  for (let i = 0; i < 6; i++, n = Math.floor(n / 58)) digits = ALPHABET[n % 58] + digits;
  return digits;
}

describe('API keys', () => {
  it('generates 54-character keys that pass the offline check', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toHaveLength(API_KEY_LENGTH);
      expect(API_KEY_LENGTH).toBe(54);
      expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('never generates the same key twice in a thousand', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
  });

  it('rejects a key with any single character changed, checksum included', () => {
    const key = generateApiKey();
    for (let i = API_KEY_PREFIX.length; i < key.length; i++) {
      const other = ALPHABET[(ALPHABET.indexOf(key[i]) + 1 + (i % 57)) % 58];
      expect(isWellFormedApiKey(key.slice(0, i) + other + key.slice(i + 1))).toBe(false);
    }
  });

  it('rejects two swapped neighbouring characters', () => {
    const key = generateApiKey();
    let i = API_KEY_PREFIX.length + 20;
    while (key[i] === key[i + 1]) i++;
    expect(isWellFormedApiKey(key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2))).toBe(false);
  });

  it('rejects wrong prefix, length, alphabet and non-strings', () => {
    const key = generateApiKey();
    const bad = [
      '',
      'ocg_',
      `sk_${key.slice(4)}`,
      `OCG_${key.slice(4)}`,
      key.slice(0, -1),
      `${key}1`,
      `${key.slice(0, 10)}0${key.slice(11)}`,
      `${key.slice(0, 10)}l${key.slice(11)}`,
      ` ${key}`,
      `${key}\n`,
    ];
    for (const text of bad) expect(isWellFormedApiKey(text)).toBe(false);
    expect(isWellFormedApiKey(undefined as never)).toBe(false);
    expect(isWellFormedApiKey(42 as never)).toBe(false);
  });

  it('finds keys in free text with API_KEY_PATTERN, and not inside longer tokens', () => {
    const key = generateApiKey();
    expect(API_KEY_PATTERN.test(`export OCG_KEY="${key}" # prod`)).toBe(true);
    expect(API_KEY_PATTERN.exec(`token=${key}`)?.[0]).toBe(key);
    expect(API_KEY_PATTERN.test(`x${key}`)).toBe(false);
    expect(API_KEY_PATTERN.test(`${key}a`)).toBe(false);
  });

  it('gives a stable SHA-256 hex lookup hash of the whole key', () => {
    expect(apiKeyLookupHash('ocg_example')).toBe('8b153679e9d7614dd277e6e64683ed4a5c32a7b6ed6c54fbdf85d550c1cfab54');
    const key = generateApiKey();
    expect(apiKeyLookupHash(key)).toBe(apiKeyLookupHash(key));
    expect(apiKeyLookupHash(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(apiKeyLookupHash(generateApiKey())).not.toBe(apiKeyLookupHash(key));
  });

  it('checks a known key against its checksum, digit by digit', () => {
    // Made by generateApiKey; pins the checksum algorithm (a change would lock out every issued key).
    const known = 'ocg_2ySrE8SSfzPw9qQiY676x5busc2HVgpozMrkE1K9Noxo5WQNe2';
    expect(isWellFormedApiKey(known)).toBe(true);
    expect(apiKeyLookupHash(known)).toBe('18a2fb932cbd8f46a2f47ae389a40798486efda22eb0e4f4527f9834d8184227');
    for (const other of ['5WQNe3', '5WQNf2', '1WQNe2', '5WQNe1']) expect(isWellFormedApiKey(known.slice(0, -6) + other)).toBe(false);
  });

  it('rejects a well-checksummed body that does not decode to 32 bytes', () => {
    // 44 base58 characters can encode more than 32 bytes: "z" * 44 is past 2^256; "1" * 44 is 44 zero bytes.
    for (const body of ['z'.repeat(44), '1'.repeat(44)]) expect(isWellFormedApiKey(`ocg_${body}${checksum(body)}`)).toBe(false);
    // the checksum written out here is the real one: it completes a generated key's body into that key
    const key = generateApiKey();
    expect(`ocg_${key.slice(4, 48)}${checksum(key.slice(4, 48))}`).toBe(key);
  });

  it('never takes a non-string for a key, even one that prints as a valid key', () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey({ toString: () => key } as never)).toBe(false);
  });
});
