/**
 * Dependency errors love to quote connection strings (`postgres://app:pw@db/x`,
 * `redis://:pw@cache`, `password=pw`). Anything that echoes such text to a client or
 * a log line goes through here first.
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi;
const KEY_VALUE = /\b(password|passwd|pwd|secret|token|api[-_]?key)=([^\s&;,]+)/gi;

export function scrubSecrets(text: string): string {
  if (!text.includes('@') && !text.includes('=')) return text;
  return text.replace(URL_USERINFO, '$1[Redacted]@').replace(KEY_VALUE, '$1=[Redacted]');
}
