/**
 * Where the API key lives in the browser: the tab's session storage, never a cookie, never the
 * server's logs. A link may carry it in the fragment (`#key=...`), which browsers never send;
 * it is moved to session storage and removed from the address bar at once.
 */
const STORAGE_KEY = 'wfapi-console:api-key';

export function takeKeyFromFragment(): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const key = fragment.get('key');
  if (!key) return;
  storeKey(key);
  history.replaceState(history.state, '', location.pathname + location.search);
}

export function storedKey(): string | undefined {
  return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key.trim());
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
