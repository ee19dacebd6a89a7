/** A progress line redrawn in place: `replaying [=========---------] 12/40 calls`. */
export interface ProgressLine {
  increment(): void;
  /** Clears the line. */
  stop(): void;
}

const BAR_WIDTH = 30;
/** Redraws at most this often: a replay makes thousands of calls a second. */
const REDRAW_MS = 100;

/**
 * A progress line on `stream`, drawn only when it is a terminal (a redirected log gets no carriage returns). No
 * timer: it redraws on `increment`, so nothing keeps the process alive.
 */
export function progressLine(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  total: number,
  { label = 'calls', now = Date.now }: { label?: string; now?: () => number } = {},
): ProgressLine {
  let value = 0;
  let drawnAt = Number.NEGATIVE_INFINITY;
  const draw = () => {
    const filled = Math.round((Math.min(value, total) / total) * BAR_WIDTH);
    stream.write(`\rreplaying [${'='.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${value}/${total} ${label}`);
    drawnAt = now();
  };
  if (!stream.isTTY || total <= 0) return { increment() {}, stop() {} };
  draw();
  return {
    increment() {
      value++;
      if (value >= total || now() - drawnAt >= REDRAW_MS) draw();
    },
    stop() {
      stream.write('\r\x1b[2K');
    },
  };
}
