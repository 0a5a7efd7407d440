export const GRAPHQL_RESPONSE = 'application/graphql-response+json';
export const JSON_TYPE = 'application/json';
export type ResponseMediaType = typeof GRAPHQL_RESPONSE | typeof JSON_TYPE;

/**
 * Picks the response media type per GraphQL over HTTP: the client's preferred of the two we
 * speak (by q, then order); no Accept header means application/json; undefined when neither is
 * acceptable.
 */
export function negotiate(accept: string | undefined): ResponseMediaType | undefined {
  if (!accept || accept.trim() === '') return JSON_TYPE;
  // The headers clients send most, answered without parsing.
  if (accept === JSON_TYPE || accept === '*/*') return JSON_TYPE;
  if (accept === GRAPHQL_RESPONSE) return GRAPHQL_RESPONSE;
  let best: { type: ResponseMediaType; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [rawType, ...params] = part.trim().toLowerCase().split(';');
    const type = rawType?.trim();
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    let candidate: ResponseMediaType | undefined;
    if (type === GRAPHQL_RESPONSE) candidate = GRAPHQL_RESPONSE;
    else if (type === JSON_TYPE || type === '*/*' || type === 'application/*') candidate = JSON_TYPE;
    if (candidate && (!best || q > best.q)) best = { type: candidate, q };
  }
  return best?.type;
}

/** Whether a request's Content-Type is application/json, with or without parameters (`; charset=utf-8`). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === JSON_TYPE) return true;
  return header?.split(';')[0]?.trim().toLowerCase() === JSON_TYPE;
}
