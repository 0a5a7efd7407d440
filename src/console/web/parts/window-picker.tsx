import { href, type ViewName } from '../route.js';
import { WINDOWS, type WindowName } from '../time.js';
import { Link } from './basics.js';

/**
 * Links to the same view over 1 h, 24 h, 7 d or 30 d ending now; the other state is kept, a
 * chosen range (`from`, `to`) is left. While a range is the window, it is shown as the current one.
 */
export function WindowPicker({
  view,
  params,
  current,
}: {
  view: ViewName;
  params: URLSearchParams;
  current: WindowName | undefined;
}) {
  const rest = Object.fromEntries(
    [...params].filter(([name]) => !['view', 'page', 'from', 'to', 'window'].includes(name)),
  );
  return (
    <nav class="segmented" aria-label="Time window">
      {(Object.keys(WINDOWS) as WindowName[]).map((name) => (
        <Link
          key={name}
          href={href(view, { ...rest, window: name })}
          aria-current={name === current ? 'true' : undefined}
        >
          {name}
        </Link>
      ))}
      {current === undefined && (
        <span class="segment-current" aria-current="true">
          range
        </span>
      )}
    </nav>
  );
}
