import { describe, expect, it } from 'vitest';
import { PairingScans, repairToolPairs } from '../../src/transcript/repair-tool-pairs.js';
import type { Message, Part } from '../../src/transcript/transcript.js';

/** A deterministic pseudo-random sequence in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A history of user, assistant and tool messages with call ids from a small pool: repeats, orphans, open calls. */
function history(seed: number, length: number): Message[] {
  const next = random(seed);
  const id = () => `c${Math.floor(next() * 6)}`;
  const messages: Message[] = [];
  let calls: string[] = [];
  for (let index = 0; index < length; index++) {
    // calls are mostly answered right after them; sometimes not, or by a stray result
    const roll = calls.length > 0 ? (next() < 0.97 ? 1 : next() * 0.6) : next() < 0.02 ? 1 : next() * 0.6;
    if (roll < 0.2) messages.push({ role: 'user', parts: [{ type: 'text', text: `ask ${index}` }] });
    else if (roll < 0.6) {
      calls = Array.from({ length: Math.floor(next() * 3) }, id);
      const parts: Part[] = [{ type: 'text', text: `step ${index}` }];
      for (const called of calls) parts.push({ type: 'tool-call', id: called, name: 't', args: {} });
      messages.push({ role: 'assistant', parts });
    } else {
      // mostly the answers to the latest calls, sometimes another id: an orphan, a repeat
      const answered = next() < 0.97 && calls.length > 0 ? calls : [id()];
      calls = [];
      const parts: Part[] = answered.map((callId) => ({
        type: 'tool-result',
        callId,
        name: 't',
        output: `out ${index}`,
      }));
      messages.push({ role: 'tool', parts });
    }
  }
  return messages;
}

describe('PairingScans', () => {
  it('says a history is sound exactly when repairToolPairs finds nothing, read whole or grown a message at a time', () => {
    let sound = 0;
    let unsound = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const messages = history(seed, 24);
      const grown = new PairingScans();
      for (let end = 0; end <= messages.length; end++) {
        const prefix = messages.slice(0, end);
        const expected = repairToolPairs(prefix).issues.length === 0;
        expect(grown.isSound(prefix), `seed ${seed}, ${end} messages`).toBe(expected);
        expect(new PairingScans().isSound(prefix), `seed ${seed}, ${end} messages, whole`).toBe(expected);
        if (end > 3) expected ? sound++ : unsound++;
      }
    }
    // the generator makes both kinds
    expect(sound).toBeGreaterThan(1_000);
    expect(unsound).toBeGreaterThan(500);
  });

  it('reads a history again from the start when it does not continue the last one', () => {
    const scans = new PairingScans();
    const user: Message = { role: 'user', parts: [{ type: 'text', text: 'go' }] };
    const call: Message = { role: 'assistant', parts: [{ type: 'tool-call', id: 'a', name: 't', args: {} }] };
    const answer: Message = { role: 'tool', parts: [{ type: 'tool-result', callId: 'a', name: 't', output: 'x' }] };
    const orphan: Message = { role: 'tool', parts: [{ type: 'tool-result', callId: 'b', name: 't', output: 'y' }] };
    expect(scans.isSound([user, call, answer])).toBe(true);
    expect(scans.isSound([user, call, orphan])).toBe(false);
    expect(scans.isSound([user, call, answer, user])).toBe(true);
    expect(scans.isSound([user, call, user])).toBe(false);
  });
});
