import { startHostManager, TestNode, type Harness } from './harness';

/**
 * Issue 11, item 2: a node's ingress URL is where the gateway will send
 * anyone's requests, so it must not lead into the operator's network. The
 * gateway checks again when it connects (after DNS); this is the early,
 * clear refusal at registration.
 */
describe('node ingress URLs at registration', () => {
  let hm: Harness;
  let market: { address: string; joinToken: string };

  beforeAll(async () => {
    hm = await startHostManager({ ALLOW_PRIVATE_INGRESS: false, INGRESS_ALLOW_CIDRS: '10.20.0.0/16' });
    market = await hm.createMarket({ name: 'Ingress policy' });
  });
  afterAll(() => hm.close());

  const register = (ingressUrl: string) => new TestNode(hm).register(market.address, market.joinToken, undefined, { ingressUrl });

  it.each([
    'http://127.0.0.1:8091',
    'http://10.0.0.5:8091',
    'http://172.16.3.4',
    'http://192.168.1.20:80',
    'http://100.64.0.9',
    'http://169.254.169.254/latest',
    'http://0.0.0.0:8091',
    'http://[::1]:8091',
    'http://[fd00::5]:8091',
    'http://[fe80::1]:8091',
    'http://[::ffff:127.0.0.1]:8091',
    'https://user:secret@node.example.net',
  ])('answers 400 naming /ingressUrl for %s', async (ingressUrl) => {
    const res = await register(ingressUrl);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ name: 'ValidationError', errors: [{ path: '/ingressUrl' }] });
  });

  it.each(['http://203.0.113.7:8091', 'https://node.example.net', 'http://10.20.1.2:8091'])('registers a node at %s (public, a name, or an allowed range)', async (ingressUrl) => {
    const res = await register(ingressUrl);
    expect(res.status).toBe(200);
    expect(res.body.node.ingressUrl).toBe(ingressUrl);
  });
});
