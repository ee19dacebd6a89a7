import { describe, expect, it } from 'vitest';
import { CutPointIndex, cutPointsFor } from '../../src/transcript/cut-point-index.js';
import { cutPoints, findPairingProblems } from '../../src/transcript/tool-pairs.js';
import type { Message, Part } from '../../src/transcript/transcript.js';

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] });
const call = (id: string): Part => ({ type: 'tool-call', id, name: 'read', args: { id } });
const result = (id: string): Part => ({ type: 'tool-result', callId: id, name: 'read', output: `out ${id}` });
const calls = (...ids: string[]): Message => ({
  role: 'assistant',
  parts: [{ type: 'text', text: 'working' }, ...ids.map(call)],
});
const results = (...ids: string[]): Message => ({ role: 'tool', parts: ids.map(result) });

/** True when no call is on one side of `cut` and its result on the other. */
function keepsPairs(messages: readonly Message[], cut: number): boolean {
  const before = new Set<string>();
  const after = new Set<string>();
  messages.forEach((message, index) => {
    for (const part of message.parts) {
      const id = part.type === 'tool-call' ? part.id : part.type === 'tool-result' ? part.callId : undefined;
      if (id) (index < cut ? before : after).add(id);
    }
  });
  return [...before].every((id) => !after.has(id));
}

describe('cutPoints', () => {
  it('allows every boundary of a plain chat except 0', () => {
    const messages = [user('a'), assistant('b'), user('c'), assistant('d')];
    expect(cutPoints(messages)).toEqual([1, 2, 3]);
  });

  it('keeps parallel calls of one assistant message with their results in one tool message', () => {
    const messages = [user('task'), calls('a', 'b', 'c'), results('a', 'b', 'c'), assistant('done'), user('next')];
    const points = cutPoints(messages);
    expect(points).toEqual([1, 3, 4]);
    for (const cut of points) expect(keepsPairs(messages, cut)).toBe(true);
  });

  it('waits for every result when parallel results come in separate tool messages', () => {
    const messages = [
      user('task'),
      calls('a', 'b'),
      results('a'),
      results('b'),
      calls('c'),
      results('c'),
      assistant('ok'),
    ];
    const points = cutPoints(messages);
    expect(points).toEqual([1, 4, 6]);
    for (const cut of points) expect(keepsPairs(messages, cut)).toBe(true);
  });

  it.each([
    ['an agent loop', [user('t'), calls('a'), results('a'), calls('b', 'c'), results('c', 'b'), assistant('x')]],
    ['a call never answered', [user('t'), calls('a'), results('a'), calls('b'), user('interrupt'), assistant('y')]],
    ['results split from text', [user('t'), calls('a', 'b'), results('b'), results('a'), user('u'), assistant('v')]],
  ])('never splits a call from its result: %s', (_name, messages) => {
    expect(cutPoints(messages).length).toBeGreaterThan(0);
    for (const cut of cutPoints(messages)) {
      expect(keepsPairs(messages, cut)).toBe(true);
      expect(messages[cut]?.role).not.toBe('tool');
    }
  });

  it('gives no cut points for empty or single-message transcripts', () => {
    expect(cutPoints([])).toEqual([]);
    expect(cutPoints([user('only')])).toEqual([]);
  });
});

describe('findPairingProblems', () => {
  it('finds nothing in a well-formed agent loop', () => {
    const messages = [user('t'), calls('a', 'b'), results('a', 'b'), calls('c'), results('c'), assistant('done')];
    expect(findPairingProblems(messages)).toEqual([]);
  });

  it.each<[string, Message[], ReturnType<typeof findPairingProblems>]>([
    [
      'an orphan result',
      [user('t'), results('x'), assistant('a')],
      [{ kind: 'orphan-result', messageIndex: 1, toolCallId: 'x' }],
    ],
    [
      'a call without result',
      [user('t'), calls('a', 'b'), results('a'), assistant('a')],
      [{ kind: 'call-without-result', messageIndex: 1, toolCallId: 'b' }],
    ],
    ['an empty message', [user('t'), { role: 'assistant', parts: [] }], [{ kind: 'empty-message', messageIndex: 1 }]],
    [
      'a result before its call',
      [user('t'), results('a'), calls('a')],
      [
        { kind: 'orphan-result', messageIndex: 1, toolCallId: 'a' },
        { kind: 'call-without-result', messageIndex: 2, toolCallId: 'a' },
      ],
    ],
    [
      'a result answered twice',
      [user('t'), calls('a'), results('a'), results('a')],
      [{ kind: 'result-before-call', messageIndex: 3, toolCallId: 'a' }],
    ],
  ])('detects %s', (_name, messages, expected) => {
    expect(findPairingProblems(messages)).toEqual(expected);
  });

  it('accepts open calls in the final assistant message only when asked', () => {
    const messages = [user('t'), calls('a'), results('a'), calls('b')];
    expect(findPairingProblems(messages)).toEqual([{ kind: 'call-without-result', messageIndex: 3, toolCallId: 'b' }]);
    expect(findPairingProblems(messages, { allowOpenCallsAtEnd: true })).toEqual([]);
    const notLast = [user('t'), calls('b'), user('u')];
    expect(findPairingProblems(notLast, { allowOpenCallsAtEnd: true })).toHaveLength(1);
  });
});

describe('CutPointIndex', () => {
  const history = [
    user('a'),
    calls('c1', 'c2'),
    results('c1'),
    results('c2'),
    assistant('b'),
    user('c'),
    calls('c3'),
    results('c3'),
    assistant('d'),
  ];

  it('finds the points cutPoints finds, for a history read whole or grown a message at a time', () => {
    const index = new CutPointIndex();
    for (let end = 0; end <= history.length; end++) {
      const messages = history.slice(0, end);
      const found = index.cuts('conversation', messages);
      expect(found.list).toEqual(cutPoints(messages));
      for (let at = -1; at <= end + 1; at++) expect(found.has(at)).toBe(cutPoints(messages).includes(at));
      expect(cutPointsFor(messages).list).toEqual(cutPoints(messages));
    }
  });

  it('reads a history again from the start when it is not a continuation of the last one', () => {
    const index = new CutPointIndex();
    index.cuts('conversation', history);
    // a shorter history, and one whose first messages are other objects (an edit), are read whole
    const edited = [user('a2'), ...history.slice(1, 4), user('z')];
    expect(index.cuts('conversation', history.slice(0, 3)).list).toEqual(cutPoints(history.slice(0, 3)));
    expect(index.cuts('conversation', edited).list).toEqual(cutPoints(edited));
    // an earlier call's points are its own: a later call that grows the history does not change them
    const early = index.cuts('other', history.slice(0, 5));
    const before = [...early.list];
    index.cuts('other', history);
    expect(early.list).toEqual(before);
  });
});
