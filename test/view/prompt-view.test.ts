import { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';
import type { Memo, ResultEdit } from '../../src/masking/observation-masking.js';
import { resultSites } from '../../src/transcript/result-sites.js';
import type { Message, ToolResultPart } from '../../src/transcript/transcript.js';
import { buildView, newlyTruncated, type PromptView } from '../../src/view/prompt-view.js';
import { callOf, deepFreeze, expectSameObjects, fileText, meter, resultOf, text } from '../helpers/fixtures.js';

/** buildView and newlyTruncated on a hand-built agent history, counted by the approximate counter. */

const KEEP_RECENT = 2;
const RETRIEVAL = 'retrieve_tool_result';

const HISTORY: readonly Message[] = [
  text('user', 'Fix the failing test in src/app.ts.'), // 0
  callOf('read-0', 'read_file', { path: 'src/app.ts' }), // 1
  resultOf('read-0', 'read_file', fileText('app')), // 2
  callOf('grep-0', 'grep', { query: 'fixture' }), // 3
  resultOf('grep-0', 'grep', 'src/app.ts:12: fixture'), // 4
  callOf('read-1', 'read_file', { path: 'test/app.test.ts' }), // 5
  resultOf('read-1', 'read_file', fileText('test')), // 6
  text('assistant', 'The fixture is stale.'), // 7
];
const SITES = resultSites(HISTORY, meter);
const siteTokens = (key: string) => SITES.find((site) => site.key === key)?.tokens ?? -1;

type ViewCache = NonNullable<Parameters<typeof buildView>[0]['cache']>;
const newCache = (): ViewCache => ({
  edits: new LRUCache({ max: 100 }) as Memo<ResultEdit | false>,
  messages: new LRUCache({ max: 100 }) as Memo<Message>,
  descriptions: new WeakMap(),
  truncations: new WeakMap(),
});

function view({
  messages = HISTORY,
  from = 0,
  masked = [],
  redactions = [],
  maskReasons,
  maxToolResultTokens = 10_000,
  cache,
  retrievalToolName,
}: {
  messages?: readonly Message[];
  from?: number;
  masked?: string[];
  redactions?: [string, string][];
  maskReasons?: ReadonlyMap<string, string>;
  maxToolResultTokens?: number;
  cache?: ViewCache;
  retrievalToolName?: string;
} = {}): PromptView {
  return buildView({
    messages,
    from,
    sites: messages === HISTORY ? SITES : resultSites(messages, meter),
    masked: new Set(masked),
    redactions: new Map(redactions),
    keepRecent: KEEP_RECENT,
    maxToolResultTokens,
    meter,
    ...(cache ? { cache } : {}),
    ...(maskReasons ? { maskReasons } : {}),
    ...(retrievalToolName ? { retrievalToolName } : {}),
  });
}

/** The first tool result of a message. */
const resultIn = (message: Message | undefined) =>
  message?.parts.find((part): part is ToolResultPart => part.type === 'tool-result');

describe('buildView: untouched history', () => {
  it('hands back the same message objects and their counts when nothing is hidden or oversized', () => {
    const seen = view();
    expectSameObjects(seen.messages, HISTORY);
    expect(seen.tokens).toEqual(HISTORY.map((message) => meter.measure(message).tokens));
    expect(seen.truncatedIds).toEqual([]);
  });
});

describe('buildView: masks and redactions', () => {
  it('replaces a masked result by a placeholder naming its call and size, leaving the call and pairing', () => {
    const seen = view({ masked: ['read-0'] });
    const part = resultIn(seen.messages[2]);
    expect(part).toMatchObject({ callId: 'read-0', name: 'read_file', edited: true, edit: 'masked' });
    expect(part?.output).toBe(
      `[Result of read_file({"path":"src/app.ts"}) cleared to save context: ${siteTokens('read-0')} tokens, older than the 2 most recent tool results. Call the tool again if you need it.]`,
    );
    expect(seen.messages[2]?.edited).toBe(true);
    expect(seen.tokens[2]).toBe(meter.measure(seen.messages[2] as Message).tokens);
    expect(seen.tokens[2]).toBeLessThan(meter.measure(HISTORY[2] as Message).tokens);
    // every other message is the caller's object
    expectSameObjects(
      seen.messages.filter((_, index) => index !== 2),
      HISTORY.filter((_, index) => index !== 2),
    );
    expect(HISTORY[2]?.edited).toBeUndefined();
  });

  it("replaces a redacted result by the model's reason", () => {
    const part = resultIn(view({ redactions: [['read-1', 'The test file was already read.']] }).messages[6]);
    expect(part?.edit).toBe('redacted');
    expect(part?.output).toBe(
      `[Result of read_file({"path":"test/app.test.ts"}) redacted at the assistant's request: The test file was already read.]`,
    );
  });

  it('lets a redaction win over a mask of the same result', () => {
    const part = resultIn(view({ masked: ['read-1'], redactions: [['read-1', 'Not needed.']] }).messages[6]);
    expect(part?.edit).toBe('redacted');
    expect(part?.output).toContain('Not needed.');
  });

  it('gives a result masked as stale its reason instead of its age', () => {
    const part = resultIn(
      view({ masked: ['read-0'], maskReasons: new Map([['read-0', 'src/app.ts was edited since']]) }).messages[2],
    );
    expect(part?.edit).toBe('masked');
    expect(part?.output).toBe(
      `[Result of read_file({"path":"src/app.ts"}) cleared to save context: src/app.ts was edited since (${siteTokens('read-0')} tokens). Call the tool again if you need it.]`,
    );
  });

  it('names the retrieval tool and the call id in a placeholder when the call carries that tool', () => {
    const part = resultIn(view({ masked: ['read-0'], retrievalToolName: RETRIEVAL }).messages[2]);
    expect(part?.output).toMatch(/ retrieve_tool_result gives it back verbatim \(call id "read-0"\)\.\]$/);
  });

  it.each([
    ['masked', { masked: ['grep-0'] }],
    ['redacted', { redactions: [['grep-0', 'Acted on this search already.']] as [string, string][] }],
  ])('leaves a result alone when its %s placeholder would be longer than it', (_kind, hidden) => {
    const seen = view(hidden);
    expect(seen.messages[4]).toBe(HISTORY[4]);
    expect(resultIn(seen.messages[4])?.output).toBe('src/app.ts:12: fixture');
  });

  it('edits nothing before `from`: those messages are folded', () => {
    const seen = view({ masked: ['read-0', 'read-1'], from: 3 });
    expect(seen.messages[2]).toBe(HISTORY[2]);
    expect(resultIn(seen.messages[6])?.edit).toBe('masked');
  });

  it('ignores keys of results that are not in the history', () => {
    const seen = view({ masked: ['missing'], redactions: [['read-9', 'Gone.']] });
    expectSameObjects(seen.messages, HISTORY);
  });
});

describe('buildView: oversized results', () => {
  it('shortens every result over maxToolResultTokens and names its call in truncatedIds', () => {
    const seen = view({ maxToolResultTokens: 100 });
    expect(seen.truncatedIds).toEqual(['read-0', 'read-1']);
    for (const index of [2, 6]) {
      const part = resultIn(seen.messages[index]);
      expect(part?.edit).toBe('truncated');
      expect(part?.edited).toBe(true);
      expect(meter.countText(part?.output ?? '')).toBeLessThanOrEqual(100);
      expect(seen.tokens[index]).toBe(meter.measure(seen.messages[index] as Message).tokens);
    }
    // the small grep result and every message without a result stay the caller's objects
    expectSameObjects(
      [0, 1, 3, 4, 5, 7].map((index) => seen.messages[index]),
      [0, 1, 3, 4, 5, 7].map((index) => HISTORY[index]),
    );
  });

  it('shortens a result over the limit by one token, and none exactly at it', () => {
    const largest = Math.max(siteTokens('read-0'), siteTokens('read-1'));
    const larger = siteTokens('read-0') === largest ? 'read-0' : 'read-1';
    expect(siteTokens('read-0')).not.toBe(siteTokens('read-1'));
    const at = view({ maxToolResultTokens: largest });
    expect(at.truncatedIds).toEqual([]);
    expectSameObjects(at.messages, HISTORY);
    expect(view({ maxToolResultTokens: largest - 1 }).truncatedIds).toEqual([larger]);
  });

  it('does not shorten a placeholder: a masked result is no longer oversized', () => {
    const seen = view({ masked: ['read-0'], maxToolResultTokens: 100 });
    expect(seen.truncatedIds).toEqual(['read-1']);
    expect(resultIn(seen.messages[2])?.edit).toBe('masked');
  });

  it('ends a shortened result with where to get it back, and never shortens the retrieval tool own answers', () => {
    const history = [
      ...HISTORY,
      callOf('get-0', RETRIEVAL, { callId: 'read-0' }),
      resultOf('get-0', RETRIEVAL, fileText('again')),
    ];
    const seen = view({ messages: history, maxToolResultTokens: 100, retrievalToolName: RETRIEVAL });
    expect(seen.truncatedIds).toEqual(['read-0', 'read-1']);
    expect(resultIn(seen.messages[2])?.output).toMatch(
      /\n\[Shortened to save context; retrieve_tool_result gives it back verbatim \(call id "read-0"\)\.\]$/,
    );
    expect(seen.messages[9]).toBe(history[9]);
  });
});

describe('buildView: memo', () => {
  it('hands back the same edited objects on a later call with the same history and edits', () => {
    const cache = newCache();
    const first = view({ masked: ['read-0'], maxToolResultTokens: 100, cache });
    const second = view({ masked: ['read-0'], maxToolResultTokens: 100, cache });
    expect(second.messages[2]).toBe(first.messages[2]);
    expect(second.messages[6]).toBe(first.messages[6]);
  });

  it('reuses a placeholder message for an equal copy of the history (same content, new objects)', () => {
    const cache = newCache();
    const first = view({ masked: ['read-0'], cache });
    const copy = structuredClone([...HISTORY]);
    const second = view({ messages: copy, masked: ['read-0'], cache });
    expect(second.messages[2]).toBe(first.messages[2]);
    expect(second.messages[0]).toBe(copy[0]);
  });

  it('makes a new placeholder message when the edit changes', () => {
    const cache = newCache();
    const masked = view({ masked: ['read-0'], cache });
    const redacted = view({ redactions: [['read-0', 'Used already.']], cache });
    expect(redacted.messages[2]).not.toBe(masked.messages[2]);
    expect(resultIn(redacted.messages[2])?.edit).toBe('redacted');
  });

  it('cuts an oversized result again when the limit changes', () => {
    const cache = newCache();
    const wide = view({ maxToolResultTokens: 200, cache });
    const narrow = view({ maxToolResultTokens: 100, cache });
    expect(narrow.messages[2]).not.toBe(wide.messages[2]);
    expect(narrow.tokens[2]).toBeLessThan(wide.tokens[2] as number);
  });

  it('without a memo builds equal but new objects on every call', () => {
    const first = view({ masked: ['read-0'] });
    const second = view({ masked: ['read-0'] });
    expect(second.messages[2]).toEqual(first.messages[2]);
    expect(second.messages[2]).not.toBe(first.messages[2]);
  });
});

describe('buildView inputs', () => {
  it('does not mutate its inputs', () => {
    const messages = deepFreeze(structuredClone([...HISTORY]));
    const masked = new Set(['read-0']);
    const redactions = new Map([['read-1', 'Used already.']]);
    const seen = buildView({
      messages,
      from: 0,
      sites: deepFreeze(resultSites(messages, meter)),
      masked,
      redactions,
      keepRecent: KEEP_RECENT,
      maxToolResultTokens: 100,
      meter,
    });
    expect(resultIn(seen.messages[2])?.edit).toBe('masked');
    expect(resultIn(messages[2])?.output).toBe(fileText('app'));
    expect(resultIn(messages[6])?.output).toBe(fileText('test'));
    expect([...masked]).toEqual(['read-0']);
    expect([...redactions]).toEqual([['read-1', 'Used already.']]);
  });
});

describe('newlyTruncated', () => {
  const shortened = view({ maxToolResultTokens: 100 });
  /** Tokens a cut saved: the result's output before less its output in the view. */
  const saved = (index: number) =>
    meter.countText(resultIn(HISTORY[index])?.output ?? '') -
    meter.countText(resultIn(shortened.messages[index])?.output ?? '');

  it('counts every shortened result when the previous prompt showed none shortened', () => {
    const news = newlyTruncated({ view: shortened, messages: HISTORY, from: 0, previous: new Set(), meter });
    expect(news.count).toBe(2);
    expect(news.tokensFreed).toBe(saved(2) + saved(6));
    expect(news.tokensFreed).toBeGreaterThan(0);
    expect([...news.shown]).toEqual(['read-0', 'read-1']);
  });

  it('does not count again a result the previous prompt showed shortened, but still shows it', () => {
    const news = newlyTruncated({ view: shortened, messages: HISTORY, from: 0, previous: new Set(['read-0']), meter });
    expect(news.count).toBe(1);
    expect(news.tokensFreed).toBe(saved(6));
    expect([...news.shown]).toEqual(['read-0', 'read-1']);
  });

  it('reads only from `from` on', () => {
    const news = newlyTruncated({ view: shortened, messages: HISTORY, from: 3, previous: new Set(), meter });
    expect(news.count).toBe(1);
    expect(news.tokensFreed).toBe(saved(6));
    expect([...news.shown]).toEqual(['read-1']);
  });

  it('finds nothing in a view that shortened nothing', () => {
    const news = newlyTruncated({
      view: view({ masked: ['read-0'] }),
      messages: HISTORY,
      from: 0,
      previous: new Set(),
      meter,
    });
    expect(news).toEqual({ count: 0, tokensFreed: 0, shown: new Set() });
  });

  it('tells apart two results of one repeated call id by their keys', () => {
    const history = [
      text('user', 'Check the status twice.'),
      callOf('status', 'status', {}),
      resultOf('status', 'status', fileText('first')),
      callOf('status', 'status', {}),
      resultOf('status', 'status', fileText('second')),
      text('assistant', 'Done.'),
    ];
    const repeated = view({ messages: history, maxToolResultTokens: 100 });
    expect(repeated.truncatedIds).toEqual(['status', 'status']);
    const news = newlyTruncated({ view: repeated, messages: history, from: 0, previous: new Set(['status']), meter });
    expect(news.count).toBe(1);
    expect([...news.shown]).toEqual(['status', 'status#1']);
  });
});
