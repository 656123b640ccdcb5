/**
 * A small seeded random generator (mulberry32) for tests and fixtures: the same sequence on every
 * platform and run, so a fuzz case or a generated fixture page can be reproduced from its seed.
 */
export type Rng = () => number;

export function prng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
