/** Which Host headers are job and node hosts, and which address they name. */
import { parseIngressHost } from '../../src/ingress/host';

const DOMAIN = 'nodes.example.test';

describe('parseIngressHost', () => {
  it.each([
    ['abc.nodes.example.test', { label: 'abc', address: 'abc' }],
    ['AbC.Nodes.Example.TEST', { label: 'abc', address: 'abc' }],
    ['abc-8080.nodes.example.test', { label: 'abc-8080', address: 'abc' }],
    ['abc-1-8080.nodes.example.test', { label: 'abc-1-8080', address: 'abc' }],
    ['abc.nodes.example.test:8443', { label: 'abc', address: 'abc' }],
    ['abc.nodes.example.test.', { label: 'abc', address: 'abc' }],
    ['abc.nodes.example.test.:443', { label: 'abc', address: 'abc' }],
    ['  abc.nodes.example.test  ', { label: 'abc', address: 'abc' }],
  ])('reads %j as a job or node host', (host, expected) => {
    expect(parseIngressHost(host, DOMAIN)).toEqual(expected);
  });

  it('matches the node domain whatever its case in the configuration', () => {
    expect(parseIngressHost('abc.nodes.example.test', 'Nodes.EXAMPLE.test')).toEqual({ label: 'abc', address: 'abc' });
  });

  it.each([
    [undefined],
    [''],
    ['nodes.example.test'],
    ['.nodes.example.test'],
    ['evilnodes.example.test'],
    ['a.b.nodes.example.test'],
    ['-8080.nodes.example.test'],
    ['abc.nodes.example.test:https'],
    ['abc.nodes.example.test.evil'],
    ['api.example.test'],
  ])('does not take %j for a job or node host', (host) => {
    expect(parseIngressHost(host, DOMAIN)).toBeUndefined();
  });

  it('strips only a port at the end, never digits inside the name', () => {
    expect(parseIngressHost('abc:1.nodes.example.test', DOMAIN)).toEqual({ label: 'abc:1', address: 'abc:1' });
  });
});
