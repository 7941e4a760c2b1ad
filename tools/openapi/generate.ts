/**
 * Regenerates the contract: tsoa routes and spec per service, the merged and
 * normalized OpenAPI 3.1 document, the node API's document (node-api.ts), the
 * job-definition schema and its TypeScript types, and the typed clients. `--check` writes nothing and fails
 * when a committed file differs from a fresh generation.
 *
 *   tsx tools/openapi/generate.ts [--check]
 */
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { generateRoutes, generateSpec, validateSpecConfig, type Config, type ExtendedRoutesConfig } from '@tsoa/cli';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { Validator } from '@seriousme/openapi-schema-validator';
import { mergeAndNormalize, type ServiceFragment } from '../../libs/api-spec/src/normalize';
import { jobDefinitionJsonSchema, jobDefinitionOpenApiSchemas } from '@ocg/job-definition';
import { DEFINITION_TYPES_FILE, definitionTypes } from './definition-types';
import { NODE_DOCUMENT_FILE, nodeApiDocument } from './node-api';

const root = resolve(__dirname, '../..');
process.chdir(root);
/** Services whose controllers form the public contract, in document order. */
const SERVICES = ['client-manager', 'host-manager', 'deployment-manager'];

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const compilerOptions = await loadCompilerOptions();
  const scratch = await mkdtemp(join(tmpdir(), 'ocg-openapi-'));
  const outputs = new Map<string, string>();
  try {
    const fragments: ServiceFragment[] = [];
    for (const service of SERVICES) {
      const fragment = await runTsoa(service, scratch, compilerOptions, outputs);
      if (fragment) fragments.push(fragment);
    }
    const schema = jobDefinitionJsonSchema as Record<string, unknown>;
    const doc = mergeAndNormalize(fragments, {
      title: 'Open Compute Gateway API',
      version: '1.0.0',
      description: 'One gateway in front of the client-manager, host-manager and deployment-manager services.',
      extraSchemas: jobDefinitionOpenApiSchemas() as Record<string, Record<string, unknown>>,
    });
    await assertValid31(doc);
    const nodeDoc = await nodeApiDocument(scratch, compilerOptions);
    await assertValid31(nodeDoc);
    outputs.set('libs/api-spec/openapi.json', stable(doc));
    outputs.set(NODE_DOCUMENT_FILE, stable(nodeDoc));
    outputs.set('libs/api-spec/job-definition.schema.json', stable(schema));
    outputs.set('libs/api-client/src/schema.ts', await clientTypes(doc, 'libs/api-spec/openapi.json'));
    outputs.set('libs/api-client/src/node-schema.ts', await clientTypes(nodeDoc, NODE_DOCUMENT_FILE));
    outputs.set(DEFINITION_TYPES_FILE, await definitionTypes(schema));
    process.exitCode = check ? await compare(outputs) : await write(outputs);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function loadCompilerOptions(): Promise<ts.CompilerOptions> {
  const base = JSON.parse(await readFile(join(root, 'tsconfig.base.json'), 'utf8'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(base.compilerOptions, root);
  if (errors.length) throw new Error(`tsconfig.base.json: ${errors.map((e) => e.messageText).join('; ')}`);
  return { ...options, noEmit: true };
}

async function runTsoa(service: string, scratch: string, compilerOptions: ts.CompilerOptions, outputs: Map<string, string>): Promise<ServiceFragment | undefined> {
  const configPath = join(root, 'apps', service, 'tsoa.json');
  const raw = await readFile(configPath, 'utf8').catch(() => undefined);
  if (!raw) return undefined;
  const config = JSON.parse(raw) as Config;
  const specDir = join(scratch, service);
  // tsoa writes imports relative to routesDir: a sibling at the same depth keeps them right.
  const routesDir = join(root, dirname(config.routes.routesDir), '.generated-tmp');
  const specConfig = await validateSpecConfig({ ...config, spec: { ...config.spec, outputDirectory: specDir } });
  // tsoa does not export its routes-config validation; this is what it derives.
  const routesConfig: ExtendedRoutesConfig = {
    ...config.routes,
    routesDir,
    basePath: config.routes.basePath ?? '/',
    entryFile: config.entryFile,
    controllerPathGlobs: config.controllerPathGlobs,
    noImplicitAdditionalProperties: specConfig.noImplicitAdditionalProperties,
    bodyCoercion: config.routes.bodyCoercion ?? true,
  };
  const metadata = await generateSpec(specConfig, compilerOptions);
  try {
    await generateRoutes(routesConfig, compilerOptions, undefined, metadata);
    outputs.set(join(config.routes.routesDir, 'routes.ts'), await readFile(join(routesDir, 'routes.ts'), 'utf8'));
  } finally {
    await rm(routesDir, { recursive: true, force: true });
  }
  const spec = JSON.parse(await readFile(join(specDir, 'swagger.json'), 'utf8'));
  return { service, spec };
}

async function assertValid31(doc: Record<string, unknown>): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  if (!result.valid || validator.version !== '3.1') {
    throw new Error(`generated document is not valid OpenAPI 3.1 (${validator.version}):\n${JSON.stringify(result.errors, null, 2)}`);
  }
}

async function clientTypes(doc: Record<string, unknown>, from: string): Promise<string> {
  const ast = await openapiTS(structuredClone(doc) as never, { alphabetize: true });
  return `/* Generated by tools/openapi/generate.ts from ${from}. Do not edit. */\n` + astToString(ast);
}

const stable = (value: unknown): string => JSON.stringify(value, null, 2) + '\n';

async function write(outputs: Map<string, string>): Promise<number> {
  for (const [file, text] of outputs) {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), text);
    console.log(`wrote ${file}`);
  }
  return 0;
}

async function compare(outputs: Map<string, string>): Promise<number> {
  const stale: string[] = [];
  for (const [file, text] of outputs) {
    const committed = await readFile(join(root, file), 'utf8').catch(() => '');
    if (committed !== text) stale.push(file);
  }
  if (stale.length === 0) {
    console.log(`contract: ${outputs.size} generated files match a fresh generation`);
    return 0;
  }
  console.error(`contract: these files differ from a fresh generation; run \`npm run contract\` and commit:\n  ${stale.join('\n  ')}`);
  return 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
