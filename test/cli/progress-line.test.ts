import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressLine } from '../../adapters/cli/progress-line.js';

/** A stream that records what is written to it, as a terminal or not. */
function stream(isTTY: boolean) {
  const written: string[] = [];
  const target = Object.assign(new PassThrough(), { isTTY });
  target.on('data', (chunk: Buffer) => written.push(chunk.toString()));
  return { target, written };
}

describe('progressLine', () => {
  it('redraws in place on a terminal, at most every 100 ms and at the end, and clears the line when stopped', () => {
    const { target, written } = stream(true);
    let clock = 0;
    const line = progressLine(target, 4, { now: () => clock });
    line.increment(); // within 100 ms of the first draw: not drawn
    clock = 150;
    line.increment();
    line.increment();
    line.increment(); // the last one is always drawn
    line.stop();
    expect(written).toEqual([
      `\rreplaying [${'-'.repeat(30)}] 0/4 calls`,
      `\rreplaying [${'='.repeat(15)}${'-'.repeat(15)}] 2/4 calls`,
      `\rreplaying [${'='.repeat(30)}] 4/4 calls`,
      '\r\x1b[2K',
    ]);
  });

  it('writes nothing to a stream that is not a terminal', () => {
    const { target, written } = stream(false);
    const line = progressLine(target, 3);
    line.increment();
    line.stop();
    expect(written).toEqual([]);
  });
});
