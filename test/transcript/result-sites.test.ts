import { describe, expect, it } from 'vitest';
import { ResultSiteIndex, resultSites } from '../../src/transcript/result-sites.js';
import type { Message } from '../../src/transcript/transcript.js';
import { agentLoop, meter } from '../helpers/fixtures.js';

describe('ResultSiteIndex', () => {
  it('gives the sites of a full read on every prefix of a growing history, forks and retries included', () => {
    const history: Message[] = agentLoop(12);
    // a repeated call id: its second result gets the key `id#1`, which a resumed read must still count
    history.push(
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'read-3', name: 'read', args: { path: 'again' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'read-3', name: 'read', output: 'again' }] },
    );
    const index = new ResultSiteIndex();
    const lengths = [
      ...Array.from({ length: history.length }, (_, end) => end + 1),
      5,
      history.length,
      history.length - 3,
    ];
    for (const end of lengths) {
      const messages = history.slice(0, end);
      expect(index.sites('c', messages, meter)).toEqual(resultSites(messages, meter));
    }
    const fork = [...history.slice(0, 6), ...agentLoop(3).slice(1)];
    expect(index.sites('c', fork, meter)).toEqual(resultSites(fork, meter));
    expect(resultSites(history, meter).at(-1)?.key).toBe('read-3#1');
  });

  it('does not change the sites an earlier call holds', () => {
    const index = new ResultSiteIndex();
    const history = agentLoop(6);
    const earlier = index.sites('c', history.slice(0, 5), meter);
    const copy = [...earlier];
    index.sites('c', history, meter);
    expect(earlier).toEqual(copy);
  });
});
