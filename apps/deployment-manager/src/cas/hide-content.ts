import type { ExpressAuthentication } from '@ocg/auth';
import { NotFoundError } from '@ocg/http';

const READ_CONTENT = /^\/cas\/([^/?]+)/;

/**
 * Reading content without a credential answers the 404 of an unknown id,
 * not a 401: a content id must not be confirmed to exist to someone who
 * cannot read it (ARCHITECTURE.md, object-level authorization).
 */
export function hideContentFromAnonymous(next: ExpressAuthentication): ExpressAuthentication {
  return (req, securityName, scopes) => {
    const cid = req.method === 'GET' && !req.headers.authorization ? READ_CONTENT.exec(req.path)?.[1] : undefined;
    if (cid !== undefined && securityName === 'bearerAuth') return Promise.reject(new NotFoundError(`No content with the id ${cid}`));
    return next(req, securityName, scopes);
  };
}
