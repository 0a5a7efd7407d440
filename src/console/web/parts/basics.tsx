import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';
import { href, navigate } from '../route.js';
import { formatAgo, formatLocal, formatOtherZone } from '../time.js';

/**
 * An instant in the zone the header's toggle chooses (the viewer's, or UTC), the other zone on
 * hover; with `relative` how long ago follows it. `ago` shows only how long ago ("5 min ago"),
 * the absolute time on hover.
 */
export function Time({
  iso,
  short,
  relative,
  ago,
}: {
  iso: string | null | undefined;
  short?: boolean;
  relative?: boolean;
  ago?: boolean;
}) {
  if (!iso) return <span class="muted">–</span>;
  if (ago) {
    return (
      <time dateTime={iso} title={formatLocal(iso)} data-ago>
        {formatAgo(iso)}
      </time>
    );
  }
  return (
    <>
      <time dateTime={iso} title={formatOtherZone(iso)}>
        {formatLocal(iso, short)}
      </time>
      {relative && <span class="muted"> ({formatAgo(iso)})</span>}
    </>
  );
}

/** A button that copies a value (an id, a uuid) to the clipboard and says so. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | undefined>(undefined);
  return (
    <button
      type="button"
      class="copy-button"
      aria-label={label}
      title={label}
      data-copy={value}
      onClick={() => {
        navigator.clipboard?.writeText(value).then(
          () => setDone('copied'),
          () => setDone('failed'),
        );
        setTimeout(() => setDone(undefined), 2000);
      }}
    >
      {done === 'copied' ? 'copied' : done === 'failed' ? 'select to copy' : 'copy'}
    </button>
  );
}

/** A link inside the console: a plain left click changes the view without reloading. */
export function Link({ href, children, ...rest }: JSX.HTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}

const STATUS_TONE: Record<string, string> = {
  SUCCESS: 'good',
  COMPLETED: 'good',
  ACTIVE: 'good',
  FAILURE: 'bad',
  FAILED: 'bad',
  USER_ERROR: 'bad',
  SYSTEM_ERROR: 'bad',
  IN_PROGRESS: 'busy',
  TRIGGERED: 'busy',
  PENDING: 'busy',
  PAUSED: 'quiet',
  DELETED: 'quiet',
};

export function toneOf(status: string): string {
  return STATUS_TONE[status] ?? 'quiet';
}

export function Status({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">–</span>;
  return <span class={`status ${toneOf(value)}`}>{value}</span>;
}

export function ErrorNote({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="error-note" role="alert">
      {message}
    </p>
  );
}

export function Section({
  title,
  children,
  actions,
  id,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
  id?: string;
}) {
  return (
    <section class="card" aria-labelledby={id ? `${id}-title` : undefined} data-section={id}>
      <header class="card-head">
        <h2 id={id ? `${id}-title` : undefined}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** A figure with its label, e.g. "Failure rate 4.2 %". */
export function Figure({ label, value, name }: { label: string; value: ComponentChildren; name: string }) {
  return (
    <div class="figure">
      <div class="figure-label">{label}</div>
      <div class="figure-value" data-figure={name}>
        {value}
      </div>
    </div>
  );
}

export function Pager({
  page,
  size,
  count,
  hrefOf,
  noun,
}: {
  page: number;
  size: number;
  count: number;
  hrefOf: (page: number) => string;
  noun: string;
}) {
  const pages = Math.max(1, Math.ceil(count / size));
  return (
    <nav class="pager" aria-label={`Pages of ${noun}`}>
      {page > 0 ? <Link href={hrefOf(page - 1)}>← Previous</Link> : <span class="muted">← Previous</span>}
      <span data-pager>
        page {Math.min(page + 1, pages)} of {pages} · {count} {noun}
      </span>
      {page + 1 < pages ? <Link href={hrefOf(page + 1)}>Next →</Link> : <span class="muted">Next →</span>}
    </nav>
  );
}

/**
 * Latest runs as a strip of marks coloured by outcome, oldest left; each mark is a link to its
 * execution, named by its status and start (the strip's summary is said once before them).
 */
export function RunStrip({
  runs,
  keep = {},
}: {
  runs: ReadonlyArray<{ uuid: string; status: string; startedAt: string }>;
  /** What the execution's address keeps of the current one (the window). */
  keep?: Record<string, string | undefined>;
}) {
  const ordered = [...runs].reverse();
  return (
    <span class="strip" data-strip>
      <span class="visually-hidden">
        latest {runs.length} runs: {summarize(runs)}.
      </span>
      {ordered.map((run) => (
        <Link
          key={run.uuid}
          href={href('execution', { uuid: run.uuid, ...keep })}
          class={`mark ${toneOf(run.status)}`}
          title={`${run.status} ${formatLocal(run.startedAt)}`}
          aria-label={`${run.status} run started ${formatLocal(run.startedAt)}`}
          data-run={run.uuid}
        />
      ))}
    </span>
  );
}

function summarize(runs: ReadonlyArray<{ status: string }>): string {
  const counts = new Map<string, number>();
  for (const run of runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} ${status}`).join(', ') || 'none';
}

/** A small trend line of counts (an inline SVG: no chart needed at this size). */
export function Sparkline({ values, label }: { values: readonly number[]; label: string }) {
  const width = 120;
  const height = 24;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const points = values.map(
    (v, i) => `${(i * step).toFixed(1)},${(height - 2 - (v / max) * (height - 4)).toFixed(1)}`,
  );
  return (
    <svg
      class="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      <polyline points={points.join(' ')} fill="none" stroke="currentColor" stroke-width="1.5" />
    </svg>
  );
}
