const SECRET_PARAM = /pass|secret|token|key/i;

/** The URL with its password (and secret-looking query parameters) replaced by ***, for logs and errors. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // Not parseable: still hide anything between "//user:" and "@".
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
  if (u.password) u.password = '***';
  for (const key of [...u.searchParams.keys()]) {
    if (SECRET_PARAM.test(key)) u.searchParams.set(key, '***');
  }
  return u.toString().replace(/%2A%2A%2A/g, '***');
}
