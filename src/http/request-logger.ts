import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
type LogCall = FastifyBaseLogger['info'];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;

/**
 * A request's logger that makes its pino child (which serialises the request's bindings) on its
 * first call at an enabled level. Above info a request logs only when something goes wrong, yet
 * Fastify makes a child per request and calls `reply.log.info` for each: measured, the child and
 * the later rebinding to the caller's organization were 3-4% of a cheap read's time. Bindings
 * added before the first enabled call are merged into that child when it is made (copying them
 * at each bind was itself 3% of a trivial query's time); after it, they make a child of it.
 */
class DeferredChildLogger {
  private made: FastifyBaseLogger | undefined;
  /** Bindings added before the child was made (most requests add one set: the caller's). */
  private added: Record<string, unknown> | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: ChildOptions,
    private readonly enabled: ReadonlySet<string>,
  ) {}

  get level(): string {
    return this.parent.level;
  }

  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(
      this.added ? { ...this.bindings, ...this.added } : this.bindings,
      this.options,
    );
    return this.made;
  }

  /** Adds `bindings` to every line this request logs from now on. */
  bind(bindings: Record<string, unknown>): void {
    if (this.made) this.made = this.made.child(bindings);
    else this.added = this.added ? { ...this.added, ...bindings } : bindings;
  }

  private log(level: Level, args: Parameters<LogCall>): void {
    if (this.enabled.has(level)) (this.logger[level] as (...a: unknown[]) => void)(...args);
  }

  trace(...args: Parameters<LogCall>): void {
    this.log('trace', args);
  }
  debug(...args: Parameters<LogCall>): void {
    this.log('debug', args);
  }
  info(...args: Parameters<LogCall>): void {
    this.log('info', args);
  }
  warn(...args: Parameters<LogCall>): void {
    this.log('warn', args);
  }
  error(...args: Parameters<LogCall>): void {
    this.log('error', args);
  }
  fatal(...args: Parameters<LogCall>): void {
    this.log('fatal', args);
  }
  silent(): void {}

  child(bindings: Record<string, unknown>, options?: ChildOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

const LEVELS: readonly Level[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/**
 * Fastify's `childLoggerFactory` for `level`: none at info and below, where every request logs
 * its arrival and completion, so its child is made at once (Fastify's own behaviour); above info
 * the child is deferred (DeferredChildLogger).
 */
export function requestLoggerFactory(level: string): ChildLoggerFactory | undefined {
  const from = LEVELS.indexOf(level as Level);
  const enabled = new Set<string>(from < 0 ? [] : LEVELS.slice(from));
  if (enabled.has('info')) return undefined;
  return (logger, bindings, options) =>
    new DeferredChildLogger(logger, bindings, options, enabled) as unknown as FastifyBaseLogger;
}

/** Adds `bindings` (e.g. the caller's organization) to every line the request logs from now on. */
export function bindRequestLogger(
  log: FastifyBaseLogger,
  bindings: Record<string, unknown>,
): FastifyBaseLogger | undefined {
  if (log instanceof DeferredChildLogger) {
    log.bind(bindings);
    return undefined;
  }
  return log.child(bindings);
}
