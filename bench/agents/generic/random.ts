/** A small seeded random source for the generated agent runs: the same seed gives the same runs on every machine. */

/** Draws of one seeded sequence. */
export interface Random {
  /** A number in [0, 1). */
  next(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  /** One of `items`. */
  pick<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** `count` digits, the first not 0. */
  digits(count: number): string;
  /** `count` characters of upper-case letters and digits. */
  code(count: number): string;
}

const CODE = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A seeded sequence (mulberry32): deterministic, no global state. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(items: readonly T[]) => items[int(0, items.length - 1)] as T,
    chance: (p: number) => next() < p,
    digits: (count: number) => String(int(1, 9)) + Array.from({ length: count - 1 }, () => String(int(0, 9))).join(''),
    code: (count: number) => Array.from({ length: count }, () => CODE[int(0, CODE.length - 1)]).join(''),
  };
}
