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

  it('names the bad variable and its value', () => {
    try {
      parseConfig(schema, { DATABASE_URL: 'postgres://u@h/db', REDIS_URL: 'redis://h', PORT: 'eighty' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([{ variable: 'PORT', message: expect.stringContaining('"eighty"') }]);
    }
  });

  it('rejects an unknown log level', () => {
    expect(() => parseConfig(z.object({ LOG_LEVEL: env.logLevel() }), { LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
