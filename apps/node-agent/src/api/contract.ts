/**
 * The node API as its OpenAPI document describes it: one method per route of
 * routes.ts and health.ts's two, with the DTOs of libs/contracts. tsoa reads
 * this file to write libs/api-spec/node-openapi.json (`npm run contract`);
 * nothing runs it. test/api-contract.spec.ts holds it and the router together.
 */
import { Get, Path, Post, Query, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ControlNodeOpsResponse, ErrorBody, GetNodeJobResultsResponse, GetNodeOpLogsResponse, HealthResponse, NodeJobStatus, ReadinessResponse } from '@ocg/contracts';

/** Takes the method's parameters so each is read; answers nothing. */
const described = (..._parameters: unknown[]): never => {
  throw new Error('the node API is served by routes.ts; this class only describes it');
};

@Route('job')
@Tags('Node jobs')
export class NodeJobsDescription {
  /**
   * The job as this node runs it: its state, the stage that runs now, and
   * every op with its state, exit code, restarts and endpoints.
   * @summary Read a job's ops
   * @param job The job address.
   * @maxLength job 100
   */
  @Get('{job}/ops')
  @Response<ErrorBody>(404, "The job is not running on this node, or the header is not its poster's")
  @Security('nodeApiHeader')
  public getNodeJobOps(@Path() job: string): Promise<NodeJobStatus> {
    return described(job);
  }

  /**
   * What each op's result patterns captured so far: op id → result name →
   * values, in order.
   * @summary Read a job's results
   * @param job The job address.
   * @maxLength job 100
   */
  @Get('{job}/results')
  @Response<ErrorBody>(404, "The job is not running on this node, or the header is not its poster's")
  @Security('nodeApiHeader')
  public getNodeJobResults(@Path() job: string): Promise<GetNodeJobResultsResponse> {
    return described(job);
  }

  /**
   * The op's retained output, oldest first. With `follow=true` the answer is
   * `application/x-ndjson` instead: one `NodeLogStreamItem` per line, the
   * retained lines first, then live ones, until the op ends (a last
   * `{"notice":"end"}`) or the caller hangs up. Lines are `NodeLogLine`s;
   * `{"notice":"missed","count":N}` says N lines left the node's buffer
   * before they could be sent (a slow reader, or a resume after they went);
   * `{"notice":"heartbeat"}` comes every `LOG_FOLLOW_HEARTBEAT_SECONDS`.
   * A stream cut without the end notice resumes with `after` set to the last
   * `seq` read: nothing is repeated or lost that the buffer still holds. A
   * slow reader is never buffered for: the node stops writing until the
   * connection drains. Each job may have `LOG_FOLLOWERS_PER_JOB` follows
   * open at once (429 beyond).
   * @summary Read an op's logs
   * @param job The job address.
   * @maxLength job 100
   * @param opid The op id.
   * @maxLength opid 63
   * @param tail Only the last this many lines (of those the other parameters keep).
   * @isInt tail
   * @minimum tail 0
   * @param streams Comma-separated streams to keep: stdout, stderr, nodeerr (default all).
   * @maxLength streams 100
   * @param follow `true` or `1`: stream the lines as NDJSON until the op ends.
   * @maxLength follow 5
   * @param after Only lines with a greater `seq`: the last `seq` the caller has, to resume a stream.
   * @isInt after
   * @minimum after 0
   * @param since Only lines at or after this time (RFC 3339; the line's `time`).
   */
  @Get('{job}/ops/{opid}/logs')
  @Response<ErrorBody>(404, 'The job is not running on this node, or it has no such op')
  @Response<ErrorBody>(429, 'With follow: the job has LOG_FOLLOWERS_PER_JOB follows open already')
  @Security('nodeApiHeader')
  public getNodeOpLogs(
    @Path() job: string,
    @Path() opid: string,
    @Query() tail?: number,
    @Query() streams?: string,
    @Query() follow?: string,
    @Query() after?: number,
    @Query() since?: Date,
  ): Promise<GetNodeOpLogsResponse> {
    return described(job, opid, tail, streams, follow, after, since);
  }

  /**
   * Stops one op of the group. Answers the op as it is now.
   * @summary Stop an op
   * @param job The job address.
   * @maxLength job 100
   * @param group The op's stage: its execution.group, or its own id without one.
   * @maxLength group 200
   * @param opid The op id.
   * @maxLength opid 63
   */
  @Post('{job}/group/{group}/operation/{opid}/stop')
  @Response<ErrorBody>(404, 'The job is not running on this node, or it has no such group or op')
  @Response<ErrorBody>(409, 'The op is not running, or the job has ended')
  @Security('nodeApiHeader')
  public stopNodeOp(@Path() job: string, @Path() group: string, @Path() opid: string): Promise<ControlNodeOpsResponse> {
    return described(job, group, opid);
  }

  /**
   * Restarts one op of the group in a new container (its logs keep the old lines).
   * @summary Restart an op
   * @param job The job address.
   * @maxLength job 100
   * @param group The op's stage: its execution.group, or its own id without one.
   * @maxLength group 200
   * @param opid The op id.
   * @maxLength opid 63
   */
  @Post('{job}/group/{group}/operation/{opid}/restart')
  @Response<ErrorBody>(404, 'The job is not running on this node, or it has no such group or op')
  @Response<ErrorBody>(409, "The op's stage has not been reached, it is still starting, or the job has ended")
  @Security('nodeApiHeader')
  public restartNodeOp(@Path() job: string, @Path() group: string, @Path() opid: string): Promise<ControlNodeOpsResponse> {
    return described(job, group, opid);
  }

  /**
   * Stops every running op of the group; its waiting ones never start.
   * @summary Stop a group
   * @param job The job address.
   * @maxLength job 100
   * @param group A stage name: an execution.group, or the id of an op without one.
   * @maxLength group 200
   */
  @Post('{job}/group/{group}/stop')
  @Response<ErrorBody>(404, 'The job is not running on this node, or it has no such group')
  @Response<ErrorBody>(409, 'The group is not running, or the job has ended')
  @Security('nodeApiHeader')
  public stopNodeGroup(@Path() job: string, @Path() group: string): Promise<ControlNodeOpsResponse> {
    return described(job, group);
  }

  /**
   * Restarts every op of the group afresh.
   * @summary Restart a group
   * @param job The job address.
   * @maxLength job 100
   * @param group A stage name: an execution.group, or the id of an op without one.
   * @maxLength group 200
   */
  @Post('{job}/group/{group}/restart')
  @Response<ErrorBody>(404, 'The job is not running on this node, or it has no such group')
  @Response<ErrorBody>(409, "The group's stage has not been reached, it is still starting, or the job has ended")
  @Security('nodeApiHeader')
  public restartNodeGroup(@Path() job: string, @Path() group: string): Promise<ControlNodeOpsResponse> {
    return described(job, group);
  }
}

@Route('')
@Tags('Node health')
export class NodeHealthDescription {
  /**
   * The agent's process answers.
   * @summary Liveness
   */
  @Get('healthz')
  public nodeHealth(): Promise<HealthResponse> {
    return described();
  }

  /**
   * Docker answers and no ended job left objects in the engine.
   * @summary Readiness
   */
  @Get('readyz')
  @SuccessResponse(200, 'Ready')
  @Response<ErrorBody>(503, 'A check failed; `errors[].path` names it (`/checks/docker`, `/checks/cleanup`)')
  public nodeReadiness(): Promise<ReadinessResponse> {
    return described();
  }
}
