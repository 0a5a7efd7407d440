/** Scraping `GET /metrics` in tests, and reading samples out of the Prometheus text format. */
import { call, type HttpAnswer } from '../http/http-client.js';

export const METRICS_TOKEN = 'the-metrics-token';

export function scrape(url: string, token: string | null = METRICS_TOKEN): Promise<HttpAnswer> {
  return call(`${url}/metrics`, {
    method: 'GET',
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample line of a text-format answer (comments skipped). */
export function samples(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = SAMPLE.exec(line);
    if (!match) return [];
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name!] = value!;
    return [{ name: match[1]!, labels, value: Number(match[3]) }];
  });
}

/** The samples named `name` whose labels include `labels`. */
export function find(all: readonly Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return all.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The sum of the samples `find` returns (0 when none). */
export function total(all: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return find(all, name, labels).reduce((sum, sample) => sum + sample.value, 0);
}
