/**
 * A DataLoader batch that reads each key on its own (keys no single statement answers together):
 * a key's failure is its own, as DataLoader expects it (an Error in its place).
 */
export function readEach<K, V>(keys: readonly K[], read: (key: K) => Promise<V>): Promise<Array<V | Error>> {
  return Promise.all(keys.map((key) => read(key).catch((error: unknown) => error as Error)));
}
