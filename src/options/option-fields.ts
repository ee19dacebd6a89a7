import { z } from 'zod';

/**
 * The type of an options schema. Each schema is declared with it, built from a shape in a `const` of its own: only then
 * does TypeScript's declaration output keep the JSDoc of the shape's keys, which editors show on hover.
 */
export type StrictObject<Shape extends z.ZodRawShape> = z.ZodObject<Shape, z.core.$strict>;

/*
 * Builders of option fields. Each field carries its allowed values in words twice: as its error, so every issue reads
 * "must be <that>", and as `allowed` metadata, which the options reference shows as the option's type.
 */

/** The allowed values in words of a field made here, or undefined. */
export function allowedOf(schema: z.ZodType): string | undefined {
  const allowed = z.globalRegistry.get(schema)?.allowed;
  return typeof allowed === 'string' ? allowed : undefined;
}

function allowing<T extends z.ZodType>(allowed: string, schema: T): T {
  return schema.meta({ allowed });
}

/** A share of something, strictly between 0 and 1. */
export const share = () =>
  allowing(
    'a number greater than 0 and less than 1',
    z.number({ error: 'a number greater than 0 and less than 1' }).gt(0).lt(1),
  );

/** A whole number of at least `min`, `unit` saying of what (' of tokens'). */
export function whole(min: number, unit = '', max?: number) {
  const allowed = `a whole number${unit} ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}`;
  const schema = z.number({ error: allowed }).int().min(min);
  return allowing(allowed, max === undefined ? schema : schema.max(max));
}

/** A timer's milliseconds: past 2^31 - 1, setTimeout fires at once. */
export const timeout = () => {
  const allowed = 'a whole number of milliseconds from 1 to 2147483647 (about 24.8 days)';
  return allowing(allowed, z.number({ error: allowed }).int().min(1).max(2_147_483_647));
};

/** A number with bounds said in words. */
export const number = (allowed: string, bounded: (schema: z.ZodNumber) => z.ZodNumber) =>
  allowing(allowed, bounded(z.number({ error: allowed })));

export const text = () => allowing('a string', z.string({ error: 'a string' }));
export const nonEmptyText = () => allowing('a non-empty string', z.string({ error: 'a non-empty string' }).min(1));
export const flag = () => allowing('true or false', z.boolean({ error: 'true or false' }));
/** One of a few strings. */
export function oneOf<const Values extends readonly [string, ...string[]]>(values: Values) {
  const allowed = values.map((value) => `'${value}'`).join(' or ');
  return allowing(allowed, z.enum(values, { error: allowed }));
}
export const toolNames = () =>
  allowing('an array of tool names', z.array(z.string({ error: 'a tool name' }), { error: 'an array of tool names' }));

/** A value of a type zod cannot check by shape (a store, a counter, a callback), checked by `isValid`. */
export function custom<T>(allowed: string, isValid: (value: unknown) => boolean) {
  return allowing(allowed, z.custom<T>(isValid, { error: allowed }));
}

/** A function, typed as `T`. */
export const callback = <T>() => custom<T>('a function', (value) => typeof value === 'function');

/** Whether a value is an object with these methods. */
export function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    methods.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  );
}

/** Object options in words, `{ a, b? }`, from the keys of the object (`?` on the ones that may be left out). */
function keysInWords(object: z.ZodObject): string {
  const keys = Object.entries(object.shape).map(
    ([key, field]) => `${key}${(field as z.ZodType).safeParse(undefined).success ? '?' : ''}`,
  );
  return `{ ${keys.join(', ')} }`;
}

/** A group of nested options, checked key by key (unknown keys fail). */
export function group<Shape extends z.ZodRawShape>(shape: Shape) {
  const object = z.strictObject(shape);
  const allowed = `an object ${keysInWords(object)}`;
  return allowing(allowed, z.strictObject(shape, { error: allowed }));
}

/** A feature with nested options that `false` turns off. */
export function switchable<Shape extends z.ZodRawShape>(object: z.ZodObject<Shape, z.core.$strict>) {
  const allowed = `false or an object ${keysInWords(object)}`;
  return allowing(allowed, z.union([z.literal(false), object], { error: allowed }));
}
