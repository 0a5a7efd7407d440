/** K fragments, each spreading the next twice: 2^K selections once expanded, about 36 bytes per fragment. */
export function fragmentChain(k: number, tag = ''): string {
  const links = Array.from({ length: k }, (_, i) => `fragment F${i} on Query{...F${i + 1} ...F${i + 1}}`);
  return `query${tag ? ` ${tag}` : ''}{...F0} ${links.join(' ')} fragment F${k} on Query{__typename}`;
}
