/**
 * The distribution protocol's token flow: a registry that answers 401 with
 * `WWW-Authenticate: Bearer realm=...,service=...,scope=...` gives an
 * anonymous pull token at the realm. A model has no credentials, so a Basic
 * challenge, or a realm that refuses, means the model is not public.
 */
import { bytesOf, expectOk, remoteGet } from './remote-http';
import { ResourceError, type SourceContext } from './source';

export interface RegistryAuth {
  ctx: SourceContext;
  label: string;
  /** `namespace/name`: the default pull scope. */
  repository: string;
  /** The last token the realm gave; refreshed when the registry challenges again (tokens expire within minutes). */
  token?: string;
}

/** GET from the registry, answering one Bearer challenge with a fresh token. The token goes to the registry's origin only. */
export async function registryGet(auth: RegistryAuth, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  const send = () => remoteGet(auth.ctx, auth.label, { url, headers: bearer(auth.token), anyHost: headers, signal });
  const res = await send();
  if (res.status !== 401) return res;
  const challenge = parseChallenge(res.headers.get('www-authenticate') ?? '');
  if (!challenge?.realm) return res;
  await res.body?.cancel();
  auth.token = await tokenFrom(auth, challenge, signal);
  return send();
}

function bearer(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

async function tokenFrom(auth: RegistryAuth, challenge: Record<string, string>, signal: AbortSignal): Promise<string> {
  let realm: URL;
  try {
    realm = new URL(challenge.realm);
  } catch {
    throw new ResourceError('invalid', `${auth.label}: the registry's token realm is not a URL`);
  }
  if (challenge.service) realm.searchParams.set('service', challenge.service);
  realm.searchParams.set('scope', challenge.scope ?? `repository:${auth.repository}:pull`);
  const res = await expectOk(await remoteGet(auth.ctx, auth.label, { url: realm.toString(), signal }), auth.label, 'pull token');
  const body = await bytesOf(res, auth.label, signal, 1024 * 1024);
  let token: unknown;
  try {
    const json = JSON.parse(body.toString('utf8')) as { token?: unknown; access_token?: unknown };
    token = json.token ?? json.access_token;
  } catch {
    token = undefined;
  }
  if (typeof token !== 'string' || !token) throw new ResourceError('invalid', `${auth.label}: the registry's token realm gave no token`);
  return token;
}

/** `Bearer realm="...",service="...",scope="..."` as a map; undefined for any other scheme. */
export function parseChallenge(header: string): Record<string, string> | undefined {
  const m = /^\s*Bearer\s+(.*)$/i.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  for (const p of m[1].matchAll(/([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g)) {
    params[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
  }
  return params;
}
