export const EXPORT_FORMATS = ['ndjson', 'csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

type Row = Readonly<Record<string, unknown>>;

/** Text for the start, each record and the end of one export; each run's output is complete in itself. */
export interface RecordEncoder {
  begin(): string;
  record(row: Row): string;
  end(): string;
}

/** A CSV cell per RFC 4180: nested values as JSON, null as empty, quoted when it must be. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

export function encoderFor(format: ExportFormat, columns: readonly string[]): RecordEncoder {
  switch (format) {
    case 'ndjson':
      return { begin: () => '', record: (row) => `${JSON.stringify(row)}\n`, end: () => '' };
    case 'csv':
      return {
        begin: () => `${columns.map(csvCell).join(',')}\r\n`,
        record: (row) => `${columns.map((column) => csvCell(row[column])).join(',')}\r\n`,
        end: () => '',
      };
    case 'json': {
      let any = false;
      return {
        begin: () => '[',
        record: (row) => {
          const separator = any ? ',\n' : '\n';
          any = true;
          return `${separator}${JSON.stringify(row)}`;
        },
        end: () => (any ? '\n]\n' : ']\n'),
      };
    }
  }
}
