import { z } from 'zod';
import { ConfigError, env, parseConfig, serviceConfigShape } from '../src/config';

describe('parseConfig', () => {
  const schema = z.object(serviceConfigShape(8081));

  it('fills defaults and coerces numbers', () => {
    const config = parseConfig(schema, { DATABASE_URL: 'postgres://u@h/db', REDIS_URL: 'redis://h:6379' });
    expect(config).toMatchObject({ HOST: '127.0.0.1', PORT: 8081, LOG_LEVEL: 'info' });
  });

  it('names every missing variable', () => {
    expect(() => parseConfig(schema, {})).toThrow(/DATABASE_URL: is required but not set[\s\S]*REDIS_URL: is required but not set/);
  });

  it('names the bad variable and never prints its value', () => {
    const marker = 'SECRET-MARKER-1f2e';
    try {
      parseConfig(z.object({ ...serviceConfigShape(1), LEVEL: z.enum(['a', 'b']) }), {
        DATABASE_URL: `not a url ${marker}`,
        REDIS_URL: 'redis://h',
        PORT: `eighty${marker}`,
        LEVEL: marker,
      });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      expect(problems.map((p) => p.variable).sort()).toEqual(['DATABASE_URL', 'LEVEL', 'PORT']);
      expect(JSON.stringify(problems) + (err as Error).message).not.toContain(marker);
    }
  });

  it('rejects an unknown log level', () => {
    expect(() => parseConfig(z.object({ LOG_LEVEL: env.logLevel() }), { LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
