/** A lazily started, shared computation: the first call starts it, every call gets its promise. */
export function once<T>(compute: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => {
    started ??= compute();
    return started;
  };
}
