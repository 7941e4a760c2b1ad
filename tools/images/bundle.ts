/**
 * Bundles each app with esbuild into a Docker build context
 * (tmp/images/<app>/): `app/main.js`, a `package.json` naming the version,
 * and `node_modules/` holding only what cannot be bundled, copied from the
 * workspace's node_modules (the locked versions): native modules (argon2,
 * with this platform's prebuilt binary), packages loaded by a computed name
 * (pg, which TypeORM loads with `require(name)`) and files read at run time
 * (swagger-ui-dist's assets). Everything else is inside main.js.
 *
 *   tsx tools/images/bundle.ts [app ...]     (default: every app)
 */
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
export const OUT_DIR = join(root, 'tmp/images');

interface AppBundle {
  /** The entry (each main.ts runs itself). */
  entry: string;
  /** Packages left out of the bundle and shipped in node_modules. */
  runtime: string[];
  /** Files of a runtime package that are all it needs (else the whole package). */
  files?: Record<string, string[]>;
}

export const APPS: Record<string, AppBundle> = {
  gateway: { entry: 'apps/gateway/src/main.ts', runtime: ['swagger-ui-dist'], files: { 'swagger-ui-dist': ['package.json', 'swagger-ui.css', 'swagger-ui-bundle.js', 'LICENSE'] } },
  'client-manager': { entry: 'apps/client-manager/src/main.ts', runtime: ['pg', 'argon2'] },
  'host-manager': { entry: 'apps/host-manager/src/main.ts', runtime: ['pg'] },
  'deployment-manager': { entry: 'apps/deployment-manager/src/main.ts', runtime: ['pg'] },
  'node-agent': { entry: 'apps/node-agent/src/main.ts', runtime: [] },
  cli: { entry: 'apps/cli/src/main.ts', runtime: [] },
};

/** Optional packages some dependency may require but these apps never load (TypeORM's other drivers, pg-native). */
const NEVER_LOADED = [
  'pg-native',
  'pg-query-stream',
  'mysql',
  'mysql2',
  'oracledb',
  'sqlite3',
  'better-sqlite3',
  'sql.js',
  'mssql',
  'mongodb',
  'redis',
  'hdb-pool',
  '@sap/hana-client',
  '@sap/hana-client/extension/Stream',
  'typeorm-aurora-data-api-driver',
  'react-native-sqlite-storage',
  '@google-cloud/spanner',
  '@sentry/node',
  'ioredis/built/cluster',
  'cpu-features',
  './crypto/build/Release/sshcrypto.node',
  'pino-pretty',
];
/** Native parts of dependencies that run on this platform only (the images are linux/amd64). */
const PREBUILD_KEEP = /prebuilds\/linux-x64\//;

export async function bundleApp(name: string, version: string, out = join(OUT_DIR, name)): Promise<string> {
  const app = APPS[name];
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'app'), { recursive: true });
  // The CLI reads the workspace's package.json three levels above its source file; main.js sits as deep.
  const cli = name === 'cli';
  await build({
    entryPoints: [join(root, app.entry)],
    outfile: join(out, cli ? 'app/apps/cli/src/main.js' : 'app/main.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    tsconfig: join(root, 'tsconfig.base.json'),
    external: [...app.runtime, ...NEVER_LOADED],
    // jsonc-parser's main entry is a UMD build whose require() calls esbuild cannot follow; its ESM build bundles whole.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    minifySyntax: true,
    minifyWhitespace: true,
    keepNames: true, // error names (ValidationError, ...) are part of the wire format
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    logOverride: { 'require-resolve-not-external': 'silent', 'empty-import-meta': 'silent' },
  });
  writeFileSync(join(out, 'app/package.json'), JSON.stringify({ name: `@ocg/${name}`, version, private: true }, null, 2) + '\n');
  for (const pkg of closure(app.runtime)) copyPackage(pkg, join(out, 'app/node_modules', pkg), app.files?.[pkg]);
  return out;
}

/** The packages and their dependencies (transitively), as the workspace's node_modules resolves them. */
function closure(packages: string[]): string[] {
  const seen = new Set<string>();
  const visit = (pkg: string): void => {
    if (seen.has(pkg)) return;
    seen.add(pkg);
    const manifest = JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(manifest.dependencies ?? {})) if (existsSync(join(root, 'node_modules', dep))) visit(dep);
  };
  packages.forEach(visit);
  // Headers for compiling native modules: not needed once they are built.
  seen.delete('node-addon-api');
  return [...seen];
}

function copyPackage(pkg: string, to: string, only?: string[]): void {
  const from = join(root, 'node_modules', pkg);
  if (only) {
    for (const file of only) cpSync(join(from, file), join(to, file));
    return;
  }
  cpSync(from, to, {
    recursive: true,
    filter: (src) => {
      const rel = src.slice(from.length + 1);
      if (/(^|\/)(README|CHANGELOG|HISTORY)(\.md)?$/i.test(rel) || /\.(md|map|d\.ts|d\.cts|d\.mts|ts\.map|cpp|gyp)$/.test(rel)) return false;
      if (rel.startsWith('prebuilds/') && rel.split('/').length > 2) return PREBUILD_KEEP.test(`${rel}/`);
      return true;
    },
  });
  mkdirSync(dirname(to), { recursive: true });
}

async function main(): Promise<void> {
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(APPS);
  for (const name of names) {
    const t = Date.now();
    console.log(`bundle: ${name} -> ${await bundleApp(name, version)} (${Date.now() - t} ms)`);
  }
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(`bundle: ${(err as Error).message}`);
    process.exit(1);
  });
