import type { Readable } from 'node:stream';
import { Body, Controller, Get, Path, Post, Produces, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { ErrorBody, UploadContentRequest, UploadContentResponse } from '@ocg/contracts';
import type { CasDownloads } from './cas-downloads';
import type { CasService } from './cas.service';
import { callerOf } from '../identity';

@Route('cas')
@Tags('Deployments Content')
export class CasController extends Controller {
  constructor(
    private readonly cas: CasService,
    private readonly downloads: CasDownloads,
  ) {
    super();
  }

  /**
   * Stores content and answers its id: CIDv1, raw, sha2-256 (`bafkrei…`),
   * the id IPFS gives the same bytes. Storing the same bytes again answers
   * the same id. Post a job by this id with `definitionCid`. Uploads no job
   * uses yet are bounded per user (409 `QUOTA_EXCEEDED`) and collected after
   * a retention period.
   * @summary Upload content
   */
  @Post()
  @Security('bearerAuth', ['jobs:write'])
  @Response<ErrorBody>(409, 'Over the upload limit per user (the message names it)')
  public uploadContent(@Request() req: ExRequest, @Body() body: UploadContentRequest): Promise<UploadContentResponse> {
    return this.cas.upload(callerOf(req).userId, body);
  }

  /**
   * The stored bytes, as they were stored: `application/json` when they are
   * JSON, `application/octet-stream` otherwise. Readable by who uploaded
   * them and by the poster of a job they define or hold the result of
   * (definitions may carry secrets); anyone else, and a caller without a
   * credential, gets 404. Stored sealed; the id is that of the plaintext.
   * @summary Read content
   * @param cid The content id.
   * @maxLength cid 200
   */
  @Get('{cid}')
  @Security('bearerAuth', ['jobs:read'])
  @Produces('application/octet-stream')
  @Response<ErrorBody>(404, 'No content with this id that the caller may read')
  public async readContent(@Request() req: ExRequest, @Path() cid: string): Promise<Readable> {
    const download = await this.downloads.open(cid, callerOf(req).userId);
    for (const [name, value] of Object.entries(download.headers)) this.setHeader(name, value);
    return download.body;
  }
}
