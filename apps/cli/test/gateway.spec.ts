/** Which gateway a command talks to, and under which network name it says so. */
import { gatewayFrom } from '../src/gateway';

const key = { apiKey: 'ocg_x' };
const where = (opts: object, env: NodeJS.ProcessEnv = {}) => {
  const { url, network } = gatewayFrom({ ...key, ...opts }, env);
  return { url, network };
};

describe('gatewayFrom', () => {
  it('talks to the local network by default', () => {
    expect(where({})).toEqual({ url: 'http://127.0.0.1:8080', network: 'local' });
  });

  it('finds a network named by --network or OCG_NETWORK in OCG_NETWORKS', () => {
    const env = { OCG_NETWORKS: 'staging=https://staging.example.net/, prod=https://api.example.net' };
    expect(where({ network: 'prod' }, env)).toEqual({ url: 'https://api.example.net', network: 'prod' });
    expect(where({}, { ...env, OCG_NETWORK: 'staging' })).toEqual({ url: 'https://staging.example.net', network: 'staging' });
  });

  it('lets flags beat the environment, and a gateway URL beat a network name at the same level', () => {
    const env = { OCG_NETWORKS: 'prod=https://api.example.net', OCG_GATEWAY_URL: 'http://10.0.0.1:8080', OCG_NETWORK: 'prod' };
    expect(where({}, env)).toEqual({ url: 'http://10.0.0.1:8080', network: 'prod' });
    expect(where({ network: 'local' }, env)).toEqual({ url: 'http://127.0.0.1:8080', network: 'local' });
    expect(where({ gateway: 'https://api.example.net' }, env)).toEqual({ url: 'https://api.example.net', network: 'prod' });
    expect(where({ gateway: 'http://127.0.0.1:9999' }, env)).toEqual({ url: 'http://127.0.0.1:9999', network: 'custom' });
  });

  it('refuses an unknown network, saying how to define it', () => {
    expect(() => where({ network: 'moon' })).toThrow('unknown network "moon" (known: local): pass --gateway, or add it to OCG_NETWORKS as moon=<gateway url>');
    expect(() => where({}, { OCG_NETWORKS: 'broken' })).toThrow('OCG_NETWORKS: "broken" is not name=url');
  });

  it('asks for an API key', () => {
    expect(() => gatewayFrom({}, {})).toThrow('no API key: pass --api-key or set OCG_API_KEY');
  });
});
