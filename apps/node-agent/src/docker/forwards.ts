/**
 * Endpoint forwards (ADR 0092): a port of the node per ready endpoint,
 * forwarded by the kernel to the endpoint's container, so the gateway reaches
 * it with one proxy hop (its own) instead of two (ADR 0090).
 *
 * - nat PREROUTING and OUTPUT: `<address>:<port>` is DNATed to the container
 *   (OUTPUT: a gateway on this host connects through the same address).
 * - DOCKER-USER: connections from FORWARD_FROM (the gateway's machines) to the
 *   container's port are accepted (Docker's own rules drop every other
 *   connection to a port it did not publish), and so are the container's
 *   replies to them, which the job network's isolation would drop on their
 *   way to a private address.
 *
 * Rules carry the comment `ocg-fwd:<node>:<job>`, so an agent finds its own
 * (and only its own: a node id has no ':'). A port whose forward ended is not
 * given to another endpoint for `quarantineMs`: a gateway serving a stale
 * route must not reach another job's container through it.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

const exec = promisify(execFile);

export interface ForwardSettings {
  /** The iptables command Docker uses here. */
  command: string;
  node: string;
  /** The node's address the gateway connects to. */
  address: string;
  ports: { first: number; last: number };
  /** Other machines admitted (CIDR). */
  from: string[];
  quarantineMs: number;
}

/** Where an endpoint's container listens. */
export interface ForwardTarget {
  ip: string;
  port: number;
}

interface Forward {
  job: string;
  /** `<ip>:<port>` of the container. */
  target: string;
  /** Given once reserved. */
  nodePort?: number;
  /**
   * A listener on `<address>:<nodePort>` for as long as the forward lasts: the kernel then gives the port to no other
   * process, another agent on this host included (the DNAT takes its connections before they reach it).
   */
  reservation?: net.Server;
  rules: string[][];
  /** Its rules are in place. */
  live: boolean;
}

/** The chains the rules go in, as `iptables -t <table> -S <chain>` reads them. */
const CHAINS: [string, string][] = [
  ['nat', 'PREROUTING'],
  ['nat', 'OUTPUT'],
  ['filter', 'DOCKER-USER'],
];

const tagOf = (node: string, job: string): string => `ocg-fwd:${node}:${job}`;

/** A rule as `-S` printed it: `[table, chain, ...spec]` (what `rulesOf` makes), its job, and the container and node port it forwards. */
interface TaggedRule {
  rule: string[];
  job: string;
  /** `<ip>:<port>` of the container. */
  target?: string;
  /** The node's port (DNAT rules). */
  port?: number;
}

/** `-S` lines carrying a tag that starts with `prefix`. */
async function rulesTagged(command: string, prefix: string): Promise<TaggedRule[]> {
  const out: TaggedRule[] = [];
  for (const [table, chain] of CHAINS) {
    const { stdout } = await exec(command, ['-w', '5', '-t', table, '-S', chain]).catch(() => ({ stdout: '' }));
    // iptables quotes a comment holding ':' or '.' (never a space: split on spaces, unquoted).
    for (const line of stdout.replace(/"/g, '').split('\n')) {
      if (!line.startsWith('-A ') || !line.includes(`--comment ${prefix}`)) continue;
      const job = /--comment ocg-fwd:[^:\s]+:(\S+)/.exec(line)?.[1] ?? '';
      const dnat = /--dport (\d+) .*--to-destination (\S+)/.exec(line);
      // The container: what admissions and the drop go to, or what the replies come from (-S puts the interface match between).
      const container = /-d (\S+)\/32 .*?--dport (\d+)/.exec(line) ?? /-s (\S+)\/32 .*?--sport (\d+)/.exec(line);
      const target = dnat ? dnat[2] : container ? `${container[1]}:${container[2]}` : undefined;
      out.push({ rule: [table, ...line.slice(3).trim().split(/\s+/)], job, target, port: dnat ? Number(dnat[1]) : undefined });
    }
  }
  return out;
}

/** The default forward address: the ingress URL's when it is a non-loopback IPv4 literal, else the host's first (not a Docker bridge's). */
export function defaultForwardAddress(ingressUrl: string | undefined): string | undefined {
  const host = ingressUrl ? new URL(ingressUrl).hostname : '';
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host) && !host.startsWith('127.')) return host;
  for (const [name, addresses] of Object.entries(os.networkInterfaces())) {
    if (/^(docker|br-|veth)/.test(name)) continue;
    const found = (addresses ?? []).find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return undefined;
}

/** An earlier agent's forward, held until its endpoint takes it back. */
interface Leftover {
  job: string;
  target: string;
  nodePort?: number;
  reservation?: net.Server;
  rules: string[][];
}

/** How long an earlier agent's forward waits for its endpoint to take it back (the adopted op's checks to pass). */
const ADOPT_MS = 60_000;

export class EndpointForwards {
  private readonly byKey = new Map<string, Forward>();
  /** An earlier agent's forwards by `<job> <container>`. */
  private readonly leftovers = new Map<string, Leftover>();
  private readonly inUse = new Set<number>();
  /** Ports whose forward ended, and when. */
  private readonly released = new Map<number, number>();
  private cursor: number;
  /** iptables changes, one at a time and in the order asked. */
  private queue: Promise<void> = Promise.resolve();
  private warnedFull = false;

  private constructor(
    private readonly settings: ForwardSettings,
    private readonly logger: Logger,
  ) {
    this.cursor = settings.ports.first;
  }

  /**
   * Checks that the rules can be written, and takes over what an earlier
   * agent of this node left (see `findLeftovers`).
   */
  static async start(settings: ForwardSettings, logger: Logger): Promise<EndpointForwards> {
    const usable = await exec(settings.command, ['-w', '5', '-t', 'nat', '-S', 'PREROUTING']).then(
      () => exec(settings.command, ['-w', '5', '-S', 'DOCKER-USER']).then(() => true),
      () => false,
    );
    if (!usable)
      throw new Error(
        `endpoint forwards need ${settings.command} with the nat table and the DOCKER-USER chain (the agent must run as root next to dockerd); unset FORWARD_PORTS to turn them off`,
      );
    await listenOn(settings.address, 0).then(
      (server) => server.close(),
      (err: Error) => {
        throw new Error(`FORWARD_ADDRESS ${settings.address} is not an address of this host (${err.message})`);
      },
    );
    const forwards = new EndpointForwards(settings, logger);
    await forwards.findLeftovers();
    logger.info({ address: settings.address, ports: `${settings.ports.first}-${settings.ports.last}`, from: settings.from }, 'endpoint forwards on');
    return forwards;
  }

  /**
   * An earlier agent's forwards keep working while no agent runs. Each is held
   * again (its port's listener) for its endpoint to take back as it is (`want`
   * with the same container), so visitors never notice a restart; `keep` then
   * ends those of jobs that were not adopted, and what no endpoint took back
   * within `ADOPT_MS` ends too. Ports that cannot be held again are ended and
   * quarantined.
   */
  private async findLeftovers(): Promise<void> {
    const groups = new Map<string, Leftover>();
    for (const found of await rulesTagged(this.settings.command, tagOf(this.settings.node, ''))) {
      const key = `${found.job} ${found.target ?? ''}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { job: found.job, target: found.target ?? '', rules: [] }));
      group.rules.push(found.rule);
      if (found.port !== undefined) group.nodePort = found.port;
    }
    for (const [key, group] of groups) {
      const { nodePort } = group;
      const reservation = nodePort !== undefined && group.target ? await listenOn(this.settings.address, nodePort).catch(() => undefined) : undefined;
      if (!reservation || nodePort === undefined) {
        await this.remove(group.rules);
        if (nodePort !== undefined) this.released.set(nodePort, Date.now());
        continue;
      }
      this.inUse.add(nodePort);
      this.leftovers.set(key, { ...group, reservation });
    }
    if (this.leftovers.size > 0) setTimeout(() => this.endLeftovers(() => true), ADOPT_MS).unref();
  }

  /** The jobs a restarted agent adopted: an earlier agent's forwards of any other job end now. */
  keep(jobs: string[]): void {
    const adopted = new Set(jobs);
    this.endLeftovers((leftover) => !adopted.has(leftover.job));
  }

  private endLeftovers(which: (leftover: Leftover) => boolean): void {
    for (const [key, leftover] of this.leftovers) {
      if (!which(leftover)) continue;
      this.leftovers.delete(key);
      this.drop({ job: leftover.job, target: leftover.target, nodePort: leftover.nodePort, reservation: leftover.reservation, rules: leftover.rules, live: true });
    }
  }

  /** The agent stops: the ports are let go of, the rules stay (the next agent takes them back). */
  close(): void {
    for (const held of [...this.byKey.values(), ...this.leftovers.values()]) held.reservation?.close();
  }

  /** `<address>:<port>` while the endpoint's forward is in place. */
  addressOf(job: string, op: string, port: number): string | undefined {
    const forward = this.byKey.get(`${job}:${op}:${port}`);
    return forward?.live ? `${this.settings.address}:${forward.nodePort}` : undefined;
  }

  /**
   * The endpoint should be forwarded to `target`, or not at all (undefined).
   * A forward that goes away stops being reported at once; a new one is
   * reported (`onLive`) once its rules are in place.
   */
  want(job: string, op: string, port: number, target: ForwardTarget | undefined, onLive: () => void): void {
    const key = `${job}:${op}:${port}`;
    const current = this.byKey.get(key);
    const wanted = target && `${target.ip}:${target.port}`;
    if (current?.target === wanted) return;
    if (current) {
      this.byKey.delete(key);
      this.drop(current);
    }
    if (!wanted || !target) return;
    const leftover = this.leftovers.get(`${job} ${wanted}`);
    if (leftover) {
      // An earlier agent's forward of this endpoint, still in place: taken back as it is.
      this.leftovers.delete(`${job} ${wanted}`);
      this.byKey.set(key, { job, target: wanted, nodePort: leftover.nodePort, reservation: leftover.reservation, rules: leftover.rules, live: true });
      return;
    }
    const forward: Forward = { job, target: wanted, rules: [], live: false };
    this.byKey.set(key, forward);
    this.enqueue(async () => {
      if (this.byKey.get(key) !== forward) return; // superseded before its turn
      const nodePort = await this.reserve(forward);
      if (nodePort === undefined) {
        if (!this.warnedFull) this.logger.warn({ ports: this.settings.ports }, 'no forward port free: endpoints are reached through the ingress');
        this.warnedFull = true;
        return;
      }
      forward.rules = this.rulesOf(job, nodePort, target);
      const added: string[][] = [];
      try {
        for (const rule of forward.rules) {
          await exec(this.settings.command, ['-w', '5', '-t', rule[0], '-I', ...rule.slice(1)]);
          added.push(rule);
        }
      } catch (err) {
        // Kept, not live, until the endpoint changes: reported without a forward, so reached through the ingress.
        this.logger.error({ err: (err as Error).message, job, op, port }, 'could not forward an endpoint: it is reached through the ingress');
        forward.rules = added;
        return this.drop(forward, true);
      }
      if (this.byKey.get(key) !== forward) return this.drop(forward, true); // dropped while its rules went in
      forward.live = true;
      onLive();
    });
  }

  /** Ends every forward of the job; resolves once their rules are gone. */
  async release(job: string): Promise<void> {
    this.endLeftovers((leftover) => leftover.job === job);
    for (const [key, forward] of this.byKey) {
      if (forward.job !== job) continue;
      this.byKey.delete(key);
      this.drop(forward);
    }
    await this.enqueue(async () => {
      // Anything of the job's still there (a rule whose forward was dropped half-way).
      await this.remove((await rulesTagged(this.settings.command, `${tagOf(this.settings.node, job)} `)).map((found) => found.rule));
    });
  }

  private rulesOf(job: string, nodePort: number, target: ForwardTarget): string[][] {
    const tag = ['-m', 'comment', '--comment', tagOf(this.settings.node, job)];
    const rule = (table: string, chain: string, match: string, action: string) => [table, chain, ...match.split(' '), ...tag, ...action.split(' ')];
    const dnat = (chain: string) => rule('nat', chain, `-d ${this.settings.address}/32 -p tcp -m tcp --dport ${nodePort}`, `-j DNAT --to-destination ${target.ip}:${target.port}`);
    // No other machine admitted: only a gateway on this host (OUTPUT) is forwarded to.
    if (this.settings.from.length === 0) return [dnat('OUTPUT')];
    const container = `-d ${target.ip}/32 -p tcp -m tcp --dport ${target.port}`;
    // Each rule goes in at the top of its chain, so the last ones come first: replies, admissions, then the drop of anyone else
    // (without relying on the FORWARD policy Docker sets); traffic from job bridges is the isolation's and Docker's to judge.
    const drop = rule('filter', 'DOCKER-USER', `! -i br-+ ${container} -m conntrack --ctstate NEW`, '-j DROP');
    const admit = this.settings.from.map((cidr) => rule('filter', 'DOCKER-USER', `-s ${cidr} ! -i br-+ ${container}`, '-j ACCEPT'));
    // Replies of connections made to the container (never a connection it opens): the isolation's drops of private destinations come after.
    const replies = rule('filter', 'DOCKER-USER', `-s ${target.ip}/32 -p tcp -m tcp --sport ${target.port} -m conntrack --ctstate ESTABLISHED --ctdir REPLY`, '-j ACCEPT');
    return [dnat('PREROUTING'), dnat('OUTPUT'), drop, ...admit, replies];
  }

  /** A port of the range for the forward, held by a listener; undefined when none is free. */
  private async reserve(forward: Forward): Promise<number | undefined> {
    for (let port = this.allocate(); port !== undefined; port = this.allocate()) {
      try {
        forward.reservation = await listenOn(this.settings.address, port);
        forward.nodePort = port;
        return port;
      } catch (err) {
        this.free(port); // another process's (skipped for the quarantine), or the address is gone
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      }
    }
    return undefined;
  }

  /** The next port of the range neither in use nor in quarantine, round the range from the last one given. */
  private allocate(): number | undefined {
    const { first, last } = this.settings.ports;
    const now = Date.now();
    for (let i = 0; i <= last - first; i++) {
      const port = this.cursor;
      this.cursor = port >= last ? first : port + 1;
      if (this.inUse.has(port)) continue;
      const at = this.released.get(port);
      if (at !== undefined && now - at < this.settings.quarantineMs) continue;
      this.released.delete(port);
      this.inUse.add(port);
      this.warnedFull = false;
      return port;
    }
    return undefined;
  }

  private free(port: number): void {
    this.inUse.delete(port);
    this.released.set(port, Date.now());
  }

  private drop(forward: Forward, now = false): void | Promise<void> {
    const removal = async () => {
      if (forward.live || now) await this.remove(forward.rules);
      forward.live = false;
      forward.rules = [];
      forward.reservation?.close();
      forward.reservation = undefined;
      if (forward.nodePort !== undefined) this.free(forward.nodePort);
      forward.nodePort = undefined;
    };
    if (now) return removal();
    this.enqueue(removal);
  }

  private async remove(rules: string[][]): Promise<void> {
    for (const rule of rules) await exec(this.settings.command, ['-w', '5', '-t', rule[0], '-D', ...rule.slice(1)]).catch(() => undefined);
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step).catch((err: Error) => this.logger.error({ err: err.message }, 'endpoint forwards'));
    this.queue = next;
    return next;
  }
}

/** A listener that takes nothing (connections that reach it are closed), not keeping the process alive. */
function listenOn(host: string, port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen({ host, port, exclusive: true, backlog: 1 }, () => {
      server.off('error', reject);
      server.unref();
      resolve(server);
    });
  });
}
