// Baseline: node-oidc-provider with one client_credentials client, opaque tokens,
// its default in-memory adapter, token and introspection endpoints enabled.
import Provider from 'oidc-provider';

const [port, clientId, clientSecret] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [{
    client_id: clientId,
    client_secret: clientSecret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  features: {
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    devInteractions: { enabled: false },
  },
  // Folio's access token lifetime, so both keep the same amount of live state.
  ttl: { ClientCredentials: 1800 },
});
provider.listen(Number(port), '127.0.0.1');
