/**
 * `fn` from its second call on. An $effect that reloads when a filter or search field changes
 * runs once as it starts, with the value it started with: that first run is not a change.
 */
export function afterFirst<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  let first = true;
  return (...args: A) => {
    if (first) first = false;
    else fn(...args);
  };
}
