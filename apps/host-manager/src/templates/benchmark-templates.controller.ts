import { Body, Header, Middlewares, Post, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ApplyBenchmarkTemplatesRequest, ApplyBenchmarkTemplatesResponse, ErrorBody } from '@ocg/contracts';
import type { TemplateApplyService } from './template-apply.service';
import { bodyMatches } from '../body-schema';

@Route('benchmark-templates')
@Tags('Templates')
export class BenchmarkTemplatesController {
  constructor(private readonly templates: TemplateApplyService) {}

  /**
   * Compares benchmark templates with the stored benchmarks, thresholds and
   * market links, and returns one change record per slug (templates in
   * request order, then removals). A dry run by default; with `dryRun: false`
   * every change is written in one transaction, and two applies never
   * interleave. Any bad template rejects the whole request (400, every
   * offending path) and nothing is written. Applying the same request twice
   * gives only `unchanged` records that are in sync.
   * @summary Apply benchmark templates
   * @param _authorization An admin credential: `Bearer <API key>` holding `benchmarks:manage` (not grantable to OAuth apps).
   */
  @Post('apply')
  @Response<ErrorBody>(409, 'Another apply is running; try again when it is done')
  @Security('bearerAuth', ['benchmarks:manage'])
  @Middlewares(bodyMatches('ApplyBenchmarkTemplatesRequest'))
  public applyBenchmarkTemplates(@Header('authorization') _authorization: string, @Body() body: ApplyBenchmarkTemplatesRequest): Promise<ApplyBenchmarkTemplatesResponse> {
    return this.templates.apply(body);
  }
}
