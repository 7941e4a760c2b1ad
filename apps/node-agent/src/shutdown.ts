import type { Logger } from 'pino';

export interface ShutdownOptions {
  /** Exit anyway after this long. */
  graceMs: number;
  /**
   * While draining jobs, further signals are ignored: Ctrl-C in a terminal
   * sends SIGINT to every process of the group, often twice, and an agent
   * that exits half-way leaves containers and networks behind.
   */
  ignoreRepeats: boolean;
}

/** Runs `stop` once on SIGINT or SIGTERM, then exits. */
export function onAgentShutdown(logger: Logger, stop: () => Promise<void>, opts: ShutdownOptions): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      if (opts.ignoreRepeats) return logger.warn({ signal }, 'still removing jobs; SIGKILL abandons them');
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown took too long: exiting');
      process.exit(1);
    }, opts.graceMs).unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}
