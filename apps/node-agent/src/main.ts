/**
 * Composition root. `tsx apps/node-agent/src/main.ts` starts the agent (API,
 * ingress, adoption of running jobs); with CONTROL_PLANE_URL it joins MARKET
 * and runs that market's jobs; `--run job.json` runs that definition here
 * instead, prints the summary and exits (0 when it completed).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import bs58 from 'bs58';
import { createAuthHeader, nodeApiMessage, createSigner, generateWallet } from '@ocg/auth';
import { createLogger, createTracing, runMain, type Logger, type Tracing } from '@ocg/http';
import { normalize, validate, type JobDefinition } from '@ocg/job-definition';
import { NodeAgent } from './agent';
import { loadConfig, type ResolvedConfig } from './config';
import { FanoutReporter, LocalJobSource, LogReporter } from './local-source';
import { createControlPlane } from './control-plane';
import { resolveIdentity, type NodeIdentity } from './identity';
import { onAgentShutdown } from './shutdown';
import { sealBlobsWith } from './docker/labels';

interface RunContext {
  values: { poster?: string; duration?: string };
  config: ResolvedConfig;
  logger: Logger;
  source: LocalJobSource;
  agent: NodeAgent;
}

async function submitFile(file: string, ctx: RunContext): Promise<string> {
  const body: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  const { valid, errors } = validate(body);
  if (!valid) throw new Error(`${file} is not a valid job definition:\n${errors.map((e) => `  ${e.path}: ${e.message}`).join('\n')}`);
  const job = bs58.encode(randomBytes(32));
  const poster = ctx.values.poster ?? devPoster(job, ctx);
  const seconds = ctx.values.duration ? Number(ctx.values.duration) : ctx.config.JOB_DURATION_SECONDS;
  await ctx.source.submit({ job, poster, definition: normalize(body as JobDefinition), deadline: Date.now() + seconds * 1000 });
  ctx.logger.info({ job, url: `http://${job}.${ctx.config.NODE_DOMAIN}:${ctx.agent.ingress.port}` }, 'job submitted');
  return job;
}

/** Without --poster, a throwaway wallet posts the job; one signed header (valid 5 minutes) is printed. */
function devPoster(job: string, ctx: RunContext): string {
  const wallet = generateWallet();
  const node = ctx.config.NODE_ADDRESS ?? ctx.config.NODE_ID;
  const { header } = createAuthHeader(createSigner(wallet.secretKey), nodeApiMessage(node, job));
  process.stderr.write(`poster ${wallet.address}; try:\n  curl -H 'Authorization: ${header}' ${ctx.agent.api.url}/job/${job}/ops\n`);
  return wallet.address;
}

/**
 * Control-plane mode: the node key is the node's address; it registers in
 * MARKET through CONTROL_PLANE_URL, claims that market's jobs and reports on them.
 */
async function runControlPlane(config: ResolvedConfig, identity: NodeIdentity, logger: Logger, tracing: Tracing): Promise<void> {
  const { signer } = identity;
  if (config.NODE_ADDRESS && config.NODE_ADDRESS !== signer.address)
    throw new Error(`NODE_ADDRESS ${config.NODE_ADDRESS} is not the address of the node key (${signer.address}): unset it`);
  const agentConfig = { ...config, NODE_ADDRESS: signer.address };
  sealBlobsWith(signer); // no definition (env values, registry credentials) in plain text in Docker labels
  const cp = createControlPlane(agentConfig, signer, logger, tracing);
  const reporter = new FanoutReporter([new LogReporter(logger), cp.reporter]);
  const agent = await NodeAgent.start(agentConfig, logger, { source: cp.source, reporter, onListening: cp.onListening, warmResources: cp.warmResources, tracing });
  cp.reporter.readLogs((job, op) => agent.executor.logs(job, op));
  logger.info({ node: signer.address, nodeId: config.NODE_ID, market: config.MARKET, controlPlane: config.CONTROL_PLANE_URL }, 'node agent in control-plane mode');
  onAgentShutdown(
    logger,
    async () => {
      // A development node (the local stack) takes its jobs down with it, and reports them ended while the
      // control plane still listens; a real node leaves them for the next agent.
      if (config.STOP_JOBS_ON_EXIT) await agent.drain('the node shut down');
      cp.reporter.close();
      await agent.close();
      identity.release();
      await tracing.shutdown();
    },
    shutdownOptions(config),
  );
}

/** Draining waits for every job's stop (grace period), its report and its cleanup. */
function shutdownOptions(config: ResolvedConfig) {
  const drainMs = config.STOP_GRACE_SECONDS * 1000 + config.REPORT_TIMEOUT_MS + 60_000;
  return { graceMs: config.STOP_JOBS_ON_EXIT ? drainMs : 15_000, ignoreRepeats: config.STOP_JOBS_ON_EXIT };
}

runMain('node-agent', async () => {
  const { values } = parseArgs({ options: { run: { type: 'string' }, poster: { type: 'string' }, duration: { type: 'string' } } });
  const loaded = loadConfig();
  const logger = createLogger({ service: 'node-agent', level: loaded.LOG_LEVEL });
  const tracing = createTracing({ service: 'node-agent', settings: loaded, logger });
  const identity = await resolveIdentity(loaded);
  const config: ResolvedConfig = { ...loaded, NODE_ID: identity.nodeId };
  if (config.CONTROL_PLANE_URL && !values.run) return runControlPlane(config, identity, logger, tracing);
  const source = new LocalJobSource();
  const agent = await NodeAgent.start(config, logger, { source, reporter: new LogReporter(logger), tracing });
  if (!values.run) {
    onAgentShutdown(
      logger,
      async () => {
        if (config.STOP_JOBS_ON_EXIT) await agent.drain('the node shut down');
        await agent.close();
        identity.release();
        await tracing.shutdown();
      },
      shutdownOptions(config),
    );
    return;
  }
  const job = await submitFile(values.run, { values, config, logger, source, agent });
  onAgentShutdown(
    logger,
    async () => {
      await agent.executor.stopAndWait(job, 'interrupted (--run)');
      await agent.close();
      identity.release();
    },
    { ...shutdownOptions({ ...config, STOP_JOBS_ON_EXIT: true }) },
  );
  const summary = await agent.executor.whenEnded(job);
  await agent.close();
  identity.release();
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  process.exit(summary.state === 'completed' ? 0 : 1);
});
