/** Helpers for talking to POST /ingest over real HTTP in tests. */
import { randomBytes } from 'node:crypto';

export const INGEST_TOKEN = `ingest-${randomBytes(8).toString('hex')}`;

export interface IngestAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  body: any;
}

export const ndjson = (records: readonly unknown[]): string =>
  records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

/** POST /ingest with the test token (or the given headers) and a body of records or raw lines. */
export async function postIngest(
  url: string,
  body: string | Uint8Array | readonly unknown[],
  headers: Record<string, string> = {},
): Promise<IngestAnswer> {
  const response = await fetch(`${url}/ingest`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${INGEST_TOKEN}`,
      'content-type': 'application/x-ndjson',
      ...headers,
    },
    body: Array.isArray(body) ? ndjson(body) : (body as BodyInit),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: response.status, headers: response.headers, body: parsed };
}
