// The Prometheus text exposition format, version 0.0.4: what GET /metrics answers.
// Written here and not by prom-client: Folio's counts were already plain numbers
// handed to it at each scrape, through an object posing as its Histogram; loading
// it (with @opentelemetry/api, for default metrics Folio does not collect) took
// about 3% of a start's CPU, and its labelled inc() sorted, joined and looked up
// the labels of every token issue (docs/performance.md). test/unit/metrics.test.ts
// holds every line to what prom-client writes for the same counts.

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface Sample {
  /** Appended to the family's name, as a histogram's `_bucket`, `_sum` and `_count`. */
  suffix?: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  /** Read at each scrape. */
  samples(): Iterable<Sample>;
}

/** The families in order, each its HELP and TYPE lines and its samples, a blank line between. */
export function exposition(families: readonly MetricFamily[]): string {
  return `${families.map(familyText).join('\n\n')}\n`;
}

function familyText(family: MetricFamily): string {
  const lines = [`# HELP ${family.name} ${escapeText(family.help)}`, `# TYPE ${family.name} ${family.type}`];
  for (const { suffix = '', labels, value } of family.samples()) {
    const pairs = Object.entries(labels).map(([name, labelValue]) => `${name}="${escapeText(labelValue).replace(/"/g, '\\"')}"`);
    lines.push(`${family.name}${suffix}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${valueText(value)}`);
  }
  return lines.join('\n');
}

// The format escapes a backslash and a line feed in HELP text, and a double quote too in a label value.
function escapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function valueText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}

/**
 * A counter of one label, whose values its caller bounds (grant types, error
 * codes); a value appears once it has been counted.
 */
export function labelledCounter(name: string, help: string, label: string): MetricFamily & { inc(value: string): void } {
  const counts = new Map<string, number>();
  return {
    name, help, type: 'counter',
    inc(value) {
      counts.set(value, (counts.get(value) ?? 0) + 1);
    },
    *samples() {
      for (const [value, count] of counts) yield { labels: { [label]: value }, value: count };
    },
  };
}

/** A counter without labels, shown from zero. */
export function counter(name: string, help: string): MetricFamily & { inc(): void } {
  let count = 0;
  return {
    name, help, type: 'counter',
    inc() {
      count++;
    },
    samples: () => [{ labels: {}, value: count }],
  };
}
