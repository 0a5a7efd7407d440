import { useEffect, useState } from 'preact/hooks';

/**
 * Every view's state lives in the query string of `/`: `?view=workflow&uuid=...&window=7d`. A new
 * state is pushed onto the history (back and forward walk through them) or, for typing in a
 * filter, replaces the current entry.
 */
export type ViewName =
  | 'overview'
  | 'workflows'
  | 'workflow'
  | 'execution'
  | 'errors'
  | 'logs'
  | 'capabilities';
const VIEWS: readonly ViewName[] = [
  'overview',
  'workflows',
  'workflow',
  'execution',
  'errors',
  'logs',
  'capabilities',
];

export type RouteParams = Readonly<Record<string, string | number | undefined>>;

export interface Route {
  readonly view: ViewName;
  readonly params: URLSearchParams;
}

const CHANGE = 'wfapi-console:navigate';

export function currentRoute(): Route {
  const params = new URLSearchParams(location.search);
  const view = params.get('view');
  return { view: VIEWS.includes(view as ViewName) ? (view as ViewName) : 'overview', params };
}

/** The address of a view with its state; empty and undefined values are left out. */
export function href(view: ViewName, params: RouteParams = {}): string {
  const search = new URLSearchParams();
  if (view !== 'overview') search.set('view', view);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `/?${text}` : '/';
}

export function navigate(url: string, options: { replace?: boolean } = {}): void {
  if (url === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event(CHANGE));
}

/** The current view's state, following back, forward and `navigate`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return route;
}

/** A number parameter, falling back when absent or not a non-negative integer. */
export function intParam(params: URLSearchParams, name: string, fallback: number): number {
  const value = Number(params.get(name));
  return params.has(name) && Number.isInteger(value) && value >= 0 ? value : fallback;
}
