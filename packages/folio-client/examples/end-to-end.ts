// Runs against a running Folio: client_credentials, then lists the owner's portfolios.
//   FOLIO_URL=http://localhost:3000 FOLIO_CLIENT_ID=... FOLIO_CLIENT_SECRET=... \
//     node --import tsx packages/folio-client/examples/end-to-end.ts
// or: node --import tsx packages/folio-client/examples/end-to-end.ts BASE_URL CLIENT_ID CLIENT_SECRET
import { FolioApiError, FolioClient, FolioOAuthError } from '../src/index.ts';

const [baseUrl = process.env.FOLIO_URL ?? 'http://localhost:3000', clientId = process.env.FOLIO_CLIENT_ID, clientSecret = process.env.FOLIO_CLIENT_SECRET] = process.argv.slice(2);

if (clientId === undefined || clientSecret === undefined) {
  process.stderr.write('usage: end-to-end.ts [BASE_URL CLIENT_ID CLIENT_SECRET] (or FOLIO_URL, FOLIO_CLIENT_ID, FOLIO_CLIENT_SECRET)\n');
  process.exit(2);
}

const folio = new FolioClient({ baseUrl, clientId, clientSecret });
try {
  const tokens = await folio.clientCredentials();
  process.stdout.write(`token issued, expires in ${tokens.expires_in} s\n`);
  const { user } = await folio.myUser();
  const { portfolios } = await folio.listPortfolios();
  process.stdout.write(`${user.name} <${user.email}> has ${portfolios.length} portfolio(s)\n`);
  for (const portfolio of portfolios) {
    process.stdout.write(`  #${portfolio.id} ${portfolio.name} (${portfolio.currency_code}, since ${portfolio.inception_date})\n`);
  }
} catch (error) {
  if (error instanceof FolioOAuthError) process.stderr.write(`token request refused: ${error.error} (${error.description ?? 'no description'})\n`);
  else if (error instanceof FolioApiError) process.stderr.write(`API call failed: ${error.message}\n`);
  else throw error;
  process.exit(1);
}
