/** Which requests at the API's job and market paths are browsers opening a link (a page) and which are API calls. */
import type http from 'node:http';
import { pageRequestOf, prefersHtml } from '../../src/pages/negotiate';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function request(headers: http.IncomingHttpHeaders, method = 'GET'): http.IncomingMessage {
  return { method, headers } as http.IncomingMessage;
}

describe('pageRequestOf', () => {
  it('gives a job page with the session cookie, and a market page, with the segment decoded', () => {
    expect(pageRequestOf(request({ accept: BROWSER, cookie: 'sid=1' }), '/jobs/J1')).toEqual({ kind: 'job', address: 'J1', cookie: 'sid=1' });
    expect(pageRequestOf(request({ accept: BROWSER }), '/jobs/J%201')).toEqual({ kind: 'job', address: 'J 1', cookie: undefined });
    expect(pageRequestOf(request({ accept: BROWSER }), '/markets/cpu%20pool')).toEqual({ kind: 'market', ref: 'cpu pool' });
  });

  it('keeps a segment that does not decode as it is', () => {
    expect(pageRequestOf(request({ accept: BROWSER }), '/markets/%E0%A4%A')).toEqual({ kind: 'market', ref: '%E0%A4%A' });
  });

  it('leaves other methods, credentials, API clients and other paths to the API', () => {
    expect(pageRequestOf(request({ accept: BROWSER }, 'HEAD'), '/jobs/J1')).toBeUndefined();
    expect(pageRequestOf(request({ accept: BROWSER }, 'POST'), '/markets/M1')).toBeUndefined();
    expect(pageRequestOf(request({ accept: BROWSER, authorization: 'Bearer x' }), '/jobs/J1')).toBeUndefined();
    expect(pageRequestOf(request({ accept: BROWSER, authorization: '' }), '/jobs/J1')).toBeUndefined();
    expect(pageRequestOf(request({ accept: 'application/json' }), '/jobs/J1')).toBeUndefined();
    expect(pageRequestOf(request({}), '/jobs/J1')).toBeUndefined();
    for (const path of ['/jobs', '/jobs/', '/jobs/J1/stop', '/x/jobs/J1', '/markets/M1/nodes', '/x/markets/M1', '/markets/', '/jobsx/J1']) {
      expect(pageRequestOf(request({ accept: BROWSER }), path)).toBeUndefined();
    }
  });
});

describe('prefersHtml', () => {
  it.each([
    [BROWSER, true],
    ['text/html', true],
    ['TEXT/HTML', true],
    ['text/html ; q=0.9', true],
    ['application/json, text/html', false],
    ['text/html, application/json', true],
    ['text/html;q=0.5, application/json', false],
    ['application/json;q=0.5, text/html', true],
    ['application/json;q=0.5, text/html;q=0.5', false],
    ['text/html;q=0.5, application/json;q=0.5', true],
    ['text/html;q=0.5, */*;q=0.5', true],
    ['*/*;q=0.5, text/html;q=0.5', false],
    ['application/*, text/html', false],
    ['*/*', false],
    ['text/*', false],
    ['text/html;q=0', false],
    ['text/html;q=0.001', true],
    ['text/html;q=2, application/json', true],
    ['text/html;level=1;q=0.4, application/json;q=0.3', true],
    ['text/html;q=0.4, application/json;q=0.3;level=1', true],
    ['text/html;q=abc', false],
    ['text/html;q=-1', false],
    ['text/html;q=0.3, text/html;q=0.6, application/json;q=0.5', true],
    ['text/html;q=0.6, text/html;q=0.3, application/json;q=0.5', true],
    ['text/html, application/json, text/html', true],
    ['application/json, text/html, application/json', false],
    ['text/html; q=0.4, application/json;q=0.5', false],
    ['application/json;q=0.5, image/png', false],
    ['image/png', false],
    ['application/json;q=0.6, application/json;q=0.3, text/html;q=0.5', false],
    ['application/json;q=0.3, application/*;q=0.6, text/html;q=0.5', false],
    ['', false],
    [undefined, false],
  ])('Accept %j prefers a page: %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});
