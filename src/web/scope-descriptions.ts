// What each scope lets an application do, in the words the consent and connections pages use.
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  read: 'Read your portfolios and their settings, and your name and email',
};

export function describeScope(scope: string): string {
  return SCOPE_DESCRIPTIONS[scope] ?? scope;
}
