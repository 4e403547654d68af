import { parseFlags, printJson, requireFlag } from './args.ts';
import type { Command } from './context.ts';
import { UsageError } from './errors.ts';
import { createUser } from './operations.ts';
import { withStorage } from './storage.ts';
import { validEmail, validName, validPassword } from './validate.ts';

/** Only the line's end is stripped: leading and inner spaces may be part of a password. */
function stripLineEnd(text: string): string {
  return text.replace(/\r?\n$/, '');
}

export const userCreate: Command = {
  usage: 'folio user create --email E (--password P | --password-stdin) [--name N] [--json]',
  async run(args, { config, io, clock, random }) {
    const { values } = parseFlags(args, {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      name: { type: 'string' },
      json: { type: 'boolean' },
    });
    const email = validEmail(requireFlag(values.email, 'email', 'user create'));
    if (values.password !== undefined && values['password-stdin']) {
      throw new UsageError('user create takes --password or --password-stdin, not both');
    }
    const password = validPassword(values['password-stdin']
      ? stripLineEnd(await io.readStdin())
      : requireFlag(values.password, 'password', 'user create'));
    const name = validName(values.name ?? email.split('@')[0]!, 'user');

    const user = await withStorage(config, (storage) => createUser({ storage, clock, random }, { email, password, name }));
    if (values.json) {
      printJson(io.out, { id: user.id, email: user.email, name: user.name, created_at: new Date(user.createdAt).toISOString() });
    } else {
      io.out(`Created user ${user.email} (id ${user.id}).`);
    }
  },
};
