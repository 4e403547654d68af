// The benchmark's table must not pass a scenario on the speed of its refusals, nor on
// rounds that measured something else: answers not all 2xx, or a purge that ran out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoadResult } from '../../bench/processes.ts';
import { renderTable, rowVerdict, type Row } from '../../bench/report.ts';

function round(rps: number, refused = 0): LoadResult {
  return { requests: rps * 5, rps, p50: 1, p99: 5, errors: 0, timeouts: 0, non2xx: refused, statuses: refused > 0 ? { 400: refused } : {} };
}

function row(rounds: LoadResult[], ratios: number[]): Row {
  return { scenario: 'POST /oauth2/token client_credentials', backend: 'SQLite', rounds, ratios, versus: 'oidc-provider token', minRatio: 1.5 };
}

describe('bench report', () => {
  it('passes a row on its ratio when every answer was 2xx', () => {
    assert.equal(rowVerdict(row([round(30_000), round(31_000)], [2.5, 2.6])).pass, true);
    assert.equal(rowVerdict(row([round(10_000), round(11_000)], [1.2, 1.3])).pass, false);
  });

  it('fails a row with refused answers whatever its ratio, and says how many', () => {
    const refused = row([round(30_000), round(25_000, 120_000)], [2.5, 2.2]);
    assert.equal(rowVerdict(refused).pass, false);
    assert.match(renderTable([refused], []), /\| FAIL: 120000 answers not 2xx \|$/m);
  });

  it('fails a row with rounds that did not measure the scenario, and says why', () => {
    const purge: Row = { scenario: 'bearer GET during a purge of dead ones', backend: 'PostgreSQL', rounds: [round(20_000), round(20_000)],
      ratios: [1.0, 0.99], versus: '1,000 tokens', minRatio: 0.9, spoilt: ['the purge ended before the measurement did'] };
    assert.equal(rowVerdict(purge).pass, false);
    assert.match(renderTable([purge], []), /\| FAIL: the purge ended before the measurement did \(1 of 2 rounds\) \|$/m);
    assert.equal(rowVerdict({ ...purge, spoilt: [] }).pass, true);
  });
});
