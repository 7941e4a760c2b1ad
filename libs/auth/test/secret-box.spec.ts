import { randomBytes } from 'node:crypto';
import { DEVELOPMENT_MASTER_KEY, MasterKeyError, SecretDecryptionError, decryptSecret, encryptSecret, parseMasterKey, resolveMasterKey } from '../src/secret-box';

const masterKey = randomBytes(32);

describe('secrets at rest', () => {
  it('opens what it sealed: text, bytes and empty input', () => {
    expect(decryptSecret(masterKey, encryptSecret(masterKey, 'seed phrase ✓')).toString('utf8')).toBe('seed phrase ✓');
    const bytes = randomBytes(32);
    expect(decryptSecret(masterKey, encryptSecret(masterKey, bytes, 'wallet:u1'), 'wallet:u1').equals(bytes)).toBe(true);
    expect(decryptSecret(masterKey, encryptSecret(masterKey, '')).length).toBe(0);
  });

  it('writes v1.<iv>.<tag>.<ciphertext> in base64url with a fresh 12-byte IV each time', () => {
    const a = encryptSecret(masterKey, 'same');
    const b = encryptSecret(masterKey, 'same');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
    expect(a).not.toBe(b);
  });

  it('refuses a sealed text with any single character changed', () => {
    const sealed = encryptSecret(masterKey, randomBytes(32), 'wallet:u1');
    for (let i = 0; i < sealed.length; i++) {
      if (sealed[i] === '.') continue;
      const edited = sealed.slice(0, i) + (sealed[i] === 'A' ? 'B' : 'A') + sealed.slice(i + 1);
      expect(() => decryptSecret(masterKey, edited, 'wallet:u1')).toThrow(SecretDecryptionError);
    }
  });

  it('refuses the wrong master key, the wrong aad and a missing aad', () => {
    const sealed = encryptSecret(masterKey, 'secret', 'wallet:u1');
    expect(() => decryptSecret(randomBytes(32), sealed, 'wallet:u1')).toThrow(/failed authentication/);
    expect(() => decryptSecret(masterKey, sealed, 'wallet:u2')).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(masterKey, sealed)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(masterKey, encryptSecret(masterKey, 'secret'), 'wallet:u1')).toThrow(SecretDecryptionError);
  });

  it('refuses texts that are not in the v1 format', () => {
    const [, iv, tag, data] = encryptSecret(masterKey, 'secret').split('.');
    for (const text of [
      '',
      'v1',
      `v2.${iv}.${tag}.${data}`,
      `v1.${iv}.${tag}`,
      `v1.${iv}.${tag}.${data}.x`,
      `v1.${iv}A.${tag}.${data}`,
      `v1.${iv}.${tag}=.${data}`,
      `v1.${iv}.${tag}.${data}!`,
    ]) {
      expect(() => decryptSecret(masterKey, text)).toThrow(/not in the v1 format/);
    }
  });

  it('refuses a master key that is not 32 bytes when sealing or opening', () => {
    expect(() => encryptSecret(randomBytes(16), 'x')).toThrow(MasterKeyError);
    expect(() => decryptSecret(randomBytes(31), encryptSecret(masterKey, 'x'))).toThrow(MasterKeyError);
  });
});

describe('parseMasterKey', () => {
  const raw = randomBytes(32);

  it('reads 64 hex characters, base64 and base64url, ignoring surrounding whitespace', () => {
    expect(parseMasterKey(raw.toString('hex')).equals(raw)).toBe(true);
    expect(parseMasterKey(raw.toString('hex').toUpperCase()).equals(raw)).toBe(true);
    expect(parseMasterKey(raw.toString('base64')).equals(raw)).toBe(true);
    expect(parseMasterKey(raw.toString('base64url')).equals(raw)).toBe(true);
    expect(parseMasterKey(`  ${raw.toString('base64')}\n`).equals(raw)).toBe(true);
  });

  it('names the problem: empty, wrong alphabet, wrong length', () => {
    expect(() => parseMasterKey('')).toThrow(/master key is empty/);
    expect(() => parseMasterKey(undefined as never)).toThrow(/master key is empty/);
    expect(() => parseMasterKey('   ')).toThrow(/master key is empty/);
    expect(() => parseMasterKey('not a key!')).toThrow(/neither hex nor base64/);
    expect(() => parseMasterKey(randomBytes(16).toString('base64'))).toThrow(/decodes to 16 bytes, expected 32/);
    expect(() => parseMasterKey(randomBytes(31).toString('hex'))).toThrow(/as hex: 62 characters, expected 64/);
    expect(() => parseMasterKey(randomBytes(48).toString('base64'))).toThrow(MasterKeyError);
  });

  it('anchors both ends of the hex and base64 alphabets, and refuses a non-string key', () => {
    expect(() => parseMasterKey(`g${'a'.repeat(63)}`)).toThrow(/decodes to 48 bytes, expected 32$/);
    expect(() => parseMasterKey(`!${randomBytes(32).toString('base64')}`)).toThrow(/neither hex nor base64/);
    expect(() => parseMasterKey(`${randomBytes(32).toString('base64')}!`)).toThrow(/neither hex nor base64/);
    expect(() => parseMasterKey(undefined as unknown as string)).toThrow(MasterKeyError);
    expect(() => parseMasterKey(randomBytes(16).toString('base64'))).toThrow(/^master key decodes to 16 bytes, expected 32$/);
  });

  it('names its errors and says what a bad master key should be', () => {
    expect(new MasterKeyError('x').name).toBe('MasterKeyError');
    expect(new SecretDecryptionError('x').name).toBe('SecretDecryptionError');
    expect(() => encryptSecret(Buffer.alloc(16), 'x')).toThrow('master key must be a 32-byte Buffer (use parseMasterKey)');
  });

  it('refuses an IV or tag of the wrong length as not in the v1 format', () => {
    const [, iv, tag, data] = encryptSecret(masterKey, 'secret').split('.');
    const short = randomBytes(8).toString('base64url');
    for (const sealed of [`v1.${short}.${tag}.${data}`, `v1.${iv}.${short}.${data}`]) {
      expect(() => decryptSecret(masterKey, sealed)).toThrow('sealed secret is not in the v1 format');
    }
    expect(() => decryptSecret(masterKey, 42 as unknown as string)).toThrow('sealed secret is not in the v1 format');
  });
});

describe('resolveMasterKey', () => {
  const own = randomBytes(32);

  it('derives the public development key the same way everywhere', () => {
    expect(DEVELOPMENT_MASTER_KEY.toString('hex')).toBe('2e8eb20d6ae71d7d99d6d94fccb24be33080ffde3901efce5470bd9b62a777e1');
  });

  it('uses a configured key anywhere, and the development key only on a development machine', () => {
    expect(resolveMasterKey(own.toString('hex'), false).equals(own)).toBe(true);
    expect(resolveMasterKey(own.toString('hex'), true).equals(own)).toBe(true);
    expect(resolveMasterKey(undefined, true).equals(DEVELOPMENT_MASTER_KEY)).toBe(true);
    expect(resolveMasterKey(DEVELOPMENT_MASTER_KEY.toString('hex'), true).equals(DEVELOPMENT_MASTER_KEY)).toBe(true);
  });

  it('refuses a missing key, or the development key configured, elsewhere, saying which', () => {
    expect(() => resolveMasterKey(undefined, false)).toThrow(
      'is required: without it secrets would be sealed with the public development key (set DEVELOPMENT_MACHINE=true on a development machine)',
    );
    expect(() => resolveMasterKey(DEVELOPMENT_MASTER_KEY.toString('base64'), false)).toThrow(
      'is the public development key; set a key of your own (or DEVELOPMENT_MACHINE=true on a development machine)',
    );
  });
});
