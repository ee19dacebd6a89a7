import { describe, expect, it } from 'vitest';
import { findQuotes, findResultsInUse, ResultsInUse, specificTerms } from '../../src/signals/results-in-use.js';
import { ResultSiteIndex } from '../../src/transcript/result-sites.js';
import type { Message } from '../../src/transcript/transcript.js';
import { meter, SYSTEM } from '../helpers/fixtures.js';
import { bash, call, result } from '../helpers/steps.js';

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const say = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] });

function inUse(messages: readonly Message[], from = 0, to = messages.length) {
  const sites = new ResultSiteIndex().sites('test', messages, meter);
  return findResultsInUse({ messages, system: SYSTEM, sites, from, to, memo: new WeakMap() });
}

describe('specificTerms', () => {
  it('keeps paths, dotted names, identifiers with _, digits or inner capitals, and long numbers', () => {
    const terms = specificTerms(
      'see src/billing/tax.py:120, np.ndarray, TAX_RATE, HAT023, NdarrayMixin, 20245, 1.25 and a table of Rows',
    );
    for (const term of ['src/billing/tax.py:120', 'src/billing/tax.py', 'tax.py', 'np.ndarray', 'TAX_RATE']) {
      expect(terms).toContain(term);
    }
    for (const term of ['HAT023', 'NdarrayMixin', '20245', '1.25']) expect(terms).toContain(term);
    // plain words, short names and short numbers say nothing specific
    for (const term of ['table', 'Rows', 'see', '120', 'and']) expect(terms).not.toContain(term);
  });
});

describe('findResultsInUse', () => {
  it('finds a result whose specific term the assistant wrote again later, with the last such message', () => {
    const messages = [
      user('Find why the invoice total is wrong.'),
      ...bash('c1', 'grep -rn total src', 'src/invoice.py:42: total = compute_total_v2(lines)'),
      say('The total comes from compute_total_v2.'), // 3
      ...bash('c2', 'ls', 'README.md setup.py'),
      call('c3', 'bash', { command: 'sed -n 1,80p src/compute_total_v2.py' }), // 6
      result('c3', 'bash', 'def run(): pass'),
    ];
    const found = inUse(messages);
    expect(found.map((each) => [each.callId, each.lastUse])).toEqual([['c1', 6]]);
    expect(found[0]?.term).toBe('compute_total_v2');
    // only the results in the range asked for
    expect(inUse(messages, 3)).toEqual([]);
  });

  it('ignores terms the agent knew without the result: the task, its own call, earlier words', () => {
    const messages = [
      user('Fix ORDER_LIMIT in src/orders.py.'),
      ...bash('c1', 'cat src/orders.py', 'ORDER_LIMIT = 10\nsrc/orders.py'),
      say('I will change ORDER_LIMIT in src/orders.py.'),
    ];
    expect(inUse(messages)).toEqual([]);
  });

  it('ignores terms that many results share (a name every listing repeats)', () => {
    const listing = 'module_registry loaded';
    const messages = [
      user('Look around.'),
      ...bash('c1', 'ls a', listing),
      ...bash('c2', 'ls b', listing),
      ...bash('c3', 'ls c', listing),
      say('Each listing mentions module_registry.'),
    ];
    expect(inUse(messages)).toEqual([]);
  });

  it('reads tool-call arguments with a cycle without failing', () => {
    const args: Record<string, unknown> = { command: 'cat src/compute_total_v2.py' };
    args.self = args;
    const messages = [
      user('Find why the invoice total is wrong.'),
      ...bash('c1', 'grep -rn total src', 'src/invoice.py:42: total = compute_total_v2(lines)'),
      call('c2', 'bash', args),
      result('c2', 'bash', 'def run(): pass'),
    ];
    expect(inUse(messages).map((each) => each.callId)).toEqual(['c1']);
  });

  it('the incremental scan of an engine finds what a scan from scratch finds, on a growing and on an edited history', () => {
    const steps = (variant: string): Message[] => [
      user('Find why the invoice total is wrong.'),
      ...Array.from({ length: 12 }, (_, step) => [
        ...bash(
          `c${step}`,
          `grep -n total_${step} src`,
          `src/mod_${step}.py:${10 + step}: total_${step} = rate_${variant}${step}`,
        ),
        say(step % 3 === 2 ? `Using rate_${variant}${step - 1} and src/mod_${step - 2}.py now.` : `Step ${step} done.`),
      ]).flat(),
    ];
    const index = new ResultsInUse();
    // the hash of each prefix, as the engine's prefix hashes are: of the content
    const hashOf = (text: string) => [...text].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) | 0, 7);
    const hashes = (messages: readonly Message[]) =>
      Array.from({ length: messages.length + 1 }, (_, count) => hashOf(JSON.stringify(messages.slice(0, count))));
    const check = (messages: readonly Message[], from: number) => {
      const sites = new ResultSiteIndex().sites('test', messages, meter);
      const found = index.find({
        conversation: 'one',
        messages,
        prefixHashes: hashes(messages),
        system: SYSTEM,
        sites,
        from,
        to: messages.length,
      });
      expect(found).toEqual(findResultsInUse({ messages, system: SYSTEM, sites, from, to: messages.length }));
      return found;
    };
    const grown = steps('a');
    for (let end = 2; end <= grown.length; end++) check(grown.slice(0, end), 0);
    expect(check(grown, 0).length).toBeGreaterThan(0);
    // an edited history under the same conversation key: scanned again, not extended
    const edited = steps('b');
    expect(check(edited, 3).map((each) => each.term)).toEqual(
      check(grown, 3).map((each) => each.term.replace('rate_a', 'rate_b')),
    );
    // and back: the scan of the first history is not mistaken for the edited one's
    check(grown.slice(0, 20), 0);
  });
});

describe('findQuotes', () => {
  const record = (id: string, email: string) => JSON.stringify({ customer: { id, email, tier: 'TIER_GOLD' } });
  const messages: Message[] = [
    user('Refund the duplicate charge of Maria Lindqvist; the order is ORD-7104455.'),
    call('l1', 'lookup_customer', { query: 'Maria Lindqvist' }),
    result('l1', 'lookup_customer', record('CU-482113', 'maria.lindqvist41@example.org')), // 2
    call('l2', 'lookup_customer', { query: 'Jonas Okafor' }),
    result('l2', 'lookup_customer', record('CU-913377', 'jonas.okafor12@example.org')), // 4
    call('o1', 'query_db', { sql: 'SELECT order_id FROM orders LIMIT 2' }),
    result('o1', 'query_db', 'order_id\nORD-7104455\nORD-7104456\ntier TIER_GOLD'), // 6
    // the id inside an SQL string (7), the address nested in a JSON argument (9), the order the user gave (11)
    call('q1', 'query_db', { sql: "SELECT total FROM charges WHERE holder = 'CU-482113'" }),
    result('q1', 'query_db', 'total\n129.40'),
    call('m1', 'send_email', { message: { to: ['maria.lindqvist41@example.org'], body: 'Refunded.' } }),
    result('m1', 'send_email', 'queued'),
    say('ORD-7104455 and ORD-7104456 are the two orders; TIER_GOLD applies.'), // 11
  ];
  const quotes = (from: number, readers: readonly number[]) => {
    const sites = new ResultSiteIndex().sites('test', messages, meter);
    return findQuotes({ messages, system: SYSTEM, sites, from, readers });
  };

  it('finds, by result, the readers that write a value specific to it, in any argument of any tool', () => {
    const found = quotes(0, [7, 9, 11]);
    const key = (callId: string) =>
      new ResultSiteIndex().sites('test', messages, meter).find((site) => site.callId === callId)?.key;
    expect(found.get(key('l1') as string)).toEqual([7, 9]);
    // ORD-7104456 is the query's own; ORD-7104455 the user wrote, and TIER_GOLD is in three results
    expect(found.get(key('o1') as string)).toEqual([11]);
    expect(found.has(key('l2') as string)).toBe(false);
    expect([...found.keys()]).toHaveLength(2);
  });

  it('reads only the readers asked for, only results before them and from `from` on', () => {
    const sites = new ResultSiteIndex().sites('test', messages, meter);
    const l1 = sites.find((site) => site.callId === 'l1')?.key as string;
    expect(quotes(0, [9]).get(l1)).toEqual([9]);
    expect(quotes(0, [1, 2]).size).toBe(0);
    expect(quotes(3, [7, 9, 11]).has(l1)).toBe(false);
    expect(quotes(0, []).size).toBe(0);
  });

  it('the incremental scan of an engine gives the same quotes as a scan from scratch', () => {
    const index = new ResultsInUse();
    const hashes = Array.from({ length: messages.length + 1 }, (_, count) => count);
    for (let end = 3; end <= messages.length; end++) {
      const prefix = messages.slice(0, end);
      const sites = new ResultSiteIndex().sites('test', prefix, meter);
      const readers = Array.from({ length: end }, (_, reader) => reader);
      expect(
        index.quotes({
          conversation: 'one',
          messages: prefix,
          prefixHashes: hashes,
          system: SYSTEM,
          sites,
          from: 0,
          readers,
        }),
      ).toEqual(findQuotes({ messages: prefix, system: SYSTEM, sites, from: 0, readers }));
    }
  });
});
