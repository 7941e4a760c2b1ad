/**
 * Property-based fuzzing of every operation in libs/api-spec/openapi.json
 * through the gateway (issue 21, items 1 and 5). For each operation, requests
 * derived from its description, valid and hostile, with good, wrong or no
 * credentials. Every answer must be documented for the operation, match its
 * documented schema and media type, and no answer is a 5xx other than a 503
 * with the error shape.
 *
 *   FUZZ_SEED   fixed by default (CI); `random` for a new seed each run (nightly)
 *   FUZZ_RUNS   requests per operation (default 20)
 * A failure prints the seed and a curl command that reproduces the request.
 */
import fc from 'fast-check';
import { canonicalJson, createSigner, generateApiKey, generateWallet, signNodeRequest } from '@ocg/auth';
import { fuzzValue, hostileString, hostileValue, parameterText, setKnownValues } from './support/arbitraries';
import { startContractStack, type ContractStack } from './support/contract-stack';
import { encodeSegment, fillPath, operations, resolve, type Json, type Operation } from './support/openapi';
import { checkAnswer } from './support/responses';

const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const REQUEST_TIMEOUT_MS = 30_000;
/** FUZZ_STATS=1 prints how often each operation answered each status (to see what the inputs reach). */
const STATS = process.env.FUZZ_STATS === '1';
const statuses = new Map<string, Map<number, number>>();

type Credential = 'valid' | 'wrong' | 'none';

interface FuzzRequest {
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  mediaType: 'application/json' | 'text/plain' | 'application/xml';
  accept: string | undefined;
  credential: Credential;
}

const parametersOf = (op: Operation, where: string): Json[] =>
  ((op.op.parameters as Json[] | undefined) ?? []).filter((p) => p.in === where && p.name.toLowerCase() !== 'authorization');

function requests(op: Operation, known: Record<string, string[]>): fc.Arbitrary<FuzzRequest> {
  const record = (where: string, required: boolean) =>
    fc.record(Object.fromEntries(parametersOf(op, where).map((p) => [p.name as string, parameterText(resolve(p.schema), known[p.name] ?? [], where === 'path')])), {
      requiredKeys: required
        ? parametersOf(op, where).map((p) => p.name as string)
        : parametersOf(op, where)
            .filter((p) => p.required)
            .map((p) => p.name as string),
    }) as fc.Arbitrary<Record<string, string>>;
  // Parameters no operation declares, and bodies sent where none is taken, are answered too.
  const undeclared = fc.option(
    fc.tuple(
      fc.constantFrom('x', 'debug', '__proto__'),
      hostileString.filter((v) => v.length < 4000),
    ),
    { freq: 4 },
  );
  const query = fc.tuple(record('query', false), undeclared).map(([q, extra]) => (extra ? { ...q, [extra[0]]: extra[1] } : q));
  const stray = op.method === 'GET' ? fc.constant(undefined) : fc.option(hostileValue, { freq: 4, nil: undefined });
  return fc.record({
    path: record('path', true),
    query,
    headers: record('header', false),
    body: op.body ? fuzzValue(op.body) : stray,
    mediaType: fc.constantFrom('application/json' as const, 'application/json' as const, 'text/plain' as const, 'application/xml' as const),
    accept: fc.constantFrom(undefined, 'application/json', 'text/plain', 'multipart/form-data', 'image/png'),
    credential: fc.constantFrom<Credential>('valid', 'valid', 'wrong', 'none'),
  });
}

function target(op: Operation, req: FuzzRequest): string {
  const query = Object.entries(req.query)
    .map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`)
    .join('&');
  return fillPath(op.template, req.path) + (query ? `?${query}` : '');
}

function headersFor(s: ContractStack, op: Operation, req: FuzzRequest, path: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (/^[\t\x20-\x7e]*$/.test(value)) headers[name] = value;
  if (req.body !== undefined) headers['content-type'] = req.mediaType;
  if (req.accept) headers.accept = req.accept;
  if (req.credential === 'none' || op.security.length === 0) return headers;
  if (op.security.includes('nodeSignature')) {
    const signer = req.credential === 'valid' ? s.node : createSigner(generateWallet().secretKey);
    return { ...headers, ...signNodeRequest(signer, { method: op.method, path, body: req.body }) };
  }
  return { ...headers, authorization: `Bearer ${req.credential === 'valid' ? s.adminKey : generateApiKey()}` };
}

function curl(url: string, method: string, headers: Record<string, string>, body: string | undefined): string {
  const h = Object.entries(headers).map(([k, v]) => ` -H ${JSON.stringify(`${k}: ${v.length > 200 ? `${v.slice(0, 200)}…` : v}`)}`);
  const b = body === undefined ? '' : ` --data-binary ${JSON.stringify(body.length > 2000 ? `${body.slice(0, 2000)}… (${body.length} chars)` : body)}`;
  return `curl -X ${method} ${JSON.stringify(url)}${h.join('')}${b}`;
}

describe(`fuzzing every operation of the description (seed ${SEED}, ${RUNS} runs each)`, () => {
  let s: ContractStack;
  const known: Record<string, string[]> = {};

  beforeAll(async () => {
    s = await startContractStack();
    known.market = [s.market.address, s.market.name];
    known.node = [s.node.address];
    setKnownValues({ market: known.market });
  }, 120_000);
  afterAll(async () => {
    if (STATS) console.log([...statuses].map(([op, counts]) => `${op}: ${[...counts].map(([st, n]) => `${st}×${n}`).join(' ')}`).join('\n'));
    await s?.stop();
  });

  it.each(operations().map((op) => [`${op.method} ${op.template}`, op] as const))(
    '%s answers only what the description documents',
    async (_name, op) => {
      const property = fc.asyncProperty(requests(op, known), async (req) => {
        const path = target(op, req);
        const headers = headersFor(s, op, req, path);
        // Stack-safe (the bodies nest 10,000 deep); its sorted keys change nothing a server may rely on.
        const body = req.body === undefined ? undefined : canonicalJson(req.body);
        const url = `${s.gateway}${path}`;
        const res = await fetch(url, { method: op.method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch((err: Error) => {
          throw new Error(`${err.message}\n  reproduce: ${curl(url, op.method, headers, body)}`);
        });
        const answer = { status: res.status, contentType: res.headers.get('content-type') ?? undefined, text: await res.text(), accepted: req.accept, requestBody: req.body };
        const counts = statuses.get(`${op.method} ${op.template}`) ?? new Map<number, number>();
        statuses.set(`${op.method} ${op.template}`, counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1));
        const problems = checkAnswer(op, answer);
        if (problems.length > 0) {
          throw new Error(`${problems.join('\n  ')}\n  answer: ${answer.status} ${answer.text.slice(0, 500)}\n  reproduce: ${curl(url, op.method, headers, body)}`);
        }
      });
      await fc.assert(property, { seed: SEED, numRuns: RUNS, endOnFailure: true });
    },
    240_000,
  );
});
