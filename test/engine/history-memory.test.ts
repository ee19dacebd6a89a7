import { describe, expect, it } from 'vitest';
import { HistoryMemory } from '../../src/engine/history-memory.js';
import type { Message } from '../../src/transcript/transcript.js';
import { chat } from '../helpers/fixtures.js';

const roundTrip = (messages: readonly Message[]): Message[] => JSON.parse(JSON.stringify(messages));

describe('HistoryMemory', () => {
  it('hands back the remembered objects for a resent history and takes the new messages as they are', () => {
    const memory = new HistoryMemory();
    const first = chat(6);
    expect(memory.reuse('c', first)).toBe(first);
    const resent = roundTrip([...first, ...chat(8).slice(6)]);
    const reused = memory.reuse('c', resent);
    for (let index = 0; index < 6; index++) expect(reused[index]).toBe(first[index]);
    expect(reused[6]).toBe(resent[6]);
    expect(reused[7]).toBe(resent[7]);
  });

  it('stops at the first difference: an edited message and everything after it are new', () => {
    const memory = new HistoryMemory();
    const first = chat(6);
    memory.reuse('c', first);
    const edited = roundTrip(first);
    edited[2] = { role: 'user', parts: [{ type: 'text', text: 'edited' }] };
    const reused = memory.reuse('c', edited);
    expect(reused.slice(0, 2)).toEqual(first.slice(0, 2));
    expect(reused[0]).toBe(first[0]);
    expect(reused[1]).toBe(first[1]);
    for (let index = 2; index < 6; index++) expect(reused[index]).toBe(edited[index]);
  });

  it('keeps conversations apart', () => {
    const memory = new HistoryMemory();
    const first = chat(4);
    memory.reuse('a', first);
    const other = roundTrip(first);
    expect(memory.reuse('b', other)).toBe(other);
  });

  it('forgets the least recently used conversations past its bound', () => {
    const memory = new HistoryMemory({ maxConversations: 2 });
    const first = chat(4);
    memory.reuse('a', first);
    memory.reuse('b', chat(2));
    memory.reuse('c', chat(2));
    const resent = roundTrip(first);
    expect(memory.reuse('a', resent)[0]).toBe(resent[0]);
  });
});
