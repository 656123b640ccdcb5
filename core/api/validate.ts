/**
 * Payload validators for the IPC gate: small hand-written combinators rather than a library.
 *
 * Why not zod/valibot: the payloads are a couple of dozen small objects; this file is the whole
 * dependency (it runs in the main process, the e2e harness and, for its types, the renderer),
 * it has no node:* imports, and we cannot add packages to this project lightly. What we need
 * from a validator is narrow: reject unknown keys (a compromised renderer must not smuggle
 * fields), bound every string, array and number, and say where the problem is.
 *
 *   const v = obj({ id: str({ max: 200 }), now: optional(bool()) });
 *   const r = check(v, payload); // Result<{ id: string; now?: boolean }>
 */
import { fail, ok, type Result } from './result.ts';

/** A validator returns the value (typed) or throws PayloadError naming the path. */
export type Validator<T> = (input: unknown, path: string) => T;

export type Infer<V> = V extends Validator<infer T> ? T : never;

export class PayloadError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path || 'payload'}: ${message}`);
    this.name = 'PayloadError';
    this.path = path;
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : JSON.stringify(v);
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

/** Strings are bounded by default: 64 KiB, or `max`. */
export function str(opts: { min?: number; max?: number; pattern?: RegExp; trim?: boolean } = {}): Validator<string> {
  const max = opts.max ?? 65_536;
  return (input, path) => {
    if (typeof input !== 'string') throw new PayloadError(path, `expected a string, got ${describe(input)}`);
    const s = opts.trim ? input.trim() : input;
    if (s.length > max) throw new PayloadError(path, `longer than ${max} characters`);
    if (opts.min !== undefined && s.length < opts.min) throw new PayloadError(path, opts.min === 1 ? 'must not be empty' : `shorter than ${opts.min} characters`);
    if (opts.pattern && !opts.pattern.test(s)) throw new PayloadError(path, `does not match ${opts.pattern}`);
    return s;
  };
}

export function num(opts: { min?: number; max?: number; int?: boolean } = {}): Validator<number> {
  return (input, path) => {
    if (typeof input !== 'number' || !Number.isFinite(input)) throw new PayloadError(path, `expected a number, got ${describe(input)}`);
    if (opts.int && !Number.isSafeInteger(input)) throw new PayloadError(path, 'expected a whole number');
    if (opts.min !== undefined && input < opts.min) throw new PayloadError(path, `must be ≥ ${opts.min}`);
    if (opts.max !== undefined && input > opts.max) throw new PayloadError(path, `must be ≤ ${opts.max}`);
    return input;
  };
}

export function int(opts: { min?: number; max?: number } = {}): Validator<number> {
  return num({ ...opts, int: true });
}

export function bool(): Validator<boolean> {
  return (input, path) => {
    if (typeof input !== 'boolean') throw new PayloadError(path, `expected true or false, got ${describe(input)}`);
    return input;
  };
}

export function oneOf<const T extends readonly (string | number)[]>(values: T): Validator<T[number]> {
  return (input, path) => {
    if (!values.includes(input as T[number])) throw new PayloadError(path, `expected one of ${values.join(', ')}, got ${describe(input)}`);
    return input as T[number];
  };
}

/** Arrays are bounded by default: 10,000 items, or `max`. */
export function arr<T>(item: Validator<T>, opts: { max?: number; min?: number } = {}): Validator<T[]> {
  const max = opts.max ?? 10_000;
  return (input, path) => {
    if (!Array.isArray(input)) throw new PayloadError(path, `expected a list, got ${describe(input)}`);
    if (input.length > max) throw new PayloadError(path, `more than ${max} items`);
    if (opts.min !== undefined && input.length < opts.min) throw new PayloadError(path, `needs at least ${opts.min} item(s)`);
    return input.map((x, i) => item(x, `${path}[${i}]`));
  };
}

const OPTIONAL = Symbol('optional');
type Optional<T> = Validator<T | undefined> & { [OPTIONAL]: true };

export function optional<T>(v: Validator<T>): Optional<T> {
  const f = ((input: unknown, path: string) => (input === undefined ? undefined : v(input, path))) as Optional<T>;
  f[OPTIONAL] = true;
  return f;
}

export function nullable<T>(v: Validator<T>): Validator<T | null> {
  return (input, path) => (input === null ? null : v(input, path));
}

type Shape = Record<string, Validator<unknown>>;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends Optional<unknown> ? never : K }[keyof S];
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends Optional<unknown> ? K : never }[keyof S];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type ObjOf<S extends Shape> = Simplify<
  { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Exclude<Infer<S[K]>, undefined> }
>;

function isPlainObject(input: unknown): input is Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const proto = Object.getPrototypeOf(input);
  return proto === Object.prototype || proto === null;
}

/** A plain object with exactly these keys (optional ones may be missing); unknown keys are refused. */
export function obj<S extends Shape>(shape: S): Validator<ObjOf<S>> {
  return (input, path) => {
    if (!isPlainObject(input)) throw new PayloadError(path, `expected an object, got ${describe(input)}`);
    for (const key of Object.keys(input)) {
      if (!Object.hasOwn(shape, key)) throw new PayloadError(path ? `${path}.${key}` : key, 'unknown field');
    }
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(shape)) {
      const value = v(input[key], path ? `${path}.${key}` : key);
      if (value !== undefined) out[key] = value;
    }
    return out as ObjOf<S>;
  };
}

/** No payload: `undefined`, `null` or `{}`. */
export function empty(): Validator<Record<string, never>> {
  return (input, path) => {
    if (input === undefined || input === null) return {};
    if (isPlainObject(input) && Object.keys(input).length === 0) return {};
    throw new PayloadError(path, 'expected no payload');
  };
}

/** A value that passes `v` and then `test` (e.g. a cross-field rule). */
export function refine<T>(v: Validator<T>, test: (value: T) => string | null): Validator<T> {
  return (input, path) => {
    const value = v(input, path);
    const problem = test(value);
    if (problem !== null) throw new PayloadError(path, problem);
    return value;
  };
}

/** Run a validator; a PayloadError becomes `PAYLOAD_INVALID` with the path in details. */
export function check<T>(v: Validator<T>, input: unknown): Result<T> {
  try {
    return ok(v(input, ''));
  } catch (err) {
    if (err instanceof PayloadError) return fail('PAYLOAD_INVALID', err.message, { path: err.path });
    throw err;
  }
}
