import { describe, expect, it, vi } from 'vitest';
import { readCall } from '../../src/engine/read-call.js';
import { DEFAULT_MASKING_OPTIONS } from '../../src/masking/observation-masking.js';
import { DEFAULT_REDACTION_TOOL_NAME } from '../../src/strategies/redaction.js';
import { ResultSiteIndex } from '../../src/transcript/result-sites.js';
import type { Message, Transcript } from '../../src/transcript/transcript.js';
import { limitsOf } from '../helpers/call-facts.js';
import { agentLoop, meter, SYSTEM, text } from '../helpers/fixtures.js';

const read = (
  transcript: Partial<Transcript> & { messages: Message[] },
  options: Partial<Parameters<typeof readCall>[1]> = {},
) =>
  readCall(
    { system: SYSTEM, tools: [], ...transcript },
    {
      meter,
      limits: limitsOf(3_500),
      scope: ['app', ''],
      system: SYSTEM,
      masking: DEFAULT_MASKING_OPTIONS,
      redaction: undefined,
      redactionToolName: DEFAULT_REDACTION_TOOL_NAME,
      ownTools: {},
      siteIndex: new ResultSiteIndex(),
      reuseSeen: (_conversation, messages) => messages,
      analyzeSteps: undefined,
      ...options,
    },
  );

describe('readCall', () => {
  it('keys a conversation by its namespace, first message and system prompt, not by what follows', () => {
    const history = agentLoop(3);
    const facts = read({ messages: history });
    expect(read({ messages: agentLoop(5) }).conversationKey).toBe(facts.conversationKey);
    expect(read({ messages: history }, { scope: ['other', ''] }).conversationKey).not.toBe(facts.conversationKey);
    const otherSystem = [text('system', 'Another assistant.')];
    expect(read({ messages: history }, { system: otherSystem }).conversationKey).not.toBe(facts.conversationKey);
    expect(read({ messages: [text('user', 'Another task.'), ...history.slice(1)] }).anchor).not.toBe(facts.anchor);
  });

  it('hashes every prefix of the history: a longer history of the same start shares the shorter one’s hashes', () => {
    const short = read({ messages: agentLoop(2) });
    const long = read({ messages: agentLoop(4) });
    expect(short.prefixHashes).toHaveLength(short.messages.length + 1);
    expect(long.prefixHashes.slice(0, short.prefixHashes.length)).toEqual(short.prefixHashes);
  });

  it('counts the system prompt and the tool definitions as the fixed part of every prompt', () => {
    const without = read({ messages: agentLoop(1) });
    const withTools = read({ messages: agentLoop(1), tools: [{ name: 'read', description: 'Reads a file.' }] });
    expect(without.fixedTokens).toBe(meter.measure(SYSTEM[0] as Message).tokens);
    expect(withTools.fixedTokens).toBeGreaterThan(without.fixedTokens);
  });

  it('finds the tool results, the results masking may hide and where the history may be cut', () => {
    const facts = read({ messages: agentLoop(10) });
    expect(facts.sites).toHaveLength(20);
    expect(facts.siteByKey.size).toBe(20);
    // the newest results (and the current step's) stay visible: only the older ones may be masked
    expect(facts.maskable.size).toBe(20 - DEFAULT_MASKING_OPTIONS.keepRecent);
    expect(facts.maskable.has(facts.sites[0]?.key as string)).toBe(true);
    expect(facts.maskable.has(facts.sites.at(-1)?.key as string)).toBe(false);
    expect(read({ messages: agentLoop(10) }, { masking: undefined }).maskable.size).toBe(0);
    // a tool call is never parted from its result: no cut between an assistant step and its results
    for (let index = 1; index < facts.messages.length; index++) {
      if (facts.messages[index]?.role === 'tool') expect(facts.cuts.has(index)).toBe(false);
    }
  });

  it('counts steps without analyzing them, and analyzes them only when read', () => {
    const analyze = vi.fn(() => []);
    const facts = read({ messages: agentLoop(3) }, { analyzeSteps: analyze });
    expect(facts.stepCount).toBe(3);
    expect(facts.lastStepStart).toBe(5);
    expect(analyze).not.toHaveBeenCalled();
    void facts.steps;
    void facts.steps;
    expect(analyze).toHaveBeenCalledOnce();
    expect(read({ messages: agentLoop(3) }).steps).toEqual([]);
  });

  it('replays the redactions the model asked for, by the redaction tool named in the call', () => {
    const history = agentLoop(2);
    history.push(
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool-call',
            id: 'r1',
            name: 'drop_results',
            args: { toolCallIds: ['read-0'], reason: 'Used already.' },
          },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'r1', name: 'drop_results', output: 'ok' }] },
    );
    const rules = { toolName: 'drop_results' };
    const facts = read({ messages: history }, { redaction: rules, redactionToolName: 'drop_results' });
    expect([...facts.redactions.values()]).toEqual(['Used already.']);
    expect(facts.latestRedactions.size).toBe(1);
    expect(read({ messages: history }).redactions.size).toBe(0);
  });

  it('works on the messages the memory gives back for what it saw before', () => {
    const history = agentLoop(2);
    const remembered = history.map((message) => ({ ...message }));
    const facts = read({ messages: history }, { reuseSeen: () => remembered });
    expect(facts.messages).toBe(remembered);
    expect(facts.input).toBe(history);
  });
});
