// Token writes beside a GET load, as a server that issues tokens and serves the
// API at once sees them: client_credentials tokens asked for at a steady rate
// from the benchmark's own process (bench/ab.ts --issuing, and bench/run.ts's
// row of the GET while tokens are issued).

export interface Issuing {
  /** Stops asking, waits for the answers still due, and says how many tokens came back. */
  stop(): Promise<{ issued: number; refused: string[] }>;
}

/** Asks `url`'s token endpoint for `perSecond` client_credentials tokens a second until stopped. */
export function issueTokens(url: string, basicAuthorization: string, perSecond: number): Issuing {
  let issued = 0;
  const refused: string[] = [];
  const pending = new Set<Promise<void>>();
  const issueOne = () => {
    const request: Promise<void> = fetch(`${url}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: basicAuthorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    }).then(async (response) => {
      await response.arrayBuffer();
      if (response.ok) issued++;
      else refused.push(String(response.status));
    }, (error: Error) => { refused.push(error.message); }).finally(() => pending.delete(request));
    pending.add(request);
  };
  const timer = perSecond > 0 ? setInterval(issueOne, 1000 / perSecond) : undefined;
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return { issued, refused };
    },
  };
}
