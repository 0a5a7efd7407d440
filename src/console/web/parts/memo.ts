import { type ComponentType, createElement, type FunctionComponent } from 'preact';

type Props = Record<string, unknown>;
type Handler = (...args: unknown[]) => unknown;

const isPlain = (value: unknown): value is Props =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** Two plain objects with the same entries (by identity): `{ window: '7d' }` made anew at each render. */
function sameEntries(a: Props, b: Props): boolean {
  const names = Object.keys(a);
  return (
    names.length === Object.keys(b).length &&
    names.every((name) => Object.hasOwn(b, name) && a[name] === b[name])
  );
}

/**
 * Whether a prop other than a handler differs: by identity, or for plain objects by their
 * entries. A handler given both times counts as the same.
 */
function changed(before: Props, after: Props): boolean {
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [a, b] = [before[name], after[name]];
    if (a === b || (typeof a === 'function' && typeof b === 'function')) continue;
    if (isPlain(a) && isPlain(b) && sameEntries(a, b)) continue;
    return true;
  }
  return false;
}

/**
 * The component rendered again only when one of its props (other than handlers) changes: a parent rendering again with the same data leaves it as it is (a chart's hundreds
 * of bars, a table's rows). Handlers, which a parent makes anew at each render, do not count:
 * the component is given a stand-in for each that calls the one the parent gave last, so a
 * skipped render never leaves an old handler (and the old address it closes over) in use.
 */
export function memo<P extends object>(component: ComponentType<P>): FunctionComponent<P> {
  function Memoed(
    this: { props: Props; shouldComponentUpdate?: unknown; stand?: Map<string, Handler> },
    props: P,
  ) {
    this.shouldComponentUpdate = (next: Props) => changed(this.props, next);
    const stand = this.stand ?? new Map<string, Handler>();
    this.stand = stand;
    const given: Props = {};
    for (const [name, value] of Object.entries(props)) {
      if (typeof value !== 'function') {
        given[name] = value;
        continue;
      }
      let handler = stand.get(name);
      if (!handler) {
        handler = (...args) => (this.props[name] as Handler)(...args);
        stand.set(name, handler);
      }
      given[name] = handler;
    }
    return createElement(component as ComponentType<Props>, given);
  }
  Memoed.displayName = `memo(${component.displayName ?? component.name})`;
  return Memoed as unknown as FunctionComponent<P>;
}
