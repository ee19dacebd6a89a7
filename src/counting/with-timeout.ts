/**
 * `work`, or the error `timedOut()` makes if it has not settled within `timeoutMs`. The timer is always cleared, and
 * a rejection of `work` after the timeout is handled (never an unhandled rejection): whoever stopped waiting has
 * already been told.
 */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number, timedOut: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), timeoutMs);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
