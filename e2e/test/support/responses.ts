/** What the description promises about an operation's answers, checked with ajv. */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { doc, resolve, type Json, type Operation } from './openapi';

const DEFS_ID = 'https://ocg.invalid/schemas';

/** `#/components/schemas/X` refs point into one shared schema holding every component. */
function rewriteRefs<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', `"${DEFS_ID}#/$defs/`)) as T;
}

const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { int32: true, int64: true, double: true, float: true, binary: true, byte: true } });
addFormats(ajv);
ajv.addSchema({ $id: DEFS_ID, $defs: rewriteRefs(doc.components.schemas) });

const compiled = new Map<string, ValidateFunction>();

export interface Answer {
  status: number;
  contentType: string | undefined;
  text: string;
  /** The one media type the request's Accept asked for, if any. */
  accepted?: string;
  /** The body sent, when there was one. */
  requestBody?: unknown;
}

function validator(key: string, schema: Json): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(rewriteRefs(schema));
    compiled.set(key, validate);
  }
  return validate;
}

/** Why the description forbids this request body, or undefined when it admits it. */
function forbiddenBody(op: Operation, body: unknown): string | undefined {
  if (!op.body || body === undefined) return undefined;
  const validate = validator(`${op.method} ${op.template} request`, op.body);
  return validate(body) ? undefined : ajv.errorsText(validate.errors?.slice(0, 5));
}

function documentedResponse(op: Operation, status: number): Json | undefined {
  const responses = op.op.responses as Json;
  return resolve(responses[String(status)] ?? responses.default);
}

/** The problems with an answer, empty when it is what the description says. */
export function checkAnswer(op: Operation, answer: Answer): string[] {
  const problems: string[] = [];
  const response = documentedResponse(op, answer.status);
  if (answer.status < 300) {
    const why = forbiddenBody(op, answer.requestBody);
    if (why) problems.push(`answered ${answer.status} to a body the description forbids (${why})`);
  }
  if (answer.status >= 500 && answer.status !== 503) problems.push(`answered ${answer.status}: no 5xx other than 503`);
  if (!response) return [...problems, `answered ${answer.status}, which the description does not document for ${op.method} ${op.template}`];
  const content = response.content as Json | undefined;
  if (!content || answer.text === '') return problems;
  const type = answer.contentType?.split(';')[0]?.trim().toLowerCase();
  if (!type || !(type in content)) return [...problems, `answered ${answer.status} as ${type}, documented only as ${Object.keys(content).join(', ')}`];
  // Every documented type is really sent: asking for one gets it.
  if (answer.accepted && answer.accepted in content && type !== answer.accepted)
    problems.push(`asked for ${answer.accepted}, which is documented for ${answer.status}, and got ${type}`);
  if (type !== 'application/json') return problems;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [...problems, 'the JSON answer does not parse'];
  }
  const validate = validator(`${op.method} ${op.template} ${answer.status}`, content['application/json'].schema ?? {});
  if (!validate(body)) problems.push(`the body breaks its documented schema: ${ajv.errorsText(validate.errors?.slice(0, 5))}`);
  if (answer.status >= 400) problems.push(...internalText(body));
  return problems;
}

/** Error text that only makes sense inside the service: never sent. */
function internalText(body: unknown): string[] {
  const text = JSON.stringify(body);
  const leaks = [/Maximum call stack/i, /status \d{3} /, /ECONNREFUSED|ECONNRESET|ETIMEDOUT/, /at [\w.]+ \(.*:\d+:\d+\)/, /QueryFailedError|violates|syntax error at/];
  return leaks.filter((re) => re.test(text)).map((re) => `the error body carries internal text (${re})`);
}
