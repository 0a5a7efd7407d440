/**
 * The messages that carry statements to the thread owning the embedded database, and answers
 * back. Values cross threads by structured clone, which keeps every type a row holds (Date,
 * Uint8Array, parsed JSON, numbers) as it is.
 */

/** One statement: a query, or a COPY whose rows are given as COPY text. */
export type Statement =
  | { readonly op: 'query'; readonly text: string; readonly params?: readonly unknown[] | undefined }
  | { readonly op: 'copy'; readonly text: string; readonly chunks: readonly string[] };

/** What the worker is started with. */
export interface WorkerOptions {
  readonly dataDir: string;
  /** WAL written between checkpoints (WAL_CHECKPOINT_BYTES unless given). */
  readonly walCheckpointBytes?: number | undefined;
  /** WAL written between ANALYZEs at the least (ANALYZE_MIN_BYTES unless given; see analyze.ts). */
  readonly analyzeMinBytes?: number | undefined;
}

export type WorkerRequest = { readonly id: number } & (Statement | { readonly op: 'close' });

/** A database error as plain data: its message, name and PostgreSQL fields (code, detail...). */
export type ErrorData = { readonly message: string; readonly name?: string } & Record<string, unknown>;

export type WorkerReply =
  | { readonly ready: true }
  | { readonly failed: ErrorData }
  | { readonly id: number; readonly rows: unknown[] }
  | { readonly id: number; readonly error: ErrorData };

export function errorData(error: unknown): ErrorData {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function') continue;
    if (typeof value === 'object' && value !== null) continue;
    fields[key] = value;
  }
  return { ...fields, name: error.name, message: error.message };
}

/** The error again, on this side: an Error with the same message and PostgreSQL fields. */
export function errorFrom(data: ErrorData): Error {
  const { message, name: _name, ...fields } = data;
  return Object.assign(new Error(message), fields);
}
