// A Node user of the installed package: list markets, post a job, read it back.
import { createApiClient } from '@ocg/api-client';
import manifest from '@ocg/api-client/package.json' with { type: 'json' };

const [baseUrl, apiKey, market] = process.argv.slice(2);
const api = createApiClient({ baseUrl, apiKey });
const op = { type: 'container/run', id: 'serve', args: { image: 'busybox', cmd: ['sh', '-c', 'sleep 60'] } };
const body = { definition: { version: '0.1', type: 'container', ops: [op] }, market, durationSeconds: 60 };

const markets = await api.GET('/markets');
const posted = await api.POST('/jobs', { body });
const job = await api.GET('/jobs/{job}', { params: { path: { job: posted.data?.address ?? 'none' } } });
const anonymous = await createApiClient({ baseUrl }).POST('/jobs', { body });

console.log(
  JSON.stringify({
    node: process.version,
    version: manifest.version,
    markets: markets.data?.markets.map((m) => m.name),
    posted: { status: posted.response.status, address: posted.data?.address, error: posted.error },
    job: job.data,
    anonymous: { status: anonymous.response.status, error: anonymous.error },
  }),
);
