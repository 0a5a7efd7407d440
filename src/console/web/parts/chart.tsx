import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useDark } from '../theme.js';
import { formatCount, formatLocal, formatOtherZone } from '../time.js';
import { memo } from './memo.js';

export interface ChartSeries {
  readonly label: string;
  readonly values: ReadonlyArray<number | null>;
  /** Light and dark colours. */
  readonly color: readonly [string, string];
  readonly kind: 'bars' | 'line';
}

/** A bucket as the API answers it: `[from, to)`. */
export interface ChartBucket {
  readonly from: string;
  readonly to: string;
}

/**
 * Where verdicts will be drawn (contract section 7, `deploymentImpact` and `anomalies`, merged
 * from another branch): `markers` are vertical lines at instants (a deployment, with its label
 * and tone), `band` is the expected range per bucket, drawn behind the series. Both are optional
 * and drawn on the same time and value scales as the series, so a view passes them once the
 * queries exist, with no change here.
 */
export interface ChartVerdicts {
  readonly markers?: ReadonlyArray<{
    readonly at: string;
    readonly label: string;
    readonly tone?: 'good' | 'bad';
  }>;
  readonly band?: {
    readonly label: string;
    readonly lower: ReadonlyArray<number | null>;
    readonly upper: ReadonlyArray<number | null>;
    /** Buckets whose value lies outside the band, and on which side: marked, and named in words. */
    readonly anomalous?: ReadonlyArray<'above' | 'below' | null>;
  };
}

export interface ChartProps extends ChartVerdicts {
  /** What the chart shows, for screen readers (the table below it has the figures). */
  readonly label: string;
  readonly buckets: readonly ChartBucket[];
  readonly series: readonly ChartSeries[];
  readonly format?: (value: number) => string;
  readonly height?: number;
  /** Bars of later series are stacked on the earlier ones. */
  readonly stacked?: boolean;
  /** The window the view states: a bucket that starts before it is marked as such. */
  readonly window?: { readonly from: string; readonly to: string };
  /** When the data was read: the bucket holding this instant is still filling, drawn as partial. */
  readonly asOf?: string;
  /** A range chosen by dragging across buckets (or Shift+arrows then Enter): the view's new window. */
  readonly onSelect?: (range: { from: string; to: string }) => void;
}

const MARGIN = { left: 52, right: 8, top: 8, bottom: 22 };

/** 0, then up to 4 round steps reaching at least `max`. */
function ticksFor(max: number): number[] {
  if (max <= 0) return [0, 1];
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const ticks = [];
  for (let v = 0; v < max + step; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/**
 * A time chart in SVG, bars stacked in series order or lines, each bucket's bar filling its width.
 * Hovering, tapping or focusing a bucket (the chart is one Tab stop; arrows move, Home and End
 * jump) shows its values in the readout above; dragging across buckets, or Shift+arrows then
 * Enter, chooses that range. The bucket still filling is hatched and named as partial. It marks
 * itself `data-drawn` once laid out at its width (tests and the benchmark wait for that).
 */
export const Chart = memo(ChartDrawing);

function ChartDrawing({
  label,
  buckets,
  series,
  format = formatCount,
  height = 200,
  stacked,
  window,
  asOf,
  onSelect,
  markers,
  band,
}: ChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  const dark = useDark();
  const [width, setWidth] = useState(0);
  const [active, setActive] = useState<number | undefined>(undefined);
  const [anchor, setAnchor] = useState<number | undefined>(undefined);
  const [drag, setDrag] = useState<{ start: number; end: number; x0: number; moved: boolean } | undefined>();
  useLayoutEffect(() => {
    const element = holder.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const resize = new ResizeObserver(() => setWidth(element.clientWidth));
    resize.observe(element);
    return () => resize.disconnect();
  }, []);
  useEffect(() => {
    if (width > 0) holder.current?.setAttribute('data-drawn', 'true');
  });
  const n = buckets.length;
  const t0 = n ? Date.parse(buckets[0]!.from) : 0;
  const t1 = n ? Date.parse(buckets[n - 1]!.to) : 1;
  const plotWidth = Math.max(10, width - MARGIN.left - MARGIN.right);
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const x = (t: number) => MARGIN.left + ((t - t0) / Math.max(1, t1 - t0)) * plotWidth;
  const totals = buckets.map((_, i) =>
    stacked
      ? series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)
      : Math.max(0, ...series.map((s) => s.values[i] ?? 0)),
  );
  const bandMax = band ? Math.max(0, ...band.upper.map((v) => v ?? 0)) : 0;
  const ticks = ticksFor(Math.max(0, bandMax, ...totals));
  const top = ticks[ticks.length - 1] || 1;
  const y = (v: number) => MARGIN.top + plotHeight - (v / top) * plotHeight;
  const asOfMs = asOf ? Date.parse(asOf) : Date.now();
  const partial = (i: number) => Date.parse(buckets[i]!.to) > asOfMs;
  const early = (i: number) => window !== undefined && Date.parse(buckets[i]!.from) < Date.parse(window.from);
  const colour = (s: ChartSeries) => (dark ? s.color[1] : s.color[0]);
  const text = dark ? '#c9d1d9' : '#24292f';
  const grid = dark ? '#30363d' : '#e5e7eb';
  const indexAt = (clientX: number) => {
    const box = holder.current?.getBoundingClientRect();
    if (!box || n === 0) return 0;
    const t = t0 + ((clientX - box.left - MARGIN.left) / plotWidth) * (t1 - t0);
    const found = buckets.findIndex((b) => t < Date.parse(b.to));
    return found === -1 ? n - 1 : Math.max(0, found);
  };
  const choose = (a: number, b: number) => {
    const [from, to] = [Math.min(a, b), Math.max(a, b)];
    onSelect?.({ from: buckets[from]!.from, to: buckets[to]!.to });
  };
  const onKey = (event: KeyboardEvent) => {
    if (n === 0) return;
    const at = active ?? n - 1;
    const move: Record<string, number> = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: n - 1 };
    if (event.key in move) {
      event.preventDefault();
      const next = Math.min(n - 1, Math.max(0, move[event.key]!));
      setAnchor(event.shiftKey ? (anchor ?? at) : undefined);
      setActive(next);
    } else if (event.key === 'Enter' && onSelect) {
      event.preventDefault();
      choose(anchor ?? at, at);
    } else if (event.key === 'Escape') {
      setAnchor(undefined);
    }
  };
  const selection = drag?.moved
    ? [Math.min(drag.start, drag.end), Math.max(drag.start, drag.end)]
    : anchor !== undefined && active !== undefined
      ? [Math.min(anchor, active), Math.max(anchor, active)]
      : undefined;
  const bandText = (i: number) => {
    const lo = band?.lower[i];
    const hi = band?.upper[i];
    return lo === null || lo === undefined || hi === null || hi === undefined
      ? ''
      : `expected ${format(lo)} – ${format(hi)}`;
  };
  const unusual = (i: number) => band?.anomalous?.[i] ?? null;
  const readout = (i: number) => {
    const b = buckets[i]!;
    const values = series.map(
      (s) =>
        `${s.label} ${s.values[i] === null || s.values[i] === undefined ? '–' : format(s.values[i] as number)}`,
    );
    const notes = [
      bandText(i),
      unusual(i) ? `unusual: ${unusual(i)} the expected range` : '',
      partial(i) ? 'in progress, partial' : '',
      early(i) ? 'starts before the window' : '',
    ].filter(Boolean);
    return `${formatLocal(b.from, true)} – ${formatLocal(b.to, true)}: ${values.join(', ')}${notes.length ? ` (${notes.join('; ')})` : ''}`;
  };
  const labelEvery = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(plotWidth / 90))));
  const linePath = (values: ReadonlyArray<number | null>) => {
    let d = '';
    let pen = false;
    values.forEach((v, i) => {
      if (v === null || v === undefined) {
        pen = false;
        return;
      }
      const b = buckets[i]!;
      const cx = (x(Date.parse(b.from)) + x(Date.parse(b.to))) / 2;
      d += `${pen ? 'L' : 'M'}${cx.toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    return d;
  };
  const readoutId = `readout-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <figure class="chart">
      <p class="chart-readout" id={readoutId} aria-live="polite" data-readout>
        {active !== undefined && n > 0 ? (
          readout(active)
        ) : (
          <span class="muted">
            Hover, tap or focus the chart for a bucket's values
            {onSelect ? '; drag across buckets (or Shift+arrows, Enter) to make them the window' : ''}.
          </span>
        )}
      </p>
      {/* biome-ignore lint/a11y/useSemanticElements: a chart with keyboard navigation of its buckets */}
      <div
        ref={holder}
        class="chart-canvas"
        role="group"
        aria-roledescription="chart"
        aria-label={`${label}. Arrow keys move between buckets.`}
        aria-describedby={readoutId}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the chart is one Tab stop; arrows move between buckets
        tabIndex={0}
        onKeyDown={onKey}
        onFocus={() => setActive((a) => a ?? (n > 0 ? n - 1 : undefined))}
        onPointerDown={(event) => {
          const i = indexAt(event.clientX);
          setActive(i);
          if (onSelect) {
            setDrag({ start: i, end: i, x0: event.clientX, moved: false });
            (event.currentTarget as HTMLElement).setPointerCapture?.(event.pointerId);
          }
        }}
        onPointerMove={(event) => {
          const i = indexAt(event.clientX);
          setActive(i);
          if (drag) setDrag({ ...drag, end: i, moved: drag.moved || Math.abs(event.clientX - drag.x0) > 6 });
        }}
        onPointerUp={() => {
          if (drag?.moved) choose(drag.start, drag.end);
          setDrag(undefined);
        }}
        onPointerCancel={() => setDrag(undefined)}
        onPointerLeave={() => !drag && setActive(undefined)}
      >
        {width > 0 && (
          <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} aria-hidden="true">
            <defs>
              {series.map((s, k) => (
                <pattern
                  key={s.label}
                  id={`hatch-${readoutId}-${k}`}
                  width="6"
                  height="6"
                  patternUnits="userSpaceOnUse"
                  patternTransform="rotate(45)"
                >
                  <rect width="6" height="6" fill={colour(s)} opacity="0.35" />
                  <line x1="0" y1="0" x2="0" y2="6" stroke={colour(s)} stroke-width="3" />
                </pattern>
              ))}
            </defs>
            {ticks.map((v) => (
              <g key={v}>
                <line x1={MARGIN.left} x2={MARGIN.left + plotWidth} y1={y(v)} y2={y(v)} stroke={grid} />
                <text x={MARGIN.left - 6} y={y(v) + 4} text-anchor="end" font-size="11" fill={text}>
                  {format(v)}
                </text>
              </g>
            ))}
            {band && (
              <path
                data-band={band.label}
                fill={dark ? '#58a6ff' : '#0969da'}
                opacity="0.15"
                d={buckets
                  .map((b, i) => {
                    const lo = band.lower[i];
                    const hi = band.upper[i];
                    return lo === null || lo === undefined || hi === null || hi === undefined
                      ? ''
                      : `M${x(Date.parse(b.from))},${y(hi)}H${x(Date.parse(b.to))}V${y(lo)}H${x(Date.parse(b.from))}Z`;
                  })
                  .join('')}
              />
            )}
            {selection && n > 0 && (
              <rect
                class="chart-selection"
                x={x(Date.parse(buckets[selection[0]!]!.from))}
                width={
                  x(Date.parse(buckets[selection[1]!]!.to)) - x(Date.parse(buckets[selection[0]!]!.from))
                }
                y={MARGIN.top}
                height={plotHeight}
                fill={dark ? '#58a6ff' : '#0969da'}
                opacity="0.18"
              />
            )}
            {active !== undefined && n > 0 && (
              <rect
                x={x(Date.parse(buckets[active]!.from))}
                width={Math.max(1, x(Date.parse(buckets[active]!.to)) - x(Date.parse(buckets[active]!.from)))}
                y={MARGIN.top}
                height={plotHeight}
                fill={grid}
                opacity="0.6"
              />
            )}
            {buckets.map((b, i) => {
              const left = x(Date.parse(b.from));
              const right = x(Date.parse(b.to));
              const gap = right - left > 4 ? 1 : 0;
              let base = 0;
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: buckets are in time order
                <g key={i} data-bucket={i} data-partial={partial(i) ? 'true' : undefined}>
                  {series.map((s, k) => {
                    if (s.kind !== 'bars') return null;
                    const v = s.values[i] ?? 0;
                    const bottom = stacked ? base : 0;
                    if (stacked) base += v;
                    if (v <= 0) return null;
                    return (
                      <rect
                        key={s.label}
                        x={left + gap}
                        width={Math.max(1, right - left - 2 * gap)}
                        y={y(bottom + v)}
                        height={Math.max(1, y(bottom) - y(bottom + v))}
                        fill={partial(i) ? `url(#hatch-${readoutId}-${k})` : colour(s)}
                        opacity={early(i) ? 0.55 : 1}
                      />
                    );
                  })}
                </g>
              );
            })}
            {series.map((s) =>
              s.kind === 'line' ? (
                <path key={s.label} d={linePath(s.values)} fill="none" stroke={colour(s)} stroke-width="2" />
              ) : null,
            )}
            {(markers ?? []).map((m) => {
              const at = x(Date.parse(m.at));
              if (at < MARGIN.left || at > MARGIN.left + plotWidth) return null;
              return (
                <g key={`${m.at}${m.label}`} data-marker={m.label}>
                  <line
                    x1={at}
                    x2={at}
                    y1={MARGIN.top}
                    y2={MARGIN.top + plotHeight}
                    stroke={m.tone === 'bad' ? (dark ? '#ff7b72' : '#cf222e') : text}
                    stroke-dasharray="4 3"
                  />
                  <title>{m.label}</title>
                </g>
              );
            })}
            {buckets.map((b, i) => {
              const side = unusual(i);
              if (!side) return null;
              const cx = (x(Date.parse(b.from)) + x(Date.parse(b.to))) / 2;
              const tip = MARGIN.top + 7;
              return (
                <path
                  key={`unusual-${b.from}`}
                  data-anomalous={side}
                  d={
                    side === 'above'
                      ? `M${cx - 5},${tip}L${cx + 5},${tip}L${cx},${MARGIN.top}Z`
                      : `M${cx - 5},${MARGIN.top}L${cx + 5},${MARGIN.top}L${cx},${tip}Z`
                  }
                  fill={dark ? '#ff7b72' : '#cf222e'}
                />
              );
            })}
            {buckets.map((b, i) =>
              i % labelEvery === 0 && x(Date.parse(b.from)) + 84 <= width ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: buckets are in time order
                <text key={i} x={x(Date.parse(b.from))} y={height - 6} font-size="11" fill={text}>
                  {formatLocal(b.from, true)}
                </text>
              ) : null,
            )}
          </svg>
        )}
      </div>
      <figcaption class="legend">
        {series.map((s) => (
          <span key={s.label} class="legend-item">
            <span class="swatch" style={{ background: colour(s) }} />
            {s.label}
          </span>
        ))}
        {band && (
          <span class="legend-item">
            <span class="swatch band" /> {band.label}
          </span>
        )}
        {band?.anomalous?.some(Boolean) && (
          <span class="legend-item">
            <span class="swatch unusual" aria-hidden="true" /> outside it (unusual)
          </span>
        )}
        {n > 0 && partial(n - 1) && (
          <span class="legend-item">
            <span class="swatch hatched" /> bucket in progress (partial)
          </span>
        )}
      </figcaption>
      <details class="chart-data">
        <summary>Figures</summary>
        <table class="data">
          <thead>
            <tr>
              <th scope="col">from</th>
              {series.map((s) => (
                <th key={s.label} scope="col" class="num">
                  {s.label}
                </th>
              ))}
              {band && (
                <th scope="col" class="num">
                  expected
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {buckets.map((b, i) => (
              <tr key={b.from}>
                <td title={formatOtherZone(b.from)}>
                  {formatLocal(b.from)}
                  {partial(i) ? ' (partial)' : ''}
                </td>
                {series.map((s) => (
                  <td key={s.label} class="num" data-series={s.label}>
                    {s.values[i] === null || s.values[i] === undefined ? '–' : format(s.values[i] as number)}
                  </td>
                ))}
                {band && (
                  <td class="num" data-series="expected" data-unusual={unusual(i) ?? undefined}>
                    {bandText(i).replace(/^expected /, '') || '–'}
                    {unusual(i) ? ` (unusual: ${unusual(i)})` : ''}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

export const SUCCESS_COLOR = ['#1a7f37', '#3fb950'] as const;
export const FAILURE_COLOR = ['#cf222e', '#f85149'] as const;
export const P50_COLOR = ['#0969da', '#58a6ff'] as const;
export const P95_COLOR = ['#8250df', '#d2a8ff'] as const;
