import { z } from 'zod';
import { describeValue, InvalidOptionError } from '../errors.js';

/**
 * The InvalidOptionError for a schema issue: the option's path (after `where`, e.g. per-call options' place), the
 * value found there and the allowed values; an unknown key names the closest known one when one is close.
 */
export function optionIssueError(
  schema: z.ZodType,
  found: z.core.$ZodIssue | undefined,
  root: unknown,
  where: string,
): InvalidOptionError {
  const issue = innermost(found);
  const path = (issue?.path ?? []).map(String);
  // an array's items by index, `excludeTools[1]`, as the caller would write them
  const name = (keys: readonly string[]) =>
    keys.reduce(
      (written, key) => (/^\d+$/.test(key) ? `${written}[${key}]` : written ? `${written}.${key}` : key),
      where,
    ) || 'options';
  if (issue?.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const known = Object.keys(objectAt(schema, path)?.shape ?? {});
    const guess = closest(key, known);
    const hint = guess ? `did you mean \`${name([...path, guess])}\`?` : `the options are ${known.join(', ')}`;
    return new InvalidOptionError({
      option: name([...path, key]),
      message: `unknown option; ${hint} (got ${describeValue(valueAt(root, [...path, key]))})`,
    });
  }
  return new InvalidOptionError({
    option: name(path),
    message: `must be ${issue?.message ?? 'valid'} (got ${describeValue(valueAt(root, path))})`,
  });
}

/**
 * A nested object that failed inside a union (`false` or an object): the issue of the object branch, whose path goes
 * down to the key at fault, rather than the union's own "false or an object".
 */
function innermost(issue: z.core.$ZodIssue | undefined): z.core.$ZodIssue | undefined {
  if (issue?.code !== 'invalid_union') return issue;
  const inner = issue.errors.map((branch) => branch[0]).find((first) => first !== undefined && first.path.length > 0);
  return inner ? innermost({ ...inner, path: [...issue.path, ...inner.path] }) : issue;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((inner, key) => (inner as Record<string, unknown> | undefined)?.[key], root);
}

/** The object schema at `path` inside `schema`, through optionals, defaults and unions (`false` or an object). */
function objectAt(schema: z.ZodType | undefined, path: readonly string[]): z.ZodObject | undefined {
  const unwrap = (inner: unknown): z.ZodObject | undefined =>
    inner instanceof z.ZodOptional || inner instanceof z.ZodDefault || inner instanceof z.ZodPrefault
      ? unwrap(inner.unwrap())
      : inner instanceof z.ZodUnion
        ? (inner.options as unknown[]).map(unwrap).find(Boolean)
        : inner instanceof z.ZodObject
          ? inner
          : undefined;
  let current = unwrap(schema);
  for (const key of path) current = unwrap(current?.shape[key]);
  return current;
}

/** The known name closest to a misspelled one, when it is a likely typo: at most a third of it off, case aside. */
export function closest(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(typed.length / 3)) + 1;
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * Options checked against their schema, defaults filled in; an InvalidOptionError naming the path (after `where`)
 * when they do not fit.
 */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  options: unknown,
  where: string,
): z.output<Schema> {
  const parsed = schema.safeParse(options === undefined ? {} : options);
  if (parsed.success) return parsed.data;
  throw optionIssueError(schema, parsed.error.issues[0], options, where);
}
