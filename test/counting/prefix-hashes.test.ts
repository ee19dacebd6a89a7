import { describe, expect, it } from 'vitest';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { PrefixHashes, prefixHashesOf } from '../../src/counting/prefix-hashes.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { chat, text } from '../helpers/fixtures.js';

describe('PrefixHashes', () => {
  it('gives the hashes of the whole history, for a history grown, forked or shortened', () => {
    const meter = new MessageMeter(approximateCounter());
    const hashes = new PrefixHashes(meter);
    const history = chat(12);
    for (let end = 0; end <= history.length; end++) {
      expect(hashes.of('c', 'ns', history.slice(0, end))).toEqual(prefixHashesOf('ns', history.slice(0, end), meter));
    }
    const forked = [...history.slice(0, 5), text('user', 'another turn'), ...history.slice(6)];
    expect(hashes.of('c', 'ns', forked)).toEqual(prefixHashesOf('ns', forked, meter));
    expect(hashes.of('c', 'ns', history.slice(0, 3))).toEqual(prefixHashesOf('ns', history.slice(0, 3), meter));
    // another namespace is another conversation key in the engine; its hashes start from its own namespace
    expect(hashes.of('d', 'other', history)).toEqual(prefixHashesOf('other', history, meter));
    expect(prefixHashesOf('other', history, meter)[0]).not.toBe(prefixHashesOf('ns', history, meter)[0]);
  });
});
