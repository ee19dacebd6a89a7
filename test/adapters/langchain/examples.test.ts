import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

/** Runs an example the way the README says (`npx tsx examples/...`) and returns what it printed. */
async function runExample(file: string): Promise<string> {
  const { stdout } = await promisify(execFile)(resolve(root, 'node_modules/.bin/tsx'), [file], {
    cwd: root,
    timeout: 60_000,
  });
  return stdout;
}

function numberAfter(text: string, pattern: RegExp): number {
  const match = pattern.exec(text);
  expect(match, `${pattern} in\n${text}`).not.toBeNull();
  return Number(match?.[1]);
}

describe('the LangChain.js examples', () => {
  it('langchain-chain.ts compresses a long chat in the chain step and in the wrapped model', async () => {
    const output = await runExample('examples/langchain-chain.ts');
    const chainCompressions = output.match(/^turn \d+: compressed \(\w+\): \d+ -> \d+ tokens/gm) ?? [];
    expect(chainCompressions.length).toBeGreaterThan(0);
    for (const line of chainCompressions) {
      const [, before, after] = /(\d+) -> (\d+)/.exec(line) ?? [];
      expect(Number(after)).toBeLessThan(Number(before));
    }
    expect(output).toContain("chain: 80 messages in the caller's history");
    // the last turn sends the system message and 79 history messages, uncompressed
    expect(numberAfter(output, /chain: .*the prompt had (\d+) messages/)).toBeLessThan(80);
    expect(output).toMatch(/^wrapper: compressed \(\w+\)/m);
    expect(output).toContain('still an ExampleChatModel (true); sent 82 messages');
    expect(numberAfter(output, /wrapper: still .*the prompt had (\d+) messages/)).toBeLessThan(82);
  });

  it('langchain-agent.ts keeps the agent state whole while the model sees compressed prompts', async () => {
    const output = await runExample('examples/langchain-agent.ts');
    expect(output).toMatch(/^step \d+ \(redaction\): 1 result redacted/m);
    expect(output).toMatch(/^step \d+ \(\S+\): \d+ messages folded/m);
    expect(output).toContain('answer: Fixed: auth, billing and api suites pass.');

    const stateMessages = numberAfter(output, /agent state: (\d+) messages/);
    const calls = numberAfter(output, /model calls: (\d+);/);
    const toolResults = numberAfter(output, /(\d+) tool results\)/);
    expect(calls).toBe(21);
    expect(stateMessages).toBe(1 + calls + toolResults);

    const sent = (/messages sent per call: ([\d ]+)$/m.exec(output)?.[1] ?? '').trim().split(' ').map(Number);
    expect(sent).toHaveLength(calls);
    // uncompressed, the last call would send the system message and every state message but the answer
    expect(sent.at(-1)).toBeLessThan(stateMessages);
    expect(Math.max(...sent)).toBeLessThan(stateMessages - 10);
    expect(sent.some((count, index) => index > 0 && count < (sent[index - 1] ?? 0))).toBe(true);

    expect(output).toContain('the system message was the same on every call: true');
    expect(output).toContain(
      `the last call's <session_state> message starts with the awareness block: "## Earlier turns"`,
    );
  });
});
