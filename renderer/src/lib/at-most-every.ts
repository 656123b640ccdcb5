/**
 * `fn` once, `ms` after the first of any number of calls in between: a live list follows a
 * running crawl's snapshots (several a second) with one reload a second.
 */
export function atMostEvery(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      fn();
    }, ms);
  };
}
