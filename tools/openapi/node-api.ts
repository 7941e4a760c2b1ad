/**
 * The node API's OpenAPI 3.1 document: tsoa reads the description classes of
 * apps/node-agent/src/api/contract.ts (DTOs from libs/contracts) and the
 * result is normalized like the gateway's, with the node's own security
 * scheme and server, and NDJSON added to the logs answer.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateSpec, validateSpecConfig, type Config } from '@tsoa/cli';
import type ts from 'typescript';
import { mergeAndNormalize } from '../../libs/api-spec/src/normalize';

type Json = Record<string, unknown>;

export const NODE_DOCUMENT_FILE = 'libs/api-spec/node-openapi.json';
const LOGS_PATH = '/job/{job}/ops/{opid}/logs';

export async function nodeApiDocument(scratch: string, compilerOptions: ts.CompilerOptions): Promise<Json> {
  const config: Config = {
    entryFile: 'apps/node-agent/src/api/contract.ts',
    controllerPathGlobs: ['apps/node-agent/src/api/contract.ts'],
    noImplicitAdditionalProperties: 'throw-on-extras',
    spec: { outputDirectory: join(scratch, 'node-agent'), specVersion: 3, name: 'node-agent' },
    routes: { routesDir: join(scratch, 'node-agent-routes') },
  };
  await generateSpec(await validateSpecConfig(config), compilerOptions);
  const spec = JSON.parse(await readFile(join(scratch, 'node-agent', 'swagger.json'), 'utf8')) as Json;
  const doc = mergeAndNormalize([{ service: 'node-agent', spec }], {
    title: 'Open Compute Gateway node API',
    version: '1.0.0',
    description:
      "Each node agent's API (`API_PORT`, and through the gateway at `https://<node address>.<node domain>`): a job's poster reads its ops, results and logs and stops or restarts its ops and groups.",
    servers: [
      {
        url: 'https://{node}.{nodeDomain}',
        description: 'Through the gateway, at the node host',
        variables: { node: { default: 'node', description: "The node address (the job record's `node`), lower-case" }, nodeDomain: { default: 'node.example.com' } },
      },
      { url: '/', description: 'The agent itself, at its API_PORT' },
    ],
    securitySchemes: {
      nodeApiHeader: {
        type: 'apiKey',
        in: 'header',
        name: 'authorization',
        description:
          "The job poster's wallet signature bound to this node and job: `ocg-node-api:<node address>:<job address>:<base58 signature>:<unix ms>`, signing `ocg-node-api:<node address>:<job address>:<unix ms>`, at most 5 minutes old (`ocg job node-header <job>` makes one).",
      },
    },
  });
  for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    // No node route checks scopes: a header that is not the poster's is a 401 or the same 404 as an unknown job.
    for (const op of Object.values(item)) delete (op.responses as Json)['403'];
  }
  const ok = ((doc.paths as Record<string, Record<string, Json>>)[LOGS_PATH].get.responses as Record<string, Json>)['200'];
  // The stream's notices (NodeLogNotice in libs/contracts) are told from lines by having no `seq`.
  (ok.content as Json)['application/x-ndjson'] = {
    schema: {
      description: 'With `follow=true`: one object per line of the stream, a `NodeLogLine` or a notice about the stream (`NodeLogStreamItem`).',
      oneOf: [
        { $ref: '#/components/schemas/NodeLogLine' },
        {
          type: 'object',
          description:
            "missed: `count` lines left the node's buffer before they could be sent; heartbeat: sent every LOG_FOLLOW_HEARTBEAT_SECONDS; end: the op ended, and so does the stream.",
          properties: { notice: { type: 'string', enum: ['missed', 'end', 'heartbeat'] }, count: { type: 'integer', minimum: 1 } },
          required: ['notice'],
          additionalProperties: false,
        },
      ],
    },
  };
  return doc;
}
