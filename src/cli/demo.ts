import { seedDemo } from '../demo/seed.ts';
import { describeDemo } from '../demo/summary.ts';
import { parseFlags, printJson } from './args.ts';
import type { Command } from './context.ts';
import { CliError } from './errors.ts';
import { withStorage } from './storage.ts';

export const demo: Command = {
  usage: 'folio demo [--json]',
  async run(args, { config, io, clock, random }) {
    const { values } = parseFlags(args, { json: { type: 'boolean' } });
    // The demo password is published; such an account must never exist in production.
    if (config.env === 'production') throw new CliError('demo data is not available when FOLIO_ENV is production');
    const result = await withStorage(config, (storage) => seedDemo({ storage, clock, random }));
    if (values.json) printJson(io.out, result);
    else io.out(describeDemo(result, config.baseUrl));
  },
};
