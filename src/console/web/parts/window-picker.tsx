import { href, type ViewName } from '../route.js';
import { WINDOWS, type WindowName } from '../time.js';
import { Link } from './basics.js';

/** Links to the same view over 1 h, 24 h, 7 d or 30 d; the other state is kept. */
export function WindowPicker({
  view,
  params,
  current,
}: {
  view: ViewName;
  params: URLSearchParams;
  current: WindowName;
}) {
  const rest = Object.fromEntries([...params].filter(([name]) => name !== 'view' && name !== 'page'));
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
    </nav>
  );
}
