import { describe, expect, it } from 'vitest';
import { prepare, QUESTION } from '../../bench/compare/data.js';
import { replaySystem } from '../../bench/compare/replay-system.js';
import type { Setup, System, SystemRun } from '../../bench/compare/types.js';
import type { SessionFile } from '../../examples/lib/session-file.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { text } from '../helpers/fixtures.js';

const session = {
  id: 'chat',
  source: 'test',
  messages: [
    { role: 'user', content: 'Ann: I adopted a beagle called Biscuit.' },
    { role: 'assistant', content: 'Bo: Biscuit! Lovely name.' },
    { role: 'user', content: 'Ann: We hiked Mount Tam on Sunday.' },
    { role: 'assistant', content: 'Bo: That trail is steep.' },
  ],
  qa: [
    { question: 'What dog did Ann adopt?', answer: 'a beagle', category: 'single-hop', evidence: [], evidenceIdx: [0] },
    { question: 'Where did Ann hike?', answer: 'Mount Tam', category: 'single-hop', evidence: [], evidenceIdx: [2] },
    { question: 'Anything?', answer: '', category: 'adversarial', evidence: [], evidenceIdx: [1] },
  ],
} as unknown as SessionFile;

const setup = (): Setup => ({
  contextWindow: 8_000,
  reserveOutputTokens: 500,
  budget: 7_500,
  tokenCounter: approximateCounter(),
  summarizerCalls: { count: 0, inputTokens: 0, outputTokens: 0 },
});

/**
 * A system whose prompt is every user message it was ever sent (its own state), keeping only those that mention
 * `keep` (so it forgets the rest), recording what each call saw.
 */
function statefulSystem(fork: boolean, keep = '') {
  const prompts: string[] = [];
  const run = (state: string[]): SystemRun => ({
    async call(history) {
      const last = history.model.at(-1);
      const content = typeof last?.content === 'string' ? last.content : '';
      if (last?.role === 'user') state.push(content);
      const kept = state.filter((each) => each.includes(keep) || each === content);
      prompts.push(kept.join('\n'));
      return { system: [], tools: [], messages: kept.map((each) => text('user', each)) };
    },
    ...(fork ? { fork: () => run([...state]) } : {}),
  });
  const system: System = { name: 'test', config: '', create: () => run([]) };
  return { system, prompts };
}

describe('replaySystem at question time', () => {
  it('asks every question with evidence on its own copy of a stateful run, one call each', async () => {
    const { system, prompts } = statefulSystem(true);
    const figures = await replaySystem(system, prepare(session, true), setup(), () => {});
    expect(figures.evidence).toMatchObject({ retained: 2, total: 2, byCategory: { 'single-hop': [2, 2] } });
    const questionPrompts = prompts.slice(-2);
    expect(questionPrompts[0]).toContain('What dog did Ann adopt?');
    expect(questionPrompts[1]).toContain('Where did Ann hike?');
    // a copy each: the second question never sees the first
    expect(questionPrompts[1]).not.toContain('What dog did Ann adopt?');
    expect(prompts.join('\n')).not.toContain(QUESTION);
  });

  it('first sends a generic question as long as the longest real one to a run without copies', async () => {
    const { system, prompts } = statefulSystem(false);
    await replaySystem(system, prepare(session, true), setup(), () => {});
    const closing = prompts.at(-3) ?? '';
    expect(closing).toContain(QUESTION);
    expect(closing.split('\n').at(-1)?.length).toBeGreaterThanOrEqual('What dog did Ann adopt?'.length);
  });

  it('counts a question whose evidence the prompt lost as not retained, per category', async () => {
    const { system } = statefulSystem(true, 'beagle');
    const figures = await replaySystem(system, prepare(session, true), setup(), () => {});
    expect(figures.evidence).toMatchObject({ retained: 1, total: 2, byCategory: { 'single-hop': [1, 2] } });
  });
});
