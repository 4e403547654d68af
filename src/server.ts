// The long-running process: open and migrate storage, seed demo data on a new
// development database, serve, purge dead credentials, and shut down cleanly.
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { type Config, refuseAccidentalExposure } from './config.ts';
import { seedDemo } from './demo/seed.ts';
import { describeDemo } from './demo/summary.ts';
import { purgeExpiredCredentials, purgePace } from './maintenance.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import { createLogger } from './platform/logger.ts';
import { cryptoRandom } from './platform/random.ts';
import { openStorage } from './storage/open.ts';
import type { Storage } from './storage/stores.ts';

/** How long in-flight requests get to finish before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface ServerOptions {
  /** Where the friendly start-up lines go; stdout by default. */
  print?: (text: string) => void;
}

export interface RunningServer {
  /** The address actually bound, e.g. http://127.0.0.1:3000. */
  address: string;
  /** Stops accepting, lets in-flight requests finish, then closes storage. Safe to call twice. */
  close(): Promise<void>;
}

/** Purges on a timer; `stop` ends a purge under way at its next batch and waits for it, so storage can close after. */
function startPurgeTimer(storage: Storage, clock: Clock, logger: Logger, intervalMs: number): { stop(): Promise<void> } {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running !== undefined) return;
    running = purgeExpiredCredentials(storage, clock.now(), purgePace(storage.kind, 'background', { signal: stopping.signal }))
      .then((purged) => logger.info({ purged }, 'purged expired credentials'))
      .catch((error: unknown) => {
        if (stopping.signal.aborted) logger.info('purge stopped by shutdown; the next purge after a restart deletes the rest');
        else logger.error({ err: error }, 'purging expired credentials failed');
      })
      .finally(() => { running = undefined; });
  }, intervalMs);
  // Housekeeping alone must never keep the process alive.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}

/** A listen failure names the setting behind it, as a bad value in config.ts does. */
async function listenOrExplain(app: Awaited<ReturnType<typeof buildApp>>, config: Config): Promise<string> {
  try {
    return await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const cause = error instanceof Error ? error.message : String(error);
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new Error(`cannot listen on port ${config.port} (FOLIO_PORT, PORT or --port): ${cause}`, { cause: error });
    if (code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL' || code === 'EAI_AGAIN') throw new Error(`cannot listen on FOLIO_HOST=${config.host}: ${cause}`, { cause: error });
    throw error;
  }
}

async function seedIfNew(storage: Storage, config: Config, print: (text: string) => void): Promise<void> {
  if (config.env === 'production' || await storage.users.hasAnyUser()) return;
  const result = await seedDemo({ storage, clock: systemClock, random: cryptoRandom });
  print(describeDemo(result, config.baseUrl));
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  refuseAccidentalExposure(config);
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const logger = createLogger(config);
  const storage = await openStorage(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    onChangeNotices: (listening) => {
      if (listening) logger.info('listening for other instances\' changes: bearer reads are answered from memory');
      else logger.warn('lost the connection that hears other instances\' changes: bearer reads go to the database until it is back');
    },
  });
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let address: string;
  try {
    await storage.migrate();
    for (const warning of await storage.settingWarnings()) logger.warn(warning);
    app = await buildApp({ config, storage, clock: systemClock, random: cryptoRandom, logger });
    address = await listenOrExplain(app, config);
    // Only once listening: the demo's client secrets are printed once, so a start
    // that failed (a port in use, say) must not use them up.
    await seedIfNew(storage, config, print);
  } catch (error) {
    await app?.close().catch(() => undefined);
    await storage.close().catch(() => undefined);
    throw error;
  }
  const purgeTimer = startPurgeTimer(storage, systemClock, logger, config.purgeIntervalMs);
  const listening = app;
  print(`Folio is listening on ${address}${address === config.baseUrl ? '' : ` (public address ${config.baseUrl})`}`);

  let closing: Promise<void> | undefined;
  const close = async () => {
    const purgeStopped = purgeTimer.stop();
    // Fastify's close stops accepting and waits for in-flight requests; a stuck one is cut after the grace period.
    const cutStragglers = setTimeout(() => listening.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    try {
      await listening.close();
    } finally {
      clearTimeout(cutStragglers);
      await purgeStopped;
      await storage.close();
    }
    logger.info('Folio stopped');
  };
  return {
    address,
    close: () => (closing ??= close()),
  };
}
