/** What to do with the oldest task when a queue is full: leave it out, or run it at once. */
export type DeferredOverflow = 'drop' | 'run';

/** A process-wide queue of tasks run once the current task of the event loop is done. */
export interface DeferredTasks {
  add(task: () => void): void;
}

/**
 * Tasks run on the next turn of the event loop, in one queue of at most `max`: a loop that never yields to the event
 * loop (thousands of calls with a mock model in one task) keeps no more than `max` of them, and what they hold (an
 * engine, a history), alive. Past it the oldest task is left out or run at once, as `overflow` says. One timer at a
 * time, which never keeps a process alive.
 */
export function deferredTasks(max: number, overflow: DeferredOverflow): DeferredTasks {
  let pending: (() => void)[] = [];
  let scheduled = false;
  const run = () => {
    const tasks = pending;
    pending = [];
    scheduled = false;
    for (const task of tasks) task();
  };
  return {
    add(task) {
      pending.push(task);
      if (pending.length > max) {
        const oldest = pending.shift();
        if (overflow === 'run') oldest?.();
      }
      if (scheduled) return;
      scheduled = true;
      const timer: unknown = setTimeout(run, 0);
      (timer as { unref?: () => void }).unref?.();
    },
  };
}
