// The servers Folio is measured against, each a short script in bench/baselines/:
// bare Fastify answering Folio's portfolio list, Fastify doing the same two SQLite
// reads and nothing else, a bare Fastify token route, and node-oidc-provider.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startServer, type Server } from './processes.ts';

/** The one client_credentials client node-oidc-provider is configured with. */
const OIDC_CLIENT = { id: 'bench-client', secret: 'bench-secret' };

export interface Peers {
  bare: Server;
  fastifySqlite: Server;
  bareToken: Server;
  oidc: Server;
  /** The Basic authorization of OIDC_CLIENT. */
  oidcBasic: string;
  /** An access token node-oidc-provider issued, for its introspection row. */
  oidcToken: string;
}

/** What the peers copy from a running Folio on SQLite. */
export interface FolioSample {
  url: string;
  /** An access token of the demo user, whose portfolio list bare Fastify serves. */
  bearer: string;
  /** The SQLite file that server reads, which the Fastify + SQLite peer reads too. */
  sqliteFile: string;
}

async function startPeer(name: string, script: string, args: string[], readyPath = '/readyz'): Promise<Server> {
  const port = await freePort();
  return startServer(name, [`bench/baselines/${script}`, String(port), ...args], port, readyPath);
}

/** Starts every peer, handing each to `track` as soon as it runs so that it is stopped even if a later one fails. */
export async function startPeers(folio: FolioSample, work: string, track: (server: Server) => void): Promise<Peers> {
  // Bare Fastify answers with exactly the body Folio sends, so the two differ only in the work behind it.
  const bodyFile = join(work, 'body.json');
  const answer = await fetch(`${folio.url}/api/v2/portfolios.json`, { headers: { authorization: `Bearer ${folio.bearer}` } });
  if (!answer.ok) throw new Error(`Folio answered the portfolio list ${answer.status}: ${await answer.text()}`);
  writeFileSync(bodyFile, await answer.text());

  const started = async (server: Promise<Server>) => {
    const running = await server;
    track(running);
    return running;
  };
  const bare = await started(startPeer('bare-fastify', 'bare-fastify.mjs', [bodyFile]));
  const fastifySqlite = await started(startPeer('fastify-sqlite', 'fastify-sqlite.mjs', [folio.sqliteFile]));
  const bareToken = await started(startPeer('bare-fastify-token', 'bare-fastify-token.mjs', []));
  const oidc = await started(startPeer('oidc-provider', 'oidc-provider.mjs', [OIDC_CLIENT.id, OIDC_CLIENT.secret], '/.well-known/openid-configuration'));

  const oidcBasic = `Basic ${Buffer.from(`${OIDC_CLIENT.id}:${OIDC_CLIENT.secret}`).toString('base64')}`;
  const issued = await fetch(`${oidc.url}/token`, {
    method: 'POST',
    headers: { authorization: oidcBasic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token: oidcToken } = (await issued.json()) as { access_token: string };
  return { bare, fastifySqlite, bareToken, oidc, oidcBasic, oidcToken };
}
