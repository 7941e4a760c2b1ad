/**
 * Builds the publishable package `@ocg/api-client` from libs/api-client:
 * ESM JavaScript and type declarations (tsc), the OpenAPI document it was
 * generated from (and the node API's), its README, and a package.json whose version is the
 * document's `info.version`. Refuses output that imports anything the
 * package does not declare (a workspace lib would not exist for its users).
 *
 *   tsx tools/api-client/build.ts [--out <dir>] [--pack <dir>]
 *
 * `--out` defaults to libs/api-client/dist; `--pack` also runs `npm pack`
 * there, writing the tarball to publish into the given directory.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const lib = join(root, 'libs/api-client');
/** Packages the built files may import: the declared dependencies. */
const RUNTIME_DEPENDENCIES = ['openapi-fetch'];

export function buildClientPackage(outDir: string): { dir: string; version: string } {
  const dir = isAbsolute(outDir) ? outDir : resolve(root, outDir);
  rmSync(dir, { recursive: true, force: true });
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(lib, 'tsconfig.build.json'), '--outDir', dir], { stdio: 'inherit' });
  assertSelfContained(dir);
  const document = JSON.parse(readFileSync(join(root, 'libs/api-spec/openapi.json'), 'utf8')) as { info: { version: string; title: string } };
  const workspace = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; license: string };
  const manifest = {
    name: '@ocg/api-client',
    version: document.info.version,
    description: `Typed client for the ${document.info.title}, generated from its OpenAPI 3.1 document`,
    license: workspace.license,
    type: 'module',
    exports: {
      '.': { types: './index.d.ts', default: './index.js' },
      './openapi.json': './openapi.json',
      './node-openapi.json': './node-openapi.json',
      './package.json': './package.json',
    },
    types: './index.d.ts',
    sideEffects: false,
    files: ['*.js', '*.d.ts', 'openapi.json', 'node-openapi.json', 'README.md'],
    engines: { node: '>=20' },
    keywords: ['openapi', 'open-compute-gateway', 'client'],
    dependencies: Object.fromEntries(RUNTIME_DEPENDENCIES.map((name) => [name, workspace.dependencies[name]])),
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  copyFileSync(join(root, 'libs/api-spec/openapi.json'), join(dir, 'openapi.json'));
  copyFileSync(join(root, 'libs/api-spec/node-openapi.json'), join(dir, 'node-openapi.json'));
  copyFileSync(join(lib, 'README.md'), join(dir, 'README.md'));
  return { dir, version: manifest.version };
}

/** `npm pack` of a built package; answers the tarball's path. */
export function packClientPackage(dir: string, destination: string): string {
  mkdirSync(destination, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination, dir], { encoding: 'utf8' });
  const [{ filename }] = JSON.parse(out) as Array<{ filename: string }>;
  return join(destination, filename);
}

/** Every import of the output is relative or a declared dependency. */
function assertSelfContained(dir: string): void {
  const specifier = /(?:from\s*|import\s*\(?\s*)['"]([^'"]+)['"]/g;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
    for (const [, spec] of readFileSync(join(dir, file), 'utf8').matchAll(specifier)) {
      if (spec.startsWith('./') && spec.endsWith('.js')) continue;
      if (RUNTIME_DEPENDENCIES.includes(spec)) continue;
      throw new Error(`${file} imports "${spec}": the package may import only its own files (./x.js) and ${RUNTIME_DEPENDENCIES.join(', ')}`);
    }
  }
}

if (require.main === module) {
  const option = (name: string): string | undefined => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const { dir, version } = buildClientPackage(option('--out') ?? 'libs/api-client/dist');
  console.log(`@ocg/api-client ${version} built in ${dir}`);
  const destination = option('--pack');
  if (destination) console.log(`packed: ${packClientPackage(dir, resolve(root, destination))}`);
}
