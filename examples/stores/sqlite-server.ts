/**
 * A single-machine chat server whose compression state lives in a SQLite file: restart it and a long conversation
 * carries on from the stored fold, with no new summary and the same prompt prefix (the provider's cache holds).
 * `POST /chat` takes `{ messages: ModelMessage[], userId? }` and answers `{ text, compression }`, where `compression`
 * is what the call's compression did (tokens before and after, messages folded, whether the stored state was reused).
 *
 * Needs Node.js 22.13 or later, or 22.5 with --experimental-sqlite (the store opens the file with node:sqlite); the
 * model is OpenAI's when OPENAI_API_KEY is set, else an offline mock.
 *
 *   npx tsx examples/stores/sqlite-server.ts          # serves on PORT (3000), state in ./context-compression.db
 *   npx tsx examples/stores/sqlite-server.ts --demo   # a long chat, a restart, and the same chat one turn later
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, type ModelMessage } from 'ai';
import { type CompressEvent, withContextCompression } from 'context-compression/ai-sdk';
import { sqliteStore } from 'context-compression/stores/sqlite';
import { exampleModel } from '../lib/example-model.js';

/** What the server answers about one call's compression. */
export interface CompressionSummary {
  tokensBefore: number;
  tokensAfter: number;
  messagesFolded: number;
  reusedState: boolean;
}

/** Starts the server on `port` (0: any free one) with its state in the SQLite file at `path`. */
export async function startServer(port: number, path: string): Promise<{ url: string; close(): Promise<void> }> {
  const store = sqliteStore({ path });
  // the compression event of the request being served: onCompress runs inside the request's own async context
  const events = new AsyncLocalStorage<{ event?: CompressEvent }>();
  const model = withContextCompression(exampleModel(), {
    contextWindow: 8_000,
    store,
    onCompress: (event) => {
      const request = events.getStore();
      if (request) request.event = event;
    },
  });
  const server: Server = createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== '/chat') {
      response.writeHead(404).end();
      return;
    }
    try {
      let body = '';
      for await (const chunk of request) body += chunk;
      const { messages, userId } = JSON.parse(body) as { messages: ModelMessage[]; userId?: string };
      const seen: { event?: CompressEvent } = {};
      const result = await events.run(seen, () =>
        generateText({
          model,
          instructions: 'You are a helpful assistant.',
          messages,
          providerOptions: userId ? { 'context-compression': { namespace: userId } } : undefined,
        }),
      );
      const compression: CompressionSummary | undefined = seen.event && {
        tokensBefore: seen.event.tokensBefore,
        tokensAfter: seen.event.tokensAfter,
        messagesFolded: seen.event.messagesFolded,
        reusedState: seen.event.reusedState,
      };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ text: result.text, compression }));
    } catch (error) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: (error as Error).message }));
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    },
  };
}

/** A long chat about one project, as a client resends it with every request. */
export function longChat(turns: number): ModelMessage[] {
  return Array.from({ length: turns }, (_, turn): ModelMessage[] => [
    { role: 'user', content: `Turn ${turn}: the deploy of service-${turn} failed with exit code ${100 + turn}. Why?` },
    {
      role: 'assistant',
      content: `Service-${turn} failed because its health check at /healthz/${turn} timed out after ${turn + 5} s. ${'Logs show slow start-up. '.repeat(12)}`,
    },
  ]).flat();
}

async function post(
  url: string,
  messages: ModelMessage[],
): Promise<{ text: string; compression?: CompressionSummary }> {
  const response = await fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages, userId: 'user-1' }),
  });
  return (await response.json()) as { text: string; compression?: CompressionSummary };
}

async function demo(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cc-sqlite-server-'));
  const path = join(dir, 'state.db');
  try {
    const chat = longChat(40);
    let server = await startServer(0, path);
    const first = await post(server.url, chat);
    console.log(`before the restart: ${JSON.stringify(first.compression)}`);
    await server.close();

    server = await startServer(0, path);
    const next = [
      ...chat,
      { role: 'assistant' as const, content: first.text },
      { role: 'user' as const, content: 'And service-3?' },
    ];
    const second = await post(server.url, next);
    console.log(`after the restart: ${JSON.stringify(second.compression)}`);
    console.log(
      `the state stored before the restart was reused: ${second.compression?.reusedState === true && second.compression.messagesFolded === 0}`,
    );
    await server.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  if (process.argv.includes('--demo')) await demo();
  else {
    const server = await startServer(
      Number(process.env.PORT ?? 3000),
      process.env.STATE_DB ?? 'context-compression.db',
    );
    console.log(`listening on ${server.url}; POST /chat { messages, userId? }`);
  }
}
