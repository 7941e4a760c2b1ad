import { routeTableFrom } from '../src/routes';

const table = routeTableFrom({
  paths: {
    '/api-keys/': { get: { 'x-service': 'cm' }, post: { 'x-service': 'cm' } },
    '/api-keys/{id}': { get: { 'x-service': 'cm' } },
    '/api-keys/{id}/update': { post: { 'x-service': 'cm' } },
    '/jobs/{id}': { get: { 'x-service': 'dm' } },
    '/jobs/stats': { get: { 'x-service': 'hm' } },
  },
});

describe('routeTableFrom', () => {
  it('matches templates with parameters', () => {
    expect(table.match('POST', '/api-keys/key_1/update')?.service).toBe('cm');
    expect(table.match('GET', '/jobs/abc')?.service).toBe('dm');
  });

  it('prefers a static segment over a parameter', () => {
    expect(table.match('GET', '/jobs/stats')?.service).toBe('hm');
  });

  it('accepts the path with or without its trailing slash', () => {
    expect(table.match('GET', '/api-keys')?.service).toBe('cm');
    expect(table.match('GET', '/api-keys/')?.service).toBe('cm');
  });

  it('answers HEAD from the GET route', () => {
    expect(table.match('HEAD', '/jobs/abc')?.service).toBe('dm');
  });

  it('tells a wrong method from an unknown path', () => {
    expect(table.match('DELETE', '/jobs/abc')).toBeUndefined();
    expect(table.hasPath('/jobs/abc')).toBe(true);
    expect(table.hasPath('/nowhere')).toBe(false);
  });

  it('does not let a parameter span segments', () => {
    expect(table.match('GET', '/jobs/a/b')).toBeUndefined();
  });

  it('refuses a document operation without x-service', () => {
    expect(() => routeTableFrom({ paths: { '/x': { get: {} } } })).toThrow(/GET \/x has no x-service/);
  });
});
