// Lifetimes fixed by the spec (§3, §8) and DESIGN §2.
const SECOND = 1000;

export const lifetimes = {
  /** spec §8: every access token lives 1800 s. */
  accessToken: 1800 * SECOND,
  /** DESIGN §2: codes live 10 minutes. */
  authorizationCode: 600 * SECOND,
  /** DESIGN §2: refresh tokens die after 90 days unused. */
  refreshTokenIdle: 90 * 24 * 3600 * SECOND,
  /** RFC 9700 §4.14.2: a rotated token seen again this soon is a client race, not theft. */
  refreshRaceWindow: 10 * SECOND,
} as const;
