import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentSource, FIXTURE_SOURCES } from '../../bench/agents/fixture-source.js';
import { seededRandom } from '../../bench/agents/generic/random.js';
import { GENERIC_AGENT, genericAgentRun, genericAgentRuns } from '../../bench/agents/generic-agent.js';
import { distinctiveTokens } from '../../bench/needed-later.js';
import { fixturesDir, readSessions, type SessionFile } from '../../examples/lib/session-file.js';

const toolNames = (session: SessionFile) =>
  new Set(session.messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.name)));

/** The text an assistant message writes: its words and its calls' arguments. */
const written = (message: SessionFile['messages'][number]) =>
  [message.content, ...(message.toolCalls ?? []).map((call) => JSON.stringify(call.args))].join('\n');

describe('seededRandom', () => {
  it('draws the same sequence for the same seed, another for another seed', () => {
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return [random.next(), random.int(1, 6), random.code(8), random.digits(5)];
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    const random = seededRandom(1);
    for (let index = 0; index < 200; index++) expect(random.int(3, 5)).toBeGreaterThanOrEqual(3);
    expect(seededRandom(3).digits(6)).toMatch(/^[1-9]\d{5}$/);
  });
});

describe('genericAgentRun', () => {
  const runs = genericAgentRuns();

  it('is deterministic: a seed gives the same run, labelled as the generated agent', () => {
    expect(genericAgentRun(4)).toEqual(genericAgentRun(4));
    expect(genericAgentRun(4)).not.toEqual(genericAgentRun(5));
    expect(runs.map((run) => run.id)).toEqual(runs.map((_run, index) => `${GENERIC_AGENT}/seed-${index + 1}`));
    for (const run of runs) expect(agentSource(run)).toBe(GENERIC_AGENT);
  });

  it('writes well-formed runs: several user tasks, one call per step, each answered by its result', () => {
    for (const run of runs) {
      const { messages } = run;
      expect(messages[0]?.role).toBe('system');
      expect(messages.filter((message) => message.role === 'user').length).toBeGreaterThanOrEqual(3);
      messages.forEach((message, index) => {
        if (message.role !== 'assistant' || !message.toolCalls) return;
        expect(message.toolCalls).toHaveLength(1);
        expect(messages[index + 1]).toMatchObject({ role: 'tool', toolCallId: message.toolCalls[0]?.id });
      });
      const ids = messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(messages.at(-1)?.role).toBe('assistant');
    }
  });

  it('quotes values of some outputs in later steps, several steps after, and never those of others', () => {
    const outputs = { never: 0, nextStepOnly: 0, threeStepsOnOrLater: 0 };
    for (const run of runs) {
      const results = run.messages.filter((message) => message.role === 'tool');
      const inOutputs = new Map<string, number>();
      for (const result of results) {
        for (const token of distinctiveTokens(result.content)) inOutputs.set(token, (inOutputs.get(token) ?? 0) + 1);
      }
      run.messages.forEach((message, index) => {
        if (message.role !== 'tool') return;
        const said = run.messages.slice(0, index).map(written).join('\n');
        // the output's own values: in no other output, not written before it
        const own = [...distinctiveTokens(message.content)].filter(
          (token) => inOutputs.get(token) === 1 && !said.includes(token),
        );
        const steps = run.messages.slice(index + 1).filter((other) => other.role === 'assistant');
        const uses = steps.flatMap((step, at) => (own.some((token) => written(step).includes(token)) ? [at] : []));
        if (uses.length === 0) outputs.never++;
        else if (uses.every((at) => at === 0)) outputs.nextStepOnly++;
        if (uses.some((at) => at >= 3)) outputs.threeStepsOnOrLater++;
      });
    }
    expect(outputs.never).toBeGreaterThan(100);
    expect(outputs.nextStepOnly).toBeGreaterThan(20);
    expect(outputs.threeStepsOnOrLater).toBeGreaterThan(40);
  });

  it('has tools and formats of its own: no tool name of the recorded runs', () => {
    const generated = new Set(runs.flatMap((run) => [...toolNames(run)]));
    expect([...generated].sort()).toEqual(
      [
        'annotate_account',
        'create_ticket',
        'grep_files',
        'http_get',
        'issue_refund',
        'list_dir',
        'lookup_customer',
        'query_db',
        'run_python',
        'send_email',
      ].sort(),
    );
    const dir = fixturesDir();
    if (!dir) return;
    const recorded = readSessions(resolve(dir, 'trajectories.jsonl'));
    expect(new Set(recorded.map((session) => agentSource(session)))).toEqual(new Set(FIXTURE_SOURCES));
    for (const session of recorded) for (const name of toolNames(session)) expect(generated.has(name)).toBe(false);
    expect(readFileSync(resolve(dir, 'trajectories.jsonl'), 'utf8')).not.toContain('"lookup_customer"');
  });
});
