/*
 * Presentation shared by the command line and the console: how an execution's log reads.
 */

/** What grouping needs of a log line: who logged it and what. */
interface Log {
  readonly message: string;
  readonly nodeID: string;
}

/** One line to show: a log line, or the same message logged by several nodes, shown once. */
export interface LogGroup<L extends Log = Log> {
  /** The first of the lines, which gives the time. */
  readonly first: L;
  /** The nodes that logged it, in the order they did. */
  readonly nodes: readonly string[];
}

/**
 * Log lines by time, where the same message from several nodes (every node runs the workflow and
 * logs what it does) becomes one group at the time of its first line. A node that logs the message
 * again starts a new group, so repeats of one node stay visible. `allNodes` keeps every line apart.
 */
export function groupLogs<L extends Log>(logs: readonly L[], allNodes: boolean): LogGroup<L>[] {
  const groups: Array<{ first: L; nodes: string[] }> = [];
  const open = new Map<string, { first: L; nodes: string[] }>();
  for (const line of logs) {
    const group = allNodes ? undefined : open.get(line.message);
    if (group && !group.nodes.includes(line.nodeID)) {
      group.nodes.push(line.nodeID);
      continue;
    }
    const created = { first: line, nodes: [line.nodeID] };
    groups.push(created);
    open.set(line.message, created);
  }
  return groups;
}
