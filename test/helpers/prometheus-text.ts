/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A scrape: its samples, and each metric family's declared type (`# TYPE`). */
export interface Scrape {
  samples: Sample[];
  types: Map<string, string>;
  /** The one sample of `name` whose labels include `labels`, or undefined. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every series name a query may use: each family, with `_bucket`, `_sum` and `_count` for histograms and summaries. */
  names(): Set<string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusText(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) types.set(type[1] as string, type[2] as string);
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, '$1');
    samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return {
    samples,
    types,
    value(name, labels = {}) {
      return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    },
    names() {
      const out = new Set<string>();
      for (const [name, t] of types) {
        out.add(name);
        if (t === 'histogram' || t === 'summary')
          for (const suffix of ['_bucket', '_sum', '_count']) out.add(`${name}${suffix}`);
      }
      return out;
    },
  };
}

/** Metric names a PromQL expression reads: every identifier of ours (sightline_*) or of the process and HTTP metrics. */
export function metricNamesIn(expr: string): string[] {
  return [
    ...new Set([...expr.matchAll(/\b((?:sightline|http|process|nodejs)_[a-zA-Z0-9_]+)\b/g)].map((m) => m[1] as string)),
  ];
}
