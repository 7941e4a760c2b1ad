/**
 * Patterns shared by the JSON Schema and the rules, each with the message a
 * person sees when a value does not match (ajv's "must match pattern" is not
 * something a user can act on).
 */

/** An RFC 1123 label. Upper case is accepted because real templates use it (`Flux-comfy`); host names ignore case. */
export const DNS_LABEL = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$';
/** One or more DNS labels joined by dots (network aliases may be dotted names). */
export const HOST_NAME = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$';
/** A whole `%%ops.…%%` / `%%global.…%%` literal, nothing around it. */
export const WHOLE_LITERAL = '^%%(?:ops|global)\\.[^%\\s]+%%$';
/** An expose entry given as text: a decimal port or a whole literal. */
export const PORT_TEXT = '^(?:[0-9]{1,5}|%%(?:ops|global)\\.[^%\\s]+%%)$';
export const ABSOLUTE_PATH = '^/';
/** Names that appear inside literals (`results.<name>`, `variables.<name>`), so no dots or `%`. */
export const NAME = '^[A-Za-z0-9_-]{1,128}$';
/** Docker's rule for volume names. */
export const VOLUME_NAME = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';
export const ENV_NAME = '^[^=\\u0000]+$';

export const PATTERN_MESSAGES: Readonly<Record<string, string>> = {
  [DNS_LABEL]: 'must be a DNS label: 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen',
  [HOST_NAME]: 'must be a host name: DNS labels of letters, digits and hyphens joined by dots',
  [WHOLE_LITERAL]: 'must be a literal such as "%%ops.<id>.results.<name>%%"',
  [PORT_TEXT]: 'must be a port number such as "8080" or a literal such as "%%ops.<id>.results.port%%"',
  [ABSOLUTE_PATH]: 'must be an absolute path starting with "/"',
  [NAME]: 'must be 1 to 128 letters, digits, "_" or "-"',
  [VOLUME_NAME]: 'must start with a letter or digit and hold only letters, digits, "_", "." or "-"',
  [ENV_NAME]: 'must not be empty or contain "="',
};
