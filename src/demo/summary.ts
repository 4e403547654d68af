// What a person sees after seeding: where to go and what to sign in with.
import type { DemoSeedResult } from './seed.ts';

export function describeDemo(result: DemoSeedResult, baseUrl: string): string {
  const lines = [
    '',
    `Demo data ${result.user.created ? 'created' : 'already present'}. Open ${baseUrl}/ and sign in with:`,
    `  email:    ${result.user.email}`,
    `  password: ${result.user.password}`,
  ];
  let existingApplications = 0;
  for (const application of result.applications) {
    lines.push('', `${application.confidential ? 'Confidential' : 'Public'} application "${application.name}":`);
    lines.push(`  client_id:     ${application.clientId}`);
    if (application.clientSecret !== null) {
      lines.push(`  client_secret: ${application.clientSecret}  (shown once; copy it now)`);
    } else {
      existingApplications += 1;
    }
    lines.push(`  redirect URIs: ${application.redirectUris.join(', ')}`);
    lines.push(`  PKCE required: ${application.pkceRequired ? 'yes' : 'no'}`);
  }
  if (existingApplications > 0) {
    lines.push('', 'Existing applications keep their secrets; for a new one run: folio app rotate-secret CLIENT_ID');
  }
  const names = result.portfolios.map((portfolio) => portfolio.name).join(', ');
  lines.push('', `Portfolios: ${names}`, '');
  return lines.join('\n');
}
