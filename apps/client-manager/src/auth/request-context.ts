import type { Request } from 'express';
import type { RequestContext } from '../shared/request-context';
import { cameOverHttps, clientAddressOf } from './client-address';
import type { InternalCredential } from './internal-credential';

export function contextOf(req: Request, internal: InternalCredential): RequestContext {
  return { client: clientAddressOf(req), internal: internal.matches(req), https: cameOverHttps(req) };
}
