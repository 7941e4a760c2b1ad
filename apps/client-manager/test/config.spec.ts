import { DEVELOPMENT_MASTER_KEY } from '@ocg/auth';
import { ConfigError } from '@ocg/http';
import { loadConfig } from '../src/config';

const base = { DATABASE_URL: 'postgres://u@127.0.0.1/db', REDIS_URL: 'redis://127.0.0.1:6379' };

function problems(env: Record<string, string>): string {
  try {
    loadConfig({ ...base, ...env });
    return '';
  } catch (err) {
    return (err as ConfigError).problems.map((p) => `${p.variable}: ${p.message}`).join('\n');
  }
}

describe('the master key at start', () => {
  it('refuses to start without MASTER_KEY unless this is a development machine', () => {
    expect(problems({})).toMatch(/^MASTER_KEY: is required/);
    expect(problems({ DEVELOPMENT_MACHINE: 'true' })).toBe('');
  });

  it('refuses the public development key given explicitly, without printing it', () => {
    const hex = DEVELOPMENT_MASTER_KEY.toString('hex');
    const message = problems({ MASTER_KEY: hex });
    expect(message).toMatch(/^MASTER_KEY: is the public development key/);
    expect(message).not.toContain(hex);
    expect(problems({ MASTER_KEY: hex, DEVELOPMENT_MACHINE: '1' })).toBe('');
  });

  it('never allows the development key in production', () => {
    expect(problems({ DEVELOPMENT_MACHINE: 'true', NODE_ENV: 'production' })).toMatch(/^MASTER_KEY: is required/);
  });

  it('starts with a key of its own', () => {
    expect(problems({ MASTER_KEY: 'ab'.repeat(32) })).toBe('');
  });
});
