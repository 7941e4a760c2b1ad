import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { ControlNodeOpsResponse, GetNodeJobResultsResponse, NodeJobStatus } from '@ocg/contracts';
import { ConflictError, NotFoundError, ValidationError, type HttpError } from '@ocg/http';
import { ExecutorError } from '../executor/errors';
import type { Executor } from '../executor/executor';
import type { OpStatus } from '../executor/types';
import { posterAuth } from './auth';
import { Followers, type FollowSettings } from './log-follow';
import { sendLogs } from './logs';

/**
 * Bodies are the node DTOs of libs/contracts; the routes are described by
 * libs/api-spec/node-openapi.json (from contract.ts). Handlers are one executor call each.
 */
export function nodeApiRoutes(executor: Executor, node: string, authMaxAgeSeconds: number, follow: FollowSettings): Router {
  const router = Router();
  const followers = new Followers(follow);
  const auth = posterAuth(executor, node, authMaxAgeSeconds);
  const p = (req: Request, name: string): string => String(req.params[name]);
  const control = (act: (req: Request) => Promise<OpStatus[]>) =>
    handle(async (req, res) => res.json({ job: executor.status(p(req, 'job')).job, ops: await act(req) } satisfies ControlNodeOpsResponse));

  router.get(
    '/job/:job/ops',
    auth,
    handle((req, res) => res.json(executor.status(p(req, 'job')) satisfies NodeJobStatus)),
  );
  router.get(
    '/job/:job/results',
    auth,
    handle((req, res) => res.json(resultsBody(executor, p(req, 'job')))),
  );
  router.get(
    '/job/:job/ops/:opid/logs',
    auth,
    handle((req, res) => sendLogs(req, res, executor.logs(p(req, 'job'), p(req, 'opid')), p(req, 'job'), followers)),
  );
  router.post(
    '/job/:job/group/:group/operation/:opid/stop',
    auth,
    control((req) => executor.stopOp(p(req, 'job'), p(req, 'group'), p(req, 'opid'))),
  );
  router.post(
    '/job/:job/group/:group/operation/:opid/restart',
    auth,
    control((req) => executor.restartOp(p(req, 'job'), p(req, 'group'), p(req, 'opid'))),
  );
  router.post(
    '/job/:job/group/:group/stop',
    auth,
    control((req) => executor.stopGroup(p(req, 'job'), p(req, 'group'))),
  );
  router.post(
    '/job/:job/group/:group/restart',
    auth,
    control((req) => executor.restartGroup(p(req, 'job'), p(req, 'group'))),
  );
  return router;
}

function resultsBody(executor: Executor, job: string): GetNodeJobResultsResponse {
  const status = executor.status(job);
  return { job: status.job, state: status.state, results: executor.results(job) };
}

/** Runs a handler, sync or async, turning executor refusals into the one error shape. */
function handle(fn: (req: Request, res: Response) => unknown): RequestHandler {
  return (req, res, next) => {
    Promise.resolve()
      .then(() => fn(req, res))
      .catch((err: unknown) => next(err instanceof ExecutorError ? toHttp(err) : err));
  };
}

function toHttp(err: ExecutorError): HttpError {
  if (err.kind === 'not-found') return new NotFoundError(err.message);
  if (err.kind === 'conflict') return new ConflictError(err.message);
  return new ValidationError(err.message);
}
