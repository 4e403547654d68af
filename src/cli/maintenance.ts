import { purgeExpiredCredentials, purgePace } from '../maintenance.ts';
import { openStorage } from '../storage/open.ts';
import { parseFlags, printJson } from './args.ts';
import type { Command } from './context.ts';
import { withStorage } from './storage.ts';

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export const migrate: Command = {
  usage: 'folio migrate',
  async run(args, { config, io }) {
    parseFlags(args, {});
    const storage = await openStorage(config.databaseUrl);
    try {
      await storage.migrate();
    } finally {
      await storage.close();
    }
    io.out(`Database is up to date (${storage.kind}).`);
  },
};

export const tokensPurge: Command = {
  usage: 'folio tokens purge [--json]',
  async run(args, { config, io, clock }) {
    const { values } = parseFlags(args, { json: { type: 'boolean' } });
    const purged = await withStorage(config, (storage) => purgeExpiredCredentials(storage, clock.now(), purgePace(storage.kind, 'byHand')));
    if (values.json) {
      printJson(io.out, { access_tokens: purged.accessTokens, refresh_tokens: purged.refreshTokens, codes: purged.codes });
    } else {
      io.out(`Purged ${plural(purged.accessTokens, 'access token')}, ${plural(purged.refreshTokens, 'refresh token')} `
        + `and ${plural(purged.codes, 'authorization code')}.`);
    }
  },
};
