import { describe, expect, it } from 'vitest';
import {
  extendScan,
  MAX_RESULTS_WITH_TERM,
  messageTerms,
  newScan,
  resultTerms,
  type TermScan,
  type TermSetMemo,
} from '../../src/signals/term-scan.js';
import type { ResultSite } from '../../src/transcript/result-sites.js';
import type { Message } from '../../src/transcript/transcript.js';

const text = (role: Message['role'], content: string): Message => ({ role, parts: [{ type: 'text', text: content }] });
const toolCall = (id: string, args: unknown, content = ''): Message => ({
  role: 'assistant',
  parts: [
    ...(content ? [{ type: 'text' as const, text: content }] : []),
    { type: 'tool-call', id, name: 'bash', args },
  ],
});
const toolResult = (callId: string, output: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId, name: 'bash', output }],
});
const site = (callId: string, messageIndex: number): ResultSite => ({
  key: callId,
  callId,
  name: 'bash',
  args: {},
  messageIndex,
  isError: false,
  tokens: 1,
});

/** The scan's maps as plain arrays, results by key. */
const summary = (scan: TermScan) => ({
  count: scan.count,
  sitesScanned: scan.sitesScanned,
  firstUserSeen: scan.firstUserSeen,
  resultsWith: Object.fromEntries(scan.resultsWith),
  resultsOf: Object.fromEntries([...scan.resultsOf].map(([term, sites]) => [term, sites.map((found) => found.key)])),
  known: [...scan.known].sort(),
  firstSaid: Object.fromEntries(scan.firstSaid),
  lastWritten: Object.fromEntries(scan.lastWritten),
});

describe('MAX_RESULTS_WITH_TERM', () => {
  it('is two results', () => {
    expect(MAX_RESULTS_WITH_TERM).toBe(2);
  });
});

describe('resultTerms', () => {
  const message: Message = {
    role: 'tool',
    parts: [
      { type: 'tool-result', callId: 'a', name: 'bash', output: 'src/config.py:10: def parse_config(raw_text):' },
      { type: 'tool-result', callId: 'b', name: 'bash', output: 'order ORDER-4411 total 99' },
    ],
  };

  it('finds the specific terms of the result answering a call', () => {
    expect([...resultTerms(message, 'a', undefined)]).toEqual([
      'src/config.py:10',
      'src/config.py',
      'config.py',
      'parse_config',
      'raw_text',
    ]);
    expect([...resultTerms(message, 'b', undefined)]).toEqual(['4411']);
  });

  it('finds nothing for a call with no result in the message, or no message', () => {
    expect(resultTerms(message, 'missing', undefined).size).toBe(0);
    expect(resultTerms(undefined, 'a', undefined).size).toBe(0);
    expect(resultTerms(text('user', 'parse_config'), 'a', undefined).size).toBe(0);
  });

  it('keeps the terms of a result by its part and reads the part once', () => {
    const memo: TermSetMemo = new WeakMap();
    const first = resultTerms(message, 'a', memo);
    expect(memo.get(message.parts[0] as object)).toBe(first);
    expect(resultTerms(message, 'a', memo)).toBe(first);
  });

  it('returns what the memo holds for a part, without reading the part again', () => {
    const memo: TermSetMemo = new WeakMap([[message.parts[0] as object, new Set(['remembered_term'])]]);
    expect([...resultTerms(message, 'a', memo)]).toEqual(['remembered_term']);
  });

  it('reads the head of a very long result only', () => {
    const long = toolResult('a', `early_term ${'x '.repeat(30_000)} late_term`);
    expect([...resultTerms(long, 'a', undefined)]).toEqual(['early_term']);
  });
});

describe('messageTerms', () => {
  it('reads the text and reasoning of a message, and every string and number of its call arguments', () => {
    const message: Message = {
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Looking at loadSettings' },
        { type: 'reasoning', text: 'maybe config_v2 matters' },
        {
          type: 'tool-call',
          id: 'c',
          name: 'bash',
          args: { command: 'grep -rn parse_config src', nested: [12345, { deep: 'DeepName' }], small: 7 },
        },
      ],
    };
    expect([...messageTerms(message, undefined)]).toEqual([
      'loadSettings',
      'config_v2',
      'parse_config',
      '12345',
      'DeepName',
    ]);
  });

  it('reads call arguments given as a plain string', () => {
    expect([...messageTerms(toolCall('c', 'cat src/app_main.py'), undefined)]).toEqual([
      'src/app_main.py',
      'app_main.py',
      'app_main',
    ]);
  });

  it('reads no tool result of the message', () => {
    const message: Message = {
      role: 'assistant',
      parts: [
        { type: 'tool-result', callId: 'x', name: 'bash', output: 'result_only_term' },
        { type: 'text', text: 'said_term' },
      ],
    };
    expect([...messageTerms(message, undefined)]).toEqual(['said_term']);
  });

  it('reads an argument object that refers to itself once', () => {
    const args: Record<string, unknown> = { name: 'cyclic_name' };
    args.self = args;
    args.again = { back: args };
    expect([...messageTerms(toolCall('c', args), undefined)]).toEqual(['cyclic_name']);
  });

  it('keeps leaves of separate arguments apart', () => {
    expect([...messageTerms(toolCall('c', { a: 'first_term', b: 'second_term' }), undefined)]).toEqual([
      'first_term',
      'second_term',
    ]);
  });

  it('finds no term in a message of plain words', () => {
    expect(messageTerms(text('user', 'please fix the bug, thanks'), undefined).size).toBe(0);
    expect(messageTerms({ role: 'user', parts: [] }, undefined).size).toBe(0);
  });

  it('keeps the terms of a message by the message', () => {
    const memo: TermSetMemo = new WeakMap();
    const message = text('user', 'fix parse_config');
    const first = messageTerms(message, memo);
    expect(memo.get(message)).toBe(first);
    expect(messageTerms(message, memo)).toBe(first);
  });
});

describe('newScan', () => {
  it('knows the terms of the system messages and nothing else yet', () => {
    const scan = newScan([text('system', 'You maintain config_loader in /srv/app')], undefined);
    expect(summary(scan)).toEqual({
      count: 0,
      sitesScanned: 0,
      firstUserSeen: false,
      resultsWith: {},
      resultsOf: {},
      known: ['config_loader', 'srv/app'],
      firstSaid: {},
      lastWritten: {},
    });
    expect(scan.hash).toBeUndefined();
  });

  it('knows nothing without system messages', () => {
    expect(newScan([], undefined).known.size).toBe(0);
  });
});

describe('extendScan', () => {
  const messages: Message[] = [
    text('user', 'Fix parse_config in src/config.py'),
    toolCall('c1', { command: 'grep -rn parse_config src' }),
    toolResult('c1', 'src/config.py:10: def parse_config(raw_text):'),
    text('assistant', 'raw_text is passed in; see loadSettings'),
    text('user', 'also check loadSettings and cacheKey'),
  ];

  it('counts the results of each term, and where the dialogue first said and last wrote it', () => {
    const scan = newScan([], undefined);
    extendScan(scan, messages, [site('c1', 2)], undefined);
    expect(summary(scan)).toEqual({
      count: 5,
      sitesScanned: 1,
      firstUserSeen: true,
      resultsWith: {
        'src/config.py:10': 1,
        'src/config.py': 1,
        'config.py': 1,
        parse_config: 1,
        raw_text: 1,
      },
      resultsOf: {
        'src/config.py:10': ['c1'],
        'src/config.py': ['c1'],
        'config.py': ['c1'],
        parse_config: ['c1'],
        raw_text: ['c1'],
      },
      // only the first user message is known without a result; the later one is not
      known: ['config.py', 'parse_config', 'src/config.py'],
      firstSaid: {
        parse_config: 0,
        'src/config.py': 0,
        'config.py': 0,
        raw_text: 3,
        loadSettings: 3,
        cacheKey: 4,
      },
      lastWritten: { parse_config: 1, raw_text: 3, loadSettings: 3 },
    });
  });

  it('reads neither system nor tool messages of the history as said', () => {
    const scan = newScan([], undefined);
    extendScan(scan, [text('system', 'system_term'), toolResult('x', 'tool_term')], [], undefined);
    expect(scan.firstSaid.size).toBe(0);
    expect(scan.known.size).toBe(0);
    expect(scan.count).toBe(2);
  });

  it('keeps at most MAX_RESULTS_WITH_TERM results per term, and counts them all', () => {
    const history = [
      toolCall('a', 'ls'),
      toolResult('a', 'shared_name only_a'),
      toolCall('b', 'ls'),
      toolResult('b', 'shared_name'),
      toolCall('c', 'ls'),
      toolResult('c', 'shared_name'),
    ];
    const scan = newScan([], undefined);
    extendScan(scan, history, [site('a', 1), site('b', 3), site('c', 5)], undefined);
    expect(scan.resultsWith.get('shared_name')).toBe(3);
    expect(scan.resultsOf.get('shared_name')?.map((found) => found.key)).toEqual(['a', 'b']);
    expect(scan.resultsOf.get('only_a')?.map((found) => found.key)).toEqual(['a']);
  });

  it('extended over a growing history, learns what one scan of the whole history learns', () => {
    const sites = [site('c1', 2)];
    const whole = newScan([], undefined);
    extendScan(whole, messages, sites, undefined);
    const growing = newScan([], undefined);
    extendScan(growing, messages.slice(0, 2), [], undefined);
    expect(growing.count).toBe(2);
    extendScan(growing, messages.slice(0, 3), sites, undefined);
    extendScan(growing, messages, sites, undefined);
    expect(summary(growing)).toEqual(summary(whole));
  });

  it('reads no message or result twice when extended with the same history', () => {
    const scan = newScan([], undefined);
    extendScan(scan, messages, [site('c1', 2)], undefined);
    const before = summary(scan);
    extendScan(scan, messages, [site('c1', 2)], undefined);
    expect(summary(scan)).toEqual(before);
  });

  it('does not mutate the history or the sites', () => {
    const sites = [site('c1', 2)];
    const messagesBefore = structuredClone(messages);
    const sitesBefore = structuredClone(sites);
    extendScan(newScan([], undefined), messages, sites, undefined);
    expect(messages).toEqual(messagesBefore);
    expect(sites).toEqual(sitesBefore);
  });
});
