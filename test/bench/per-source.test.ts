import { createRequire } from 'node:module';
import { wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { fixtureSource, sourceFromTools } from '../../bench/agents/fixture-source.js';
import { chooseSetting } from '../../bench/agents/leave-one-source-out.js';
import { formatRow, HEADER, judge } from '../../bench/agents/per-source-table.js';
import type { RunFigures } from '../../bench/agents/run-figures.js';
import { aggregate, callsBetween, figuresBySource, median } from '../../bench/agents/source-figures.js';
import { slidingWindowMasking } from '../../bench/baselines/sliding-window-masking.js';
import type { SessionFile, SessionFileMessage } from '../../examples/lib/session-file.js';

/** The replay measures prompts with tiktoken, an optional dependency; without it the replay cases are skipped. */
const hasTiktoken = (() => {
  try {
    createRequire(import.meta.url).resolve('tiktoken');
    return true;
  } catch {
    return false;
  }
})();
if (!hasTiktoken) console.log('skipped the replay cases: the optional `tiktoken` package is not installed');

/** Padding that makes an output longer than a masking placeholder, with no distinctive tokens. */
const filler = ' and the rest of this listing is plain prose that says nothing specific at all'.repeat(4);

function bash(content: string, id: string, command: string): SessionFileMessage {
  return { role: 'assistant', content, toolCalls: [{ id, name: command.split(' ')[0] ?? 'bash', args: { command } }] };
}

const tool = (id: string, content: string): SessionFileMessage => ({ role: 'tool', content, toolCallId: id });

/**
 * Five calls (one per assistant turn). c1's output names src/app/loader.py, which the answer to call 3 edits; the
 * other outputs are never referenced again.
 */
const bashRun: SessionFile = {
  id: 'hand/loader',
  source: 'mini-swe-agent/hand',
  messages: [
    { role: 'system', content: 'You are a coding agent. Run one command per turn.' },
    { role: 'user', content: 'Fix the crash when the configuration file is missing.' },
    bash('Find the loader.', 'c1', 'grep -rn load_config src'),
    tool('c1', `src/app/loader.py:12: def load_config(path):${filler}`),
    bash('Read the settings.', 'c2', 'cat settings.ini'),
    tool('c2', `timeout = 30${filler}`),
    bash('Run the tests.', 'c3', 'pytest -q'),
    tool('c3', `3 passed${filler}`),
    bash('Guard the open call.', 'c4', "sed -i 's/open(path)/open_or_default(path)/' src/app/loader.py"),
    tool('c4', `done${filler}`),
    { role: 'assistant', content: 'Fixed.' },
  ],
};

/** A function-calling run with no `source` field: its tool shapes tell the source. */
const apiRun: SessionFile = {
  id: 'hand/airline',
  messages: [
    { role: 'user', content: 'Cancel my reservation.' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'r1', name: 'get_reservation_details', args: { reservation_id: 'ZFA04Y' } }],
    },
    tool('r1', `{"reservation_id": "ZFA04Y", "status": "confirmed"}${filler}`),
    { role: 'assistant', content: '', toolCalls: [{ id: 'r2', name: 'cancel_reservation', args: { id: 'ZFA04Y' } }] },
    tool('r2', `{"status": "cancelled"}${filler}`),
    { role: 'assistant', content: 'Your reservation is cancelled.' },
  ],
};

const run = (source: RunFigures['source'], fields: Partial<RunFigures>): RunFigures => ({
  id: `${source}-${fields.sentTokens ?? 0}`,
  source,
  calls: 10,
  sentTokens: 1_000,
  cost: 500,
  floor: 250,
  hidden: 0,
  neededLater: 0,
  compressions: [],
  ...fields,
});

describe('fixtureSource', () => {
  it('reads the source field, then the id, then the tool shapes', () => {
    expect(fixtureSource(bashRun)).toBe('mini-swe-agent');
    expect(fixtureSource({ ...bashRun, source: 'swe-agent/java' })).toBe('SWE-agent');
    expect(fixtureSource({ ...bashRun, source: undefined, id: 'tau-bench/airline/task1' })).toBe('tau-bench');
    expect(fixtureSource(apiRun)).toBe('tau-bench');
    const aci = bash('Open it.', 'o1', 'open src/Main.java 40');
    expect(sourceFromTools({ id: 'x', messages: [aci] })).toBe('SWE-agent');
    expect(sourceFromTools({ ...bashRun, source: undefined })).toBe('mini-swe-agent');
    expect(fixtureSource({ id: 'hand/chat', messages: [{ role: 'user', content: 'hi' }] })).toBeUndefined();
  });
});

describe('per-source aggregation', () => {
  it('measures epochs between compressions', () => {
    expect(callsBetween([2, 3, 7, 15])).toEqual([1, 4, 8]);
    expect(callsBetween([5])).toEqual([]);
    expect(median([8, 1, 4])).toBe(4);
    expect(median([1, 4, 8, 15])).toBe(6);
    expect(median([])).toBeUndefined();
  });

  it('pools runs per source and overall: sums, and rates of the sums', () => {
    const figures = figuresBySource([
      run('tau-bench', { sentTokens: 300, cost: 90, floor: 30, hidden: 4, neededLater: 1, compressions: [1, 5] }),
      run('mini-swe-agent', { sentTokens: 1_000, cost: 400, floor: 100, hidden: 2, neededLater: 1, compressions: [3] }),
      run('tau-bench', { sentTokens: 700, cost: 210, floor: 70, hidden: 6, neededLater: 0, compressions: [2, 4, 10] }),
    ]);
    expect([...figures.keys()]).toEqual(['mini-swe-agent', 'tau-bench', 'overall']);
    expect(figures.get('tau-bench')).toMatchObject({
      runs: 2,
      sentTokens: 1_000,
      costRatio: 3,
      hidden: 10,
      neededLater: 1,
      rate: 0.1,
      compressions: 5,
      callsBetween: [4, 2, 6],
      minCallsBetween: 2,
      medianCallsBetween: 4,
    });
    expect(figures.get('mini-swe-agent')).toMatchObject({ rate: 0.5, minCallsBetween: undefined });
    expect(figures.get('overall')).toMatchObject({ runs: 3, sentTokens: 2_000, cost: 700, floor: 200, rate: 2 / 12 });
  });

  it('prints a row with the figures and the target marks, and judges the targets', () => {
    const baseline = figuresBySource([
      run('mini-swe-agent', { sentTokens: 1_000, cost: 1_500, hidden: 10, neededLater: 5, compressions: [1, 2, 3] }),
      run('tau-bench', { sentTokens: 1_000, cost: 1_000, hidden: 10, neededLater: 2, compressions: [1, 2] }),
    ]);
    const policy = figuresBySource([
      run('mini-swe-agent', { sentTokens: 700, cost: 500, hidden: 8, neededLater: 1, compressions: [2, 8, 20] }),
      run('tau-bench', { sentTokens: 1_300, cost: 550, hidden: 4, neededLater: 1, compressions: [4] }),
    ]);
    const mini = policy.get('mini-swe-agent');
    const miniBase = baseline.get('mini-swe-agent');
    if (!mini || !miniBase) throw new Error('missing figures');
    const row = formatRow({
      window: '16k',
      scope: 'mini-swe-agent',
      system: 'default policy',
      figures: mini,
      baseline: miniBase,
      judge: { contextWindow: 16_000, tokenTarget: true, scope: 'mini-swe-agent' },
    });
    expect(row.split(/\s+/).filter(Boolean)).toEqual(
      ['16k', 'mini-swe-agent', 'default', 'policy', '700', '0.70x', 'ok', '2.00x', 'ok'].concat([
        '8',
        '1/8',
        '=',
        '0.125',
        'ok',
        '3',
        '6',
        '/',
        '9',
        'ok',
      ]),
    );
    expect(HEADER.indexOf('input tokens') + 'input tokens'.length).toBe(row.indexOf('700') + 3);

    const verdicts = judge(policy, baseline, 200_000, true);
    expect(verdicts.map(({ target, met }) => [target, met])).toEqual([
      ['needed later below SW on every source', false],
      ['tokens <= 1.25x SW on every source', false],
      ['overall needed later >= 40% below SW', true],
      ['cost <= 2.34x floor', true],
      ['median calls between compressions >= 4', true],
    ]);
    expect(verdicts[0]?.detail).toBe('mini-swe-agent 0.125 vs 0.500, tau-bench 0.250 vs 0.200');
    expect(verdicts[2]?.detail).toBe('0.167 vs 0.350: 52% below');
  });
});

describe('chooseSetting (leave one source out)', () => {
  const baseline = [run('mini-swe-agent', {}), run('tau-bench', {}), run('SWE-agent', {})];
  const setting = (name: string, tokens: number, rates: [number, number, number]) => ({
    name,
    runs: (['mini-swe-agent', 'tau-bench', 'SWE-agent'] as const).map((source, index) =>
      run(source, { sentTokens: tokens, hidden: 100, neededLater: rates[index] as number }),
    ),
  });

  it('chooses the lowest rate on the other sources among settings within the token limit', () => {
    const candidates = [
      setting('default', 1_000, [10, 10, 10]),
      setting('hides less', 1_300, [1, 1, 1]),
      setting('fits the others', 1_200, [50, 2, 4]),
    ];
    const choice = chooseSetting('mini-swe-agent', candidates, baseline);
    expect(choice).toMatchObject({ setting: 'fits the others', withinLimit: true, trainingTokenRatio: 1.2 });
    expect(choice.training.rate).toBe(0.03);
    expect(choice.heldOutFigures).toMatchObject({ runs: 1, rate: 0.5 });
    expect(chooseSetting('tau-bench', candidates, baseline).setting).toBe('default');
  });

  it('falls back to the fewest tokens when no setting is within the limit', () => {
    const choice = chooseSetting(
      'SWE-agent',
      [setting('a', 1_400, [1, 1, 1]), setting('b', 1_300, [9, 9, 9])],
      baseline,
    );
    expect(choice).toMatchObject({ setting: 'b', withinLimit: false });
  });
});

describe('measureRun on a hand-written run', () => {
  it.skipIf(!hasTiktoken)('counts compressions, hidden and needed-later observations of a replay', async () => {
    const { measureRun } = await import('../../bench/agents/run-figures.js');
    const plain = await measureRun(bashRun, (mock) => mock);
    expect(plain).toMatchObject({ source: 'mini-swe-agent', calls: 5, hidden: 0, neededLater: 0, compressions: [] });
    // Keeping 1 result masks c1 from call 2 on, c2 from call 3, c3 from call 4: each of those calls rewrites the
    // prompt. Only c1's src/app/loader.py is used again (by the answer to call 3).
    const masked = await measureRun(bashRun, (mock) =>
      wrapLanguageModel({ model: mock, middleware: slidingWindowMasking(1) }),
    );
    expect(masked).toMatchObject({ calls: 5, hidden: 3, neededLater: 1, compressions: [2, 3, 4] });
    expect(masked.sentTokens).toBeLessThan(plain.sentTokens);
    expect(masked.floor).toBe(plain.floor);
    expect(masked.cost / masked.floor).toBeGreaterThan(plain.cost / plain.floor);

    const api = await measureRun(apiRun, (mock) => mock);
    const figures = figuresBySource([masked, api]);
    expect([...figures.keys()]).toEqual(['mini-swe-agent', 'tau-bench', 'overall']);
    expect(figures.get('overall')).toMatchObject({
      runs: 2,
      calls: 8,
      sentTokens: masked.sentTokens + api.sentTokens,
      hidden: 3,
      rate: 1 / 3,
      callsBetween: [1, 1],
      minCallsBetween: 1,
      medianCallsBetween: 1,
    });
    expect(aggregate([masked]).costRatio).toBeCloseTo(masked.cost / masked.floor);
  });
});
