/**
 * Merges sorted streams into one sorted stream, holding one item per stream: memory grows with
 * the number of streams (workflows), never with their length. Ties go to the lower stream index,
 * which keeps the output deterministic.
 */
export function* mergeSorted<T>(streams: readonly Iterator<T>[], key: (item: T) => number): Generator<T> {
  interface Head {
    item: T;
    key: number;
    stream: number;
  }
  const heap: Head[] = [];
  const before = (a: Head, b: Head) => a.key < b.key || (a.key === b.key && a.stream < b.stream);
  const push = (head: Head) => {
    heap.push(head);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const siftDown = () => {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
  };
  streams.forEach((iterator, stream) => {
    const next = iterator.next();
    if (!next.done) push({ item: next.value, key: key(next.value), stream });
  });
  while (heap.length > 0) {
    const top = heap[0]!;
    yield top.item;
    const next = streams[top.stream]!.next();
    if (next.done) {
      const last = heap.pop()!;
      if (heap.length === 0) break;
      heap[0] = last;
    } else {
      top.item = next.value;
      top.key = key(next.value);
    }
    siftDown();
  }
}
