/**
 * What the stores of servers share: a connection opened on first use (and opened again after a failed attempt), and
 * reading back the JSON text they write.
 */

/** A connection opened on the first `get()`; a failed opening is tried again by the next `get()`. */
export interface LazyConnection<T> {
  get(): Promise<T>;
  /** The connection if one was opened (undefined when none was, or its opening failed), forgotten from now on. */
  take(): Promise<T | undefined>;
}

export function lazyConnection<T>(open: () => Promise<T>): LazyConnection<T> {
  let opening: Promise<T> | undefined;
  return {
    get() {
      if (!opening) {
        const attempt = open();
        opening = attempt;
        attempt.catch(() => {
          if (opening === attempt) opening = undefined;
        });
      }
      return opening;
    },
    async take() {
      const attempt = opening;
      opening = undefined;
      return attempt?.catch(() => undefined);
    },
  };
}

/** A stored JSON text read back: absent for null or undefined; anything but a string is not a value of the store's. */
export function parseStoredText(store: string, key: string, text: unknown): unknown {
  if (text === null || text === undefined) return undefined;
  if (typeof text !== 'string') throw new TypeError(`${store}: the value of ${key} is not text`);
  return JSON.parse(text);
}
