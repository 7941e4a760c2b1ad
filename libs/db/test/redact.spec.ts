import { redactUrl } from '../src';

it('hides the password of a connection URL', () => {
  expect(redactUrl('postgres://svc:s3cr%40t@db.internal:5432/app')).toBe('postgres://svc:***@db.internal:5432/app');
});

it('leaves a URL without a password unchanged', () => {
  expect(redactUrl('redis://127.0.0.1:6379/2')).toBe('redis://127.0.0.1:6379/2');
});

it('hides secret-looking query parameters', () => {
  expect(redactUrl('postgres://db/app?sslmode=require&password=x&api_key=y')).toBe('postgres://db/app?sslmode=require&password=***&api_key=***');
});

it('hides the password even when the URL does not parse', () => {
  expect(redactUrl('postgres://svc:p@ss word@db:5432/app')).not.toContain('p@ss');
});
