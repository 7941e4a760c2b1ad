/**
 * The gateway's route table, derived from the committed document: every
 * operation's path template and method map to its `x-service`.
 */
export interface RouteEntry {
  method: string;
  template: string;
  service: string;
  operationId?: string;
}

export interface RouteTable {
  /** The service that serves `method path`, or undefined. */
  match(method: string, path: string): RouteEntry | undefined;
  /** True when some method serves this path (to tell 404 from 405). */
  hasPath(path: string): boolean;
  readonly entries: readonly RouteEntry[];
}

interface Compiled extends RouteEntry {
  regex: RegExp;
  /** Static segments rank before parameters, so /keys/new beats /keys/{id}. */
  rank: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export function routeTableFrom(doc: { paths?: Record<string, Record<string, unknown>> }): RouteTable {
  const compiled: Compiled[] = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as { 'x-service'?: string; operationId?: string } | undefined;
      if (!op) continue;
      if (!op['x-service']) throw new Error(`${method.toUpperCase()} ${template} has no x-service`);
      compiled.push({ method: method.toUpperCase(), template, service: op['x-service'], operationId: op.operationId, ...compile(template) });
    }
  }
  compiled.sort((a, b) => b.rank - a.rank);
  const byMethod = new Map<string, Compiled[]>();
  for (const route of compiled) byMethod.set(route.method, [...(byMethod.get(route.method) ?? []), route]);
  // A template without parameters outranks every other that matches its path: most requests are found by one lookup, not a scan.
  const literal = new Map<string, Compiled>();
  for (const route of compiled) {
    if (route.template.includes('{')) continue;
    const path = route.template.replace(/\/$/, '');
    for (const key of [`${route.method} ${path}`, `${route.method} ${path}/`]) if (!literal.has(key)) literal.set(key, route);
  }

  return {
    entries: compiled.map(({ method, template, service, operationId }) => ({ method, template, service, operationId })),
    match(method, path) {
      const verb = method === 'HEAD' ? 'GET' : method;
      const candidates = byMethod.get(verb);
      return literal.get(`${verb} ${path}`) ?? candidates?.find((r) => r.regex.test(path));
    },
    hasPath(path) {
      return compiled.some((r) => r.regex.test(path));
    },
  };
}

function compile(template: string): { regex: RegExp; rank: number } {
  const segments = template.split('/').filter(Boolean);
  let rank = 0;
  const pattern = segments
    .map((segment) => {
      if (/^\{[^}]+\}$/.test(segment)) return '/[^/]+';
      rank += 1;
      return '/' + segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  // A trailing slash is optional, as express treats it.
  return { regex: new RegExp(`^${pattern || ''}/?$`), rank: rank * 100 + segments.length };
}
