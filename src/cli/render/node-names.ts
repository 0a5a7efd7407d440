/** Node ids longer than this are shown by their start and a distinguishing end. */
const LONG_NODE_ID = 16;

/**
 * Short names of a set of nodes (those of one execution, or of one listing): an id such as a 52-character peer id becomes its
 * first 4 characters, an ellipsis and the shortest end (at least 6) that no other node shares.
 */
export function shortNodeNames(nodes: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const node of nodes) {
    if (node.length <= LONG_NODE_ID) {
      names.set(node, node);
      continue;
    }
    let end = 6;
    while (end < node.length - 4 && nodes.some((other) => other !== node && other.endsWith(node.slice(-end))))
      end++;
    names.set(node, end >= node.length - 4 ? node : `${node.slice(0, 4)}…${node.slice(-end)}`);
  }
  return names;
}
