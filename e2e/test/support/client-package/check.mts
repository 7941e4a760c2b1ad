// A TypeScript user of the installed package (module NodeNext, no @types/node).
import { createApiClient, type components } from '@ocg/api-client';

type Market = components['schemas']['MarketRecord'];

const api = createApiClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'key' });

export async function marketNames(): Promise<string[]> {
  const { data } = await api.GET('/markets');
  return data ? data.markets.map((m: Market) => m.name) : [];
}

export async function post(market: string): Promise<string | undefined> {
  const { data, error } = await api.POST('/jobs', { body: { market, definitionCid: 'bafkreiexample' } });
  return data?.address ?? error?.message;
}

// @ts-expect-error: no such path in the document
void api.GET('/no-such-path');
// @ts-expect-error: durationSeconds is a number
void api.POST('/jobs', { body: { market: 'm', definitionCid: 'c', durationSeconds: 'long' } });
