import { useEffect, useState } from 'preact/hooks';

const QUERY = '(prefers-color-scheme: dark)';

/** Whether the system asks for dark colours; follows changes while the page is open. */
export function useDark(): boolean {
  const [dark, setDark] = useState(() => matchMedia(QUERY).matches);
  useEffect(() => {
    const media = matchMedia(QUERY);
    const update = () => setDark(media.matches);
    media.addEventListener('change', update);
    return () => media.removeEventListener('change', update);
  }, []);
  return dark;
}
