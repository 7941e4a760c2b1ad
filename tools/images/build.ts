/**
 * Builds the product's images: ocg/gateway, ocg/client-manager,
 * ocg/host-manager, ocg/deployment-manager, ocg/node-agent and ocg/cli from
 * deploy/docker/<app>.Dockerfile over a bundle of the app (bundle.ts), and the
 * offline stand-ins ocg/postgres and ocg/redis. Each image is tagged
 * `<version>-<content hash>` (the hash covers the build context, the
 * Dockerfile, the build arguments and the base image's id), `<version>` and
 * `latest`; an image whose hash tag exists is not built again. The product's
 * images are also tagged with one tag for the set (`<version>-<hash of their
 * hashes>`), which compose's OCG_TAG can name.
 *
 *   tsx tools/images/build.ts [--base IMAGE] [--debian IMAGE] [--json] [app ...]
 *
 * Without --base / --debian the offline bases of tools/images/base.sh are
 * built (or reused) and used: no registry is needed. Prints one line per
 * image: `<name> <hash tag> <built|exists> <seconds>`; with --json, those lines
 * go to stderr and stdout gets the result (bases, images, the set's tag).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { APPS, bundleApp } from './bundle';

const root = resolve(__dirname, '../..');
const dockerDir = join(root, 'deploy/docker');
const SUPPORT = ['postgres', 'redis'] as const;
/** The stand-ins are tagged with the major version they serve, as the official images are. */
const SUPPORT_VERSION: Record<string, string> = { postgres: '15', redis: '7' };
export const IMAGE_NAMES = [...Object.keys(APPS), ...SUPPORT];

export interface BuiltImage {
  name: string;
  image: string;
  tag: string;
  built: boolean;
  seconds: number;
}
export interface BuildResult {
  base: string;
  debian: string;
  images: BuiltImage[];
  setTag?: string;
}
export interface BuildOptions {
  base?: string;
  debian?: string;
  only?: string[];
  json?: boolean;
  log?: (line: string) => void;
}

export async function buildImages(opts: BuildOptions = {}): Promise<BuildResult> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const [base, debian] = opts.base && opts.debian ? [opts.base, opts.debian] : offlineBases(opts);
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const labels = { VERSION: version, REVISION: revision(), SOURCE: source() };
  const work = mkdtempSync(join(root, 'tmp/images-'));
  const images: BuiltImage[] = [];
  try {
    for (const name of opts.only?.length ? opts.only : IMAGE_NAMES) {
      const t = Date.now();
      const context = (SUPPORT as readonly string[]).includes(name) ? supportContext(join(work, name)) : await bundleApp(name, version, join(work, name));
      for (const file of contextFiles(name)) copyFileSync(join(dockerDir, file), join(context, file));
      const dockerfile = join(dockerDir, `${name}.Dockerfile`);
      const args = { BASE: base, DEBIAN: debian, ...labels };
      const hash = contentHash(context, dockerfile, { ...args, baseId: imageId(base), debianId: imageId(debian), REVISION: '' });
      const image = `ocg/${name}`;
      const imageVersion = SUPPORT_VERSION[name] ?? version;
      const tag = `${imageVersion}-${hash}`;
      const built = !exists(`${image}:${tag}`);
      if (built)
        docker(['build', '-q', '--force-rm', '-f', dockerfile, ...Object.entries(args).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]), '-t', `${image}:${tag}`, context]);
      for (const alias of [imageVersion, 'latest']) docker(['tag', `${image}:${tag}`, `${image}:${alias}`]);
      const item = { name, image, tag, built, seconds: (Date.now() - t) / 1000 };
      images.push(item);
      log(`${name} ${image}:${tag} ${built ? 'built' : 'exists'} ${item.seconds.toFixed(1)}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { base, debian, images, setTag: tagSet(images, version) };
}

/** One tag over every product image built together (all six, or none). */
function tagSet(images: BuiltImage[], version: string): string | undefined {
  const apps = images.filter((i) => i.name in APPS);
  if (apps.length !== Object.keys(APPS).length) return undefined;
  const tag = `${version}-set-${createHash('sha256')
    .update(apps.map((i) => i.tag).join(','))
    .digest('hex')
    .slice(0, 12)}`;
  for (const item of apps) docker(['tag', `${item.image}:${item.tag}`, `${item.image}:${tag}`]);
  return tag;
}

function supportContext(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The helper files each build context takes from deploy/docker. */
function contextFiles(name: string): string[] {
  if (name === 'postgres') return ['postgres-entrypoint.sh'];
  if (name === 'redis') return [];
  return name === 'cli' ? ['smoke.js'] : ['healthcheck.js', 'smoke.js'];
}

/** tools/images/base.sh: builds the offline bases unless they exist; prints node base, then Debian. */
function offlineBases(opts: BuildOptions): [string, string] {
  const out = execFileSync('bash', [join(root, 'tools/images/base.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim()
    .split('\n');
  return [opts.base ?? out[0], opts.debian ?? out[1]];
}

/**
 * The revision is a label, not an input: a commit that changes no file of an
 * image reuses it (the label then names the commit that built it).
 */
function contentHash(context: string, dockerfile: string, args: Record<string, string>): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(args));
  hash.update(readFileSync(dockerfile));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const file = join(dir, entry);
      const stat = statSync(file);
      hash.update(`${relative(context, file)}\0${stat.mode & 0o111 ? 'x' : '-'}\0`);
      if (stat.isDirectory()) walk(file);
      else hash.update(readFileSync(file));
    }
  };
  walk(context);
  return hash.digest('hex').slice(0, 12);
}

function revision(): string {
  const run = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) return 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  return `${run.stdout.trim()}${dirty ? '-dirty' : ''}`;
}

function source(): string {
  if (process.env.IMAGE_SOURCE) return process.env.IMAGE_SOURCE;
  const run = spawnSync('git', ['remote', 'get-url', 'origin'], { cwd: root, encoding: 'utf8' });
  return run.status === 0 && run.stdout.trim() ? run.stdout.trim() : 'unknown';
}

function exists(image: string): boolean {
  return spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' }).status === 0;
}

function imageId(image: string): string {
  return docker(['image', 'inspect', '-f', '{{.Id}}', image]).trim();
}

function docker(args: string[]): string {
  const run = spawnSync('docker', args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`docker ${args.slice(0, 2).join(' ')} failed:\n${run.stdout}${run.stderr}`);
  return run.stdout;
}

function parseArgs(argv: string[]): BuildOptions {
  const only: string[] = [];
  const opts: BuildOptions = { only };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--base') opts.base = argv[++i];
    else if (argv[i] === '--debian') opts.debian = argv[++i];
    else if (argv[i] === '--json') opts.json = true;
    else if (IMAGE_NAMES.includes(argv[i])) only.push(argv[i]);
    else throw new Error(`unknown argument ${argv[i]} (images: ${IMAGE_NAMES.join(', ')})`);
  }
  return opts;
}

if (require.main === module) {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.json) opts.log = (line) => console.error(line);
  buildImages(opts).then(
    (result) => {
      if (opts.json) console.log(JSON.stringify(result));
    },
    (err: unknown) => {
      console.error(`build: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}
