import type { Summary } from './lib/stats.js';

export interface ResultRow {
  readonly query: string;
  readonly concurrency: number;
  readonly http: Summary;
  /** The same SQL statements replayed straight through the driver: this query's ceiling. */
  readonly sql: Summary;
  readonly statements: number;
  readonly p99TargetMs: number;
  /**
   * CPU time a request over HTTP cost the server process and PostgreSQL's backends for the
   * dataset's database, in µs (absent in results recorded before they were measured).
   */
  readonly cpuMicros?: { readonly server: number; readonly database: number };
}

export interface IngestFigures {
  readonly executionsPerSecond: number;
  readonly logLinesPerSecond: number;
  /** The database's own bulk load (COPY) of the same execution rows. */
  readonly bulkLoadExecutionsPerSecond: number;
  readonly bulkLoadLogLinesPerSecond: number;
}

export interface BenchResult {
  readonly command: string;
  readonly date: string;
  readonly machine: { cpus: number; node: string };
  readonly dataset: Record<string, number>;
  readonly ingest: IngestFigures | undefined;
  readonly peakRssMb: number;
  readonly rows: readonly ResultRow[];
}

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '-');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const pct = (n: number) => (Number.isFinite(n) ? `${n.toFixed(0)}%` : '-');

export function renderMarkdown(result: BenchResult): string {
  const trivial = new Map(
    result.rows.filter((r) => r.query.startsWith('trivial')).map((r) => [r.concurrency, r.http.rps]),
  );
  const lines = [
    `Measured ${result.date} on ${result.machine.cpus} cores, Node ${result.machine.node}, PostgreSQL; dataset ${Object.entries(
      result.dataset,
    )
      .map(([k, v]) => `${v.toLocaleString('en-US')} ${k}`)
      .join(', ')}. Command: \`${result.command}\`.`,
    '',
    '| query | conn | req/s | p50 ms | p99 ms | p99 target | SQL ceiling req/s | % of SQL ceiling | % of trivial | % of its ceiling | server CPU µs/req | PostgreSQL CPU µs/req | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...result.rows.map((r) => {
      const trivialRps = trivial.get(r.concurrency) ?? Number.NaN;
      const ofSql = (100 * r.http.rps) / r.sql.rps;
      const ofTrivial = (100 * r.http.rps) / trivialRps;
      // A query's ceiling is the lower of the two: its SQL alone, or the stack alone.
      const ofCeiling = (100 * r.http.rps) / Math.min(r.sql.rps || Number.POSITIVE_INFINITY, trivialRps);
      const met = r.http.p99 <= r.p99TargetMs ? '' : ' ✗';
      return `| ${r.query} | ${r.concurrency} | ${f0(r.http.rps)} | ${f1(r.http.p50)} | ${f1(r.http.p99)}${met} | ${r.p99TargetMs} | ${f0(r.sql.rps)} | ${pct(ofSql)} | ${pct(ofTrivial)} | ${pct(ofCeiling)} | ${f0(r.cpuMicros?.server ?? Number.NaN)} | ${f0(r.cpuMicros?.database ?? Number.NaN)} | ${r.http.errors} |`;
    }),
    '',
    `Peak server resident memory through the run: ${f0(result.peakRssMb)} MB.`,
  ];
  if (result.ingest) {
    const i = result.ingest;
    lines.push(
      '',
      '| ingestion | via POST /ingest (records/s) | database bulk load, COPY (rows/s) | ratio |',
      '|---|---:|---:|---:|',
      `| executions | ${f0(i.executionsPerSecond)} | ${f0(i.bulkLoadExecutionsPerSecond)} | ${f0((100 * i.executionsPerSecond) / i.bulkLoadExecutionsPerSecond)}% |`,
      `| log lines | ${f0(i.logLinesPerSecond)} | ${f0(i.bulkLoadLogLinesPerSecond)} | ${f0((100 * i.logLinesPerSecond) / i.bulkLoadLogLinesPerSecond)}% |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
