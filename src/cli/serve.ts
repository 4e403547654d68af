import { withPort } from '../config.ts';
import type { RunningServer } from '../server.ts';
import { parseFlags } from './args.ts';
import type { CliIo, Command } from './context.ts';
import { UsageError } from './errors.ts';

const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(value)}`);
  return port;
}

function shutDown(server: RunningServer, io: CliIo): void {
  server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      io.err(`folio: error: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

export const serve: Command = {
  usage: 'folio serve [--port N]',
  async run(args, { config, io }) {
    const { values } = parseFlags(args, { port: { type: 'string' } });
    const port = parsePort(values.port);

    // Handlers go in before start-up so that a signal arriving as the server
    // comes up is a clean stop rather than the default instant kill.
    let server: RunningServer | undefined;
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        io.err(`folio: ${signal} again; exiting without waiting`);
        process.exit(1);
      }
      stopping = true;
      io.out(`Received ${signal}; finishing in-flight requests...`);
      if (server !== undefined) shutDown(server, io);
    };
    for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => stop(signal));

    // Loaded here so that other verbs do not pay for Fastify and the routes.
    const { startServer } = await import('../server.ts');
    server = await startServer(port === undefined ? config : withPort(config, port), { print: io.out });
    if (stopping) shutDown(server, io);
  },
};
