import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ApiKeyRecord, CreateApiKeyRequest, CreateApiKeyResponse, DeleteApiKeyResponse, ErrorBody, ListApiKeysResponse, UpdateApiKeyRequest } from '@ocg/contracts';
import { principalOf } from '../auth/principal';
import type { ApiKeyService } from './api-key.service';

@Route('api-keys')
@Tags('API Keys')
@Security('bearerAuth', ['api-keys:manage'])
@Security('serviceOAuth', ['api-keys:manage'])
export class ApiKeysController extends Controller {
  constructor(private readonly keys: ApiKeyService) {
    super();
  }

  /**
   * Creates an API key for the caller. `scopes` must be a subset of the
   * calling credential's scopes (403 naming the first one it lacks); without
   * it the key gets all of them. The full key is in the answer. A user
   * holds at most `MAX_API_KEYS_PER_USER` keys (default 100): 409 `QUOTA_EXCEEDED`.
   * @summary Create an API key
   */
  @Post('/')
  @Response<ErrorBody>(409, 'The user holds the most API keys allowed')
  public createApiKey(@Request() req: ExRequest, @Body() body: CreateApiKeyRequest): Promise<CreateApiKeyResponse> {
    return this.keys.create(principalOf(req), body);
  }

  /**
   * Every API key of the caller, oldest first, with the full key text when
   * the calling credential holds every scope of that key, else masked
   * (`masked: true`). The operator's bootstrap key is never listed.
   * @summary List API keys
   */
  @Get('/')
  public listApiKeys(@Request() req: ExRequest): Promise<ListApiKeysResponse> {
    return this.keys.list(principalOf(req));
  }

  /**
   * One of the caller's API keys. Another user's key answers 404.
   * @summary Get an API key
   * @maxLength id 100
   */
  @Get('{id}')
  @Response<ErrorBody>(404, "No such key among the caller's keys")
  public getApiKey(@Request() req: ExRequest, @Path() id: string): Promise<ApiKeyRecord> {
    return this.keys.get(principalOf(req), id);
  }

  /**
   * Renames, enables or disables, or restricts the models of a key. A
   * disabled key fails everywhere at once.
   * @summary Update an API key
   * @maxLength id 100
   */
  @Post('{id}/update')
  @Response<ErrorBody>(404, "No such key among the caller's keys")
  public updateApiKey(@Request() req: ExRequest, @Path() id: string, @Body() body: UpdateApiKeyRequest): Promise<ApiKeyRecord> {
    return this.keys.update(principalOf(req), id, body);
  }

  /**
   * Removes a key; it fails everywhere at once.
   * @summary Delete an API key
   * @maxLength id 100
   */
  @Post('{id}/delete')
  @Response<ErrorBody>(404, "No such key among the caller's keys")
  public deleteApiKey(@Request() req: ExRequest, @Path() id: string): Promise<DeleteApiKeyResponse> {
    return this.keys.remove(principalOf(req), id);
  }
}
