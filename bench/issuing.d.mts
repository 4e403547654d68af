// The types of bench/issuing.mjs, plain JavaScript for the load worker, for its test.
export interface Issuing {
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  perSecond: number;
}

/** Starts sending; stop() waits for the answers still due: how many were 2xx, and what each other one was. */
export function startIssuing(issuing: Issuing): { stop(): Promise<{ issued: number; refused: string[] }> };
