import { parseFlags, printJson, requireFlag } from './args.ts';
import type { CliIo, Command } from './context.ts';
import { UsageError } from './errors.ts';
import { applicationJson, findOwner, registerApplication, rotateApplicationSecret, type RegisteredApplication } from './operations.ts';
import { withStorage } from './storage.ts';
import { validApplicationName, validEmail, validRedirectUris } from './validate.ts';

function printApplication(io: CliIo, registered: RegisteredApplication, heading: string): void {
  const json = applicationJson(registered);
  io.out([
    heading,
    `  client_id:     ${json.client_id}`,
    `  client_secret: ${json.client_secret}`,
    `  confidential:  ${json.confidential ? 'yes' : 'no (public)'}`,
    `  PKCE required: ${json.pkce_required ? 'yes' : 'no'}`,
    `  redirect URIs: ${json.redirect_uris.join(', ')}`,
    `  scopes:        ${json.scopes.join(' ')}`,
    'The secret is shown only this once; store it now.',
  ].join('\n'));
}

export const appCreate: Command = {
  usage: 'folio app create --owner E --name N --redirect-uri U [--redirect-uri U2] [--public] [--pkce | --no-pkce] [--json]',
  async run(args, { config, io, clock, random }) {
    const { values } = parseFlags(args, {
      owner: { type: 'string' },
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      public: { type: 'boolean' },
      pkce: { type: 'boolean' },
      'no-pkce': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const ownerEmail = validEmail(requireFlag(values.owner, 'owner', 'app create'));
    const name = validApplicationName(requireFlag(values.name, 'name', 'app create'));
    const uris = values['redirect-uri'] ?? [];
    if (uris.length === 0) throw new UsageError('app create needs --redirect-uri');
    const redirectUris = validRedirectUris(uris);
    if (values.pkce && values['no-pkce']) throw new UsageError('app create takes --pkce or --no-pkce, not both');
    // RFC 9700 §2.1.1: PKCE is the only protection a public client's code has, so
    // it cannot be turned off there (the settings page enforces the same).
    if (values.public && values['no-pkce']) throw new UsageError('a public application must use PKCE: --public and --no-pkce do not go together');
    const confidential = !values.public;
    const pkceRequired = values.pkce ? true : values['no-pkce'] ? false : !confidential;

    const registered = await withStorage(config, async (storage) => {
      const owner = await findOwner(storage, ownerEmail);
      return registerApplication({ storage, clock, random }, { ownerId: owner.id, name, redirectUris, confidential, pkceRequired });
    });
    if (values.json) printJson(io.out, applicationJson(registered));
    else printApplication(io, registered, `Registered application "${registered.application.name}".`);
  },
};

export const appRotateSecret: Command = {
  usage: 'folio app rotate-secret [--json] [--] CLIENT_ID   (an older CLIENT_ID that starts with "-" goes after --)',
  async run(args, { config, io, clock, random }) {
    const { values, positionals } = parseFlags(args, { json: { type: 'boolean' } }, true);
    if (positionals.length !== 1) throw new UsageError('app rotate-secret needs exactly one CLIENT_ID');
    const clientId = positionals[0]!;
    const registered = await withStorage(config, (storage) => rotateApplicationSecret({ storage, clock, random }, clientId));
    if (values.json) printJson(io.out, applicationJson(registered));
    else printApplication(io, registered, `New secret for "${registered.application.name}"; the old one no longer works.`);
  },
};
