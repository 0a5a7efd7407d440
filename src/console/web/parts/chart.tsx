import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { useDark } from '../theme.js';
import { formatUtc } from '../time.js';

export interface ChartSeries {
  readonly label: string;
  readonly values: ReadonlyArray<number | null>;
  /** Light and dark colours. */
  readonly color: readonly [string, string];
  readonly kind: 'bars' | 'line';
}

export interface ChartProps {
  /** What the chart shows, for screen readers (the table below it has the figures). */
  readonly label: string;
  /** Bucket starts as ISO instants. */
  readonly x: readonly string[];
  readonly series: readonly ChartSeries[];
  readonly format?: (value: number) => string;
  readonly height?: number;
  /** Bars of later series are stacked on the earlier ones. */
  readonly stacked?: boolean;
}

const bars = uPlot.paths.bars?.({ size: [0.8, 40] });

/**
 * A uPlot time chart drawn on a canvas: bars stacked in series order, or lines. It is rebuilt when
 * the data, the size or the theme changes, and marks itself `data-drawn` once painted (tests and
 * the benchmark wait for that).
 */
export function Chart({ label, x, series, format, height = 200, stacked }: ChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  const dark = useDark();
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    element.removeAttribute('data-drawn');
    const xs = x.map((iso) => Date.parse(iso) / 1000);
    const running = new Array<number>(xs.length).fill(0);
    const ys = series.map((s) =>
      s.values.map((v, i) => {
        if (!stacked) return v;
        running[i] = (running[i] ?? 0) + (v ?? 0);
        return running[i] ?? 0;
      }),
    );
    // Stacked bars are drawn tallest first, so each lower total paints over the one above it.
    const order = stacked ? [...series.keys()].reverse() : [...series.keys()];
    const text = dark ? '#c9d1d9' : '#24292f';
    const grid = dark ? '#30363d' : '#e5e7eb';
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const options: uPlot.Options = {
      width: Math.max(200, element.clientWidth),
      height,
      legend: { show: false },
      cursor: { points: { show: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        axis,
        { ...axis, size: 60, values: (_u, ticks) => ticks.map((t) => (format ? format(t) : String(t))) },
      ],
      series: [
        {},
        ...order.map((i) => {
          const s = series[i]!;
          const color = dark ? s.color[1] : s.color[0];
          return {
            label: s.label,
            stroke: color,
            fill: s.kind === 'bars' ? color : undefined,
            width: s.kind === 'bars' ? 0 : 2,
            paths: s.kind === 'bars' ? bars : undefined,
            points: { show: false },
            spanGaps: false,
          };
        }),
      ],
      hooks: { draw: [() => element.setAttribute('data-drawn', 'true')] },
    };
    const plot = new uPlot(
      options,
      [xs, ...order.map((i) => ys[i] as (number | null)[])] as uPlot.AlignedData,
      element,
    );
    const resize = new ResizeObserver(() => {
      const width = Math.max(200, element.clientWidth);
      if (width !== plot.width) plot.setSize({ width, height });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, dark, height, stacked, format]);
  return (
    <figure class="chart">
      <div ref={holder} role="img" aria-label={label} class="chart-canvas" />
      <figcaption class="legend">
        {series.map((s) => (
          <span key={s.label} class="legend-item">
            <span class="swatch" style={{ background: dark ? s.color[1] : s.color[0] }} />
            {s.label}
          </span>
        ))}
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
            </tr>
          </thead>
          <tbody>
            {x.map((iso, i) => (
              <tr key={iso}>
                <td title={formatUtc(iso)}>{new Date(iso).toLocaleString()}</td>
                {series.map((s) => (
                  <td key={s.label} class="num" data-series={s.label}>
                    {s.values[i] === null || s.values[i] === undefined
                      ? '–'
                      : format
                        ? format(s.values[i] as number)
                        : s.values[i]}
                  </td>
                ))}
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
