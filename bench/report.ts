// Medians over rounds, same-run ratios against the baselines, and the table.
import type { LoadResult } from './processes.ts';

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface Row {
  scenario: string;
  backend: string;
  rounds: LoadResult[];
  /** Per-round ratio against the baseline's result in the same round. */
  ratios: number[];
  versus?: string | undefined;
  /** Minimum ratio wanted, if this row has a throughput target. */
  minRatio?: number | undefined;
  /** Highest p99 wanted (ms), if this row has a latency target. */
  maxP99?: number | undefined;
  /** Why rounds did not measure the scenario, one entry a round (the purge ran out, say). */
  spoilt?: string[] | undefined;
}

export interface Check {
  what: string;
  backend: string;
  value: string;
  target: string;
  pass: boolean;
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

export function rowVerdict(row: Row): { target: string; pass: boolean | undefined } {
  const parts: string[] = [];
  let pass: boolean | undefined;
  const both = (ok: boolean) => { pass = (pass ?? true) && ok; };
  // Refusals are cheap: a round that measured some is no measure of the scenario,
  // nor is one whose conditions ended before it did.
  if (failures(row) > 0 || (row.spoilt?.length ?? 0) > 0) both(false);
  if (row.minRatio !== undefined) {
    parts.push(`≥ ${row.minRatio}× ${row.versus}`);
    both(median(row.ratios) >= row.minRatio);
  }
  if (row.maxP99 !== undefined) {
    parts.push(`p99 ≤ ${row.maxP99} ms`);
    both(median(row.rounds.map((round) => round.p99)) <= row.maxP99);
  }
  return { target: parts.join('; ') || '—', pass };
}

export function renderTable(rows: Row[], checks: Check[]): string {
  const lines = [
    '| scenario | backend | req/s (median) | p50 ms | p99 ms | ratio | target | result |',
    '|---|---|---:|---:|---:|---:|---|---|',
  ];
  for (const row of rows) {
    const { target, pass } = rowVerdict(row);
    const ratio = row.ratios.length > 0 ? `${fixed(median(row.ratios), 2)}× ${row.versus}` : '—';
    lines.push(`| ${row.scenario} | ${row.backend} | ${fixed(median(row.rounds.map((round) => round.rps)))} | ` +
      `${fixed(median(row.rounds.map((round) => round.p50)), 1)} | ${fixed(median(row.rounds.map((round) => round.p99)), 1)} | ` +
      `${ratio} | ${target} | ${resultCell(row, pass)} |`);
  }
  if (checks.length > 0) {
    lines.push('', '| check | backend | measured | target | result |', '|---|---|---:|---|---|');
    for (const check of checks) {
      lines.push(`| ${check.what} | ${check.backend} | ${check.value} | ${check.target} | ${check.pass ? 'pass' : 'FAIL'} |`);
    }
  }
  return lines.join('\n');
}

function resultCell(row: Row, pass: boolean | undefined): string {
  const failed = failures(row);
  if (failed > 0) return `FAIL: ${failed} answers not 2xx`;
  const spoilt = row.spoilt ?? [];
  if (spoilt.length > 0) return `FAIL: ${[...new Set(spoilt)].join('; ')} (${spoilt.length} of ${row.rounds.length} rounds)`;
  return pass === undefined ? '' : pass ? 'pass' : 'FAIL';
}

/** Requests that were not answered 2xx (errors, timeouts, other statuses), over all rounds. */
export function failures(row: Row): number {
  return row.rounds.reduce((sum, round) => sum + round.non2xx + round.errors + round.timeouts, 0);
}
