// Demo data for a new development database (DESIGN §4). Idempotent: whatever
// already exists is kept, so `folio demo` can run again safely.
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import { registerApplication } from '../accounts/applications.ts';
import { createUser } from '../accounts/users.ts';
import type { Storage } from '../storage/stores.ts';
import { DEMO_APPLICATIONS, DEMO_PORTFOLIOS, DEMO_USER } from './data.ts';

export interface SeededApplication {
  name: string;
  clientId: string;
  /** Shown once: null when the application existed before this run. */
  clientSecret: string | null;
  redirectUris: string[];
  confidential: boolean;
  pkceRequired: boolean;
}

export interface DemoSeedResult {
  user: { email: string; password: string; created: boolean };
  applications: SeededApplication[];
  portfolios: { name: string; created: boolean }[];
}

interface Deps { storage: Storage; clock: Clock; random: RandomSource }

async function demoUser(deps: Deps) {
  const existing = await deps.storage.users.findUserCredentials(DEMO_USER.email);
  if (existing !== undefined) return { id: existing.id, created: false };
  const user = await createUser(deps, DEMO_USER);
  return { id: user.id, created: true };
}

export async function seedDemo(deps: Deps): Promise<DemoSeedResult> {
  const user = await demoUser(deps);

  const ownedApplications = await deps.storage.applications.listApplicationsOwnedBy(user.id);
  const applications: SeededApplication[] = [];
  for (const wanted of DEMO_APPLICATIONS) {
    const found = ownedApplications.find((application) => application.name === wanted.name);
    if (found !== undefined) {
      applications.push({ ...pick(found), clientSecret: null });
      continue;
    }
    const { application, clientSecret } = await registerApplication(deps, { ownerId: user.id, ...wanted });
    applications.push({ ...pick(application), clientSecret });
  }

  const ownedPortfolios = await deps.storage.portfolios.listPortfoliosOwnedBy(user.id);
  const portfolios: DemoSeedResult['portfolios'] = [];
  for (const fields of DEMO_PORTFOLIOS) {
    const exists = ownedPortfolios.some((portfolio) => portfolio.name === fields.name);
    if (!exists) await deps.storage.portfolios.createPortfolio(user.id, fields, deps.clock.now());
    portfolios.push({ name: fields.name, created: !exists });
  }

  return { user: { email: DEMO_USER.email, password: DEMO_USER.password, created: user.created }, applications, portfolios };
}

function pick(application: Omit<SeededApplication, 'clientSecret'>) {
  const { name, clientId, redirectUris, confidential, pkceRequired } = application;
  return { name, clientId, redirectUris, confidential, pkceRequired };
}
