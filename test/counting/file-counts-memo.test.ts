import { describe, expect, it } from 'vitest';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import type { Message } from '../../src/transcript/transcript.js';

/** The same image message as two adapters make it for two providers: equal content, different file estimates. */
const imageMessage = (tokens: number): Message => ({
  role: 'user',
  parts: [
    { type: 'text', text: 'What is in this picture?' },
    { type: 'file', mediaType: 'image/png', fingerprint: 'data:1200:abc', tokens },
  ],
});

describe("the meter's counts of messages with files", () => {
  it('keeps the content hash (a store key) and counts each provider its own estimate', () => {
    const meter = new MessageMeter(approximateCounter());
    const forClaude = meter.measure(imageMessage(1_600));
    const forGpt = meter.measure(imageMessage(765));
    expect(forGpt.hash).toBe(forClaude.hash);
    expect(forClaude.tokens - forGpt.tokens).toBe(1_600 - 765);
    // the byte bound of a message not counted yet, too
    const bounding = new MessageMeter(approximateCounter());
    expect(bounding.bound(imageMessage(1_600)) - bounding.bound(imageMessage(765))).toBe(1_600 - 765);
    expect(meter.bound(imageMessage(2_322))).toBeGreaterThanOrEqual(2_322);
  });
});
