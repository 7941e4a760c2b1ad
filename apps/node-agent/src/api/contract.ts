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
   * `application/x-ndjson` instead: one `NodeLogLine` per line, the retained
   * ones first, then live ones until the op ends or the caller hangs up.
   * @summary Read an op's logs
   * @param job The job address.
   * @maxLength job 100
   * @param opid The op id.
   * @maxLength opid 63
   * @param tail Only the last this many retained lines.
   * @isInt tail
   * @minimum tail 0
   * @param streams Comma-separated streams to keep: stdout, stderr, nodeerr (default all).
   * @maxLength streams 100
   * @param follow `true` or `1`: stream the lines as NDJSON until the op ends.
   * @maxLength follow 5
   */
  @Get('{job}/ops/{opid}/logs')
  @Response<ErrorBody>(404, 'The job is not running on this node, or it has no such op')
  @Security('nodeApiHeader')
  public getNodeOpLogs(@Path() job: string, @Path() opid: string, @Query() tail?: number, @Query() streams?: string, @Query() follow?: string): Promise<GetNodeOpLogsResponse> {
    return described(job, opid, tail, streams, follow);
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
