// The types of bench/issuing.mjs, plain JavaScript for the load worker, for bench/lone-requests.ts.
export interface Issuing {
  url: string;
  path: string;
  headers: Record<string, string>;
  /** Without one, a GET. */
  body?: string;
  perSecond: number;
}

/** Starts sending; stop() waits for the answers still due: how many were 2xx, and what each other one was. */
export function startIssuing(issuing: Issuing): { stop(): Promise<{ issued: number; refused: string[] }> };
