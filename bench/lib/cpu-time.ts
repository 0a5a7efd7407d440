import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time spent by the processes of a benchmark, read from /proc (Linux): what a side-by-side
 * throughput ratio cannot show on a shared machine, where other work moves the records/s of
 * every round, is what each arm costs in CPU per record and in which process.
 */

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** User plus system CPU time of a process (all its threads) in ms, or undefined once it is gone. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * The CPU time of the PostgreSQL backends connected to one database, summed over every backend
 * seen so far (a backend that has exited keeps what it had used at its last reading).
 */
export class DatabaseCpu {
  private readonly used = new Map<number, number>();

  constructor(private readonly database: string) {}

  /** The backends of the database a connection string names. */
  static of(url: string): DatabaseCpu {
    return new DatabaseCpu(new URL(url).pathname.slice(1));
  }

  /** Milliseconds used so far by the database's backends. */
  read(): number {
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || !(this.used.has(pid) || this.isBackend(pid))) continue;
      const ms = processCpuMs(pid);
      if (ms !== undefined) this.used.set(pid, ms);
    }
    let total = 0;
    for (const ms of this.used.values()) total += ms;
    return total;
  }

  /** A backend's title is `postgres: [<cluster>: ]<user> <database> <client> <state>`. */
  private isBackend(pid: number): boolean {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return title.startsWith('postgres: ') && title.split(' ').slice(1, 5).includes(this.database);
    } catch {
      return false;
    }
  }
}
