// The signed-in person's pages: home, portfolios, application settings,
// connected applications, activity, and the public developer guide. Browser
// pages: sessions and cookies, CSRF on every form (page-guard.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../../platform/clock.ts';
import type { RandomSource } from '../../platform/random.ts';
import type { Storage } from '../../storage/stores.ts';
import { registerActivity } from '../routes/activity.ts';
import { registerApplicationSettings } from '../routes/application-settings.ts';
import { registerConnections } from '../routes/connections.ts';
import { registerDeveloperGuide } from '../routes/developers.ts';
import { registerHome } from '../routes/home.ts';
import { registerPortfolioPages } from '../routes/portfolios.ts';
import { type Sessions, registerSessionCookies } from '../sessions.ts';

export interface WebPagesDeps {
  storage: Storage;
  sessions: Sessions;
  clock: Clock;
  random: RandomSource;
  baseUrl: string;
}

export const webPages: FastifyPluginAsync<WebPagesDeps> = async (app, { storage, sessions, clock, random, baseUrl }) => {
  await registerSessionCookies(app);
  registerHome(app, { sessions });
  registerPortfolioPages(app, { portfolios: storage.portfolios, sessions, clock });
  registerApplicationSettings(app, { storage, sessions, clock, random });
  registerConnections(app, { storage, sessions, clock });
  registerActivity(app, { storage, sessions });
  registerDeveloperGuide(app, { baseUrl });
};
