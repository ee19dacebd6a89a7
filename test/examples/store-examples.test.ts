import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { UIMessage } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { noSqlite, postgresDown, redisDown } from '../helpers/services.js';

/**
 * The store examples, run as a user runs them: the Next.js route handler called with a `useChat` request by two
 * "instances" (the module loaded twice) on one Redis; the LangGraph agent on PostgreSQL and the SQLite server as
 * scripts (`npx tsx examples/stores/...`).
 */
const root = resolve(import.meta.dirname, '../..');
const runScript = async (file: string, ...args: string[]) =>
  (
    await promisify(execFile)(process.execPath, ['--import', 'tsx', resolve(root, file), ...args], {
      cwd: root,
      timeout: 90_000,
    })
  ).stdout;

const uiChat = (turns: number): UIMessage[] =>
  Array.from({ length: turns * 2 }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    parts: [
      {
        type: 'text',
        text: `Message ${index}: the deploy of service-${index} failed; ${'the health check timed out. '.repeat(12)}`,
      },
    ],
  }));

/** The metadata the route sent with the assistant message, read from the UI message stream (server-sent events). */
async function metadataOf(response: Response): Promise<{ compression?: Record<string, unknown> }> {
  const text = await response.text();
  const chunks = text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; messageMetadata?: object });
  return Object.assign({}, ...chunks.map((chunk) => chunk.messageMetadata ?? {}));
}

describe.skipIf(redisDown !== undefined)('examples/stores/next-route-redis.ts', () => {
  it('a second instance (the route loaded again) finds the state the first stored in Redis', async () => {
    const userId = `user-${process.pid}-${Date.now()}`;
    const chat = uiChat(30);
    const post = async (messages: UIMessage[]) => {
      const body = JSON.stringify({ messages, userId });
      const route = await import('../../examples/stores/next-route-redis.js');
      const response = await route.POST(new Request('http://localhost/api/chat', { method: 'POST', body }));
      expect(response.status).toBe(200);
      return metadataOf(response);
    };
    const first = await post(chat);
    expect(first.compression).toMatchObject({ reusedState: false });
    expect(first.compression?.messagesFolded).toBeGreaterThan(0);
    vi.resetModules();
    // the next turn of the conversation, as useChat sends it: the whole history and the new message
    const second = await post([
      ...chat,
      { id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'Raise the health-check timeout.' }] },
      { id: 'u', role: 'user', parts: [{ type: 'text', text: 'And for service-3?' }] },
    ]);
    expect(second.compression).toMatchObject({ reusedState: true, messagesFolded: 0 });
  });
});

describe.skipIf(postgresDown !== undefined)('examples/stores/langgraph-postgres.ts', () => {
  it('the second instance of the agent carries the thread on from the folds stored in PostgreSQL', async () => {
    const output = await runScript('examples/stores/langgraph-postgres.ts');
    expect(output).toMatch(/^instance 1: \d+ compressed calls, [1-9]\d* messages folded/m);
    expect(output).toMatch(/^instance 2: .*0 messages folded, stored state reused: true/m);
    expect(output).toContain('instance 2 summarized nothing again: true');
    expect(output).toContain('answer: module3 exports v0 to v29.');
    expect(output).toMatch(/^records of tenant-\d+ erased: [1-9]\d*$/m);
  });
});

describe.skipIf(noSqlite !== undefined)('examples/stores/sqlite-server.ts', () => {
  it('--demo: after a restart the server reuses the state it stored in the SQLite file', async () => {
    const output = await runScript('examples/stores/sqlite-server.ts', '--demo');
    expect(output).toMatch(/^before the restart: .*"messagesFolded":[1-9]/m);
    expect(output).toContain('the state stored before the restart was reused: true');
  });
});
