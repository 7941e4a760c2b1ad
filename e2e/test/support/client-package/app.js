// A frontend on its own origin: lists markets and posts a job through the gateway.
// The gateway URL, API key and job come in the page's hash (#api=...&key=...&job=...).
import { createApiClient } from '@ocg/api-client';

const out = document.getElementById('out');
const params = new URLSearchParams(location.hash.slice(1));
// credentials: 'include' (as a frontend using the session cookie would): the browser then also needs Access-Control-Allow-Credentials.
const api = createApiClient({ baseUrl: params.get('api'), apiKey: params.get('key'), credentials: 'include' });
try {
  const markets = await api.GET('/markets');
  const posted = await api.POST('/jobs', { body: JSON.parse(params.get('job')) });
  out.textContent = JSON.stringify({
    markets: markets.data?.markets.map((m) => m.name),
    posted: { status: posted.response.status, address: posted.data?.address, requestId: posted.response.headers.get('x-request-id'), error: posted.error },
  });
} catch (err) {
  out.textContent = JSON.stringify({ failed: String(err) });
}
out.dataset.done = 'yes';
