import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A text filter that reports its value after a short pause in typing, so a word typed is one
 * question to the API, not one per key.
 */
export function SearchBox({
  label,
  value,
  onChange,
  placeholder,
  autoFocus,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  /** The view's key field: focused when the view opens. */
  autoFocus?: boolean;
}) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => setText(value), [value]);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => () => clearTimeout(timer.current), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focused once, when the view opens
  useEffect(() => {
    if (autoFocus) input.current?.focus();
  }, []);
  return (
    <label class="search">
      <span>{label}</span>
      <input
        ref={input}
        type="search"
        value={text}
        placeholder={placeholder}
        onInput={(event) => {
          const next = (event.target as HTMLInputElement).value;
          setText(next);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => onChange(next), 300);
        }}
      />
    </label>
  );
}
