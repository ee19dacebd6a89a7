import { describe, expect, it } from 'vitest';
import type { CompressOutput } from '../../src/engine/compress-call.js';
import type { Message } from '../../src/transcript/transcript.js';
import { agentLoop, SYSTEM, setup } from '../helpers/fixtures.js';

const roundTrip = (messages: readonly Message[]): Message[] => JSON.parse(JSON.stringify(messages));
const strip = (output: CompressOutput) => JSON.parse(JSON.stringify(output.messages));

/** Replays an agent loop call by call, with the same message objects or a JSON round trip of them each time. */
async function replay(fresh: boolean) {
  const { run, events } = setup({ triggers: undefined });
  const history = agentLoop(40, 600);
  const outputs: Array<{ input: readonly Message[]; output: CompressOutput }> = [];
  for (let end = 3; end <= history.length; end += 2) {
    const input = fresh ? roundTrip(history.slice(0, end)) : history.slice(0, end);
    outputs.push({ input, output: await run(input) });
  }
  return { outputs, events };
}

describe('resent histories with fresh message objects', () => {
  it('compress exactly as the same objects do, call after call', async () => {
    const same = await replay(false);
    const fresh = await replay(true);
    expect(fresh.outputs.map(({ output }) => strip(output))).toEqual(same.outputs.map(({ output }) => strip(output)));
    const untimed = (events: typeof same.events) => events.map(({ summarizerMs: _ms, ...event }) => event);
    expect(untimed(fresh.events)).toEqual(untimed(same.events));
    expect(same.events.some((event) => event.messagesFolded > 0)).toBe(true);
  });

  it("go out as the caller's own objects of this call where untouched", async () => {
    const { outputs } = await replay(true);
    let untouched = 0;
    for (const { input, output } of outputs.slice(1)) {
      for (const message of output.messages) {
        if (message.synthetic || message.edited) continue;
        expect(input).toContain(message);
        untouched++;
      }
    }
    expect(untouched).toBeGreaterThan(100);
    expect(SYSTEM).toHaveLength(1);
  });
});
