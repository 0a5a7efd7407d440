import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';
import { navigate } from '../route.js';
import { formatAgo, formatLocal, formatUtc } from '../time.js';

/** An instant in the viewer's zone (UTC on hover), with how long ago when `relative`. */
export function Time({
  iso,
  short,
  relative,
}: {
  iso: string | null | undefined;
  short?: boolean;
  relative?: boolean;
}) {
  if (!iso) return <span class="muted">–</span>;
  return (
    <>
      <time dateTime={iso} title={formatUtc(iso)}>
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

/** Latest runs as a strip of marks coloured by outcome, oldest left. */
export function RunStrip({
  runs,
}: {
  runs: ReadonlyArray<{ uuid: string; status: string; startedAt: string }>;
}) {
  const ordered = [...runs].reverse();
  return (
    <span class="strip" role="img" aria-label={`latest ${runs.length} runs: ${summarize(runs)}`}>
      {ordered.map((run) => (
        <span
          key={run.uuid}
          class={`mark ${toneOf(run.status)}`}
          title={`${run.status} ${formatUtc(run.startedAt)}`}
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
