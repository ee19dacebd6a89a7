/**
 * One instance of a service, in a process of its own: an engine on a shared store (Redis, PostgreSQL or a SQLite
 * file) that prints `ready`, sends a batch of parallel requests of one long conversation when a line arrives on
 * stdin, and prints, as one JSON line, how often its summarizer ran and what each request's prompt held. Run with
 * `node --import tsx`; the shared-instances test and `npm run bench:stores` start two of them (`runInstances`).
 */
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { SummarizerError } from '../../src/errors.js';
import type { ClosableStateStore } from '../../src/persistence/state-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { sqliteStore } from '../../src/stores/sqlite-store.js';
import { SYSTEM } from './fixtures.js';
import { pairedCalls, sharedConversation, sharedState, stateMessageText } from './shared-conversation.js';

export interface InstanceTask {
  readonly store:
    | { kind: 'redis'; url: string }
    | { kind: 'postgres'; url: string; table: string }
    | { kind: 'sqlite'; path: string };
  readonly namespace: string;
  /** The questions this instance's requests end with (one request each, all in parallel). */
  readonly questions: readonly number[];
  readonly summarizerDelayMs: number;
  /** `foldLease` of the engine: false for none. */
  readonly foldLease: { waitMs: number } | false;
}

export interface InstanceReport {
  readonly pid: number;
  readonly summarizerCalls: number;
  readonly requests: ReadonlyArray<{
    question: number;
    ms: number;
    folded: number;
    state: string | undefined;
    paired: boolean;
  }>;
  /** Requests that went on without the state another instance was making (`held-elsewhere`). */
  readonly heldElsewhere: number;
  readonly errors: readonly string[];
}

export function openStore(task: InstanceTask): ClosableStateStore {
  const spec = task.store;
  if (spec.kind === 'redis') return redisStore({ url: spec.url });
  if (spec.kind === 'postgres') return postgresStore({ connectionString: spec.url, table: spec.table });
  return sqliteStore({ path: spec.path });
}

async function main(): Promise<void> {
  const task = JSON.parse(process.argv[2] ?? '') as InstanceTask;
  const store = openStore(task);
  const errors: string[] = [];
  let heldElsewhere = 0;
  let summarizerCalls = 0;
  const engine = new CompressionEngine({
    contextWindow: 3_800,
    reserveOutputTokens: 500,
    tokenCounter: approximateCounter(),
    masking: false,
    triggers: { semantic: false },
    store,
    storeTimeoutMs: 5_000,
    foldLease: task.foldLease,
    namespace: task.namespace,
    summarizer: async () => {
      summarizerCalls++;
      await new Promise((resolve) => setTimeout(resolve, task.summarizerDelayMs));
      return sharedState(`process ${process.pid}`);
    },
    onError: (event) => {
      if (SummarizerError.isInstance(event.error) && event.error.reason === 'held-elsewhere') heldElsewhere++;
      else errors.push(`${event.error.name}: ${event.error.message}`);
    },
  });
  // the store connected, as a running service's is; then the requests wait for the word to start (a line on stdin),
  // which the parent gives once every instance is ready
  await store.get('cc-test:warm-up');
  process.stdout.write('ready\n');
  const go = await new Promise<boolean>((resolve) => {
    process.stdin.once('data', () => resolve(true));
    // the parent gone or given up: no word will come
    process.stdin.once('end', () => resolve(false));
  });
  if (!go) process.exit(2);
  process.stdin.pause();
  const requests = await Promise.all(
    task.questions.map(async (question) => {
      const started = performance.now();
      const out = await engine.compress({
        transcript: { system: SYSTEM, tools: [], messages: sharedConversation(question) },
        modelId: 'test-model',
      });
      return {
        question,
        ms: performance.now() - started,
        folded: out.event?.messagesFolded ?? 0,
        state: stateMessageText(out.messages),
        paired: pairedCalls(out.messages),
      };
    }),
  );
  await store.close();
  const report: InstanceReport = {
    pid: process.pid,
    summarizerCalls,
    requests,
    heldElsewhere,
    errors,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

/** Starts one worker process per task, lets them all begin together, and returns their reports. */
export async function runInstances(tasks: readonly InstanceTask[], timeoutMs = 120_000): Promise<InstanceReport[]> {
  const { spawn } = await import('node:child_process');
  const worker = new URL(import.meta.url).pathname;
  const children = tasks.map((task) =>
    spawn(process.execPath, ['--import', 'tsx', worker, JSON.stringify(task)], { stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const outputs = children.map((child) => {
    let text = '';
    // what a worker printed on stderr goes into the error that its end makes (a failure names its cause)
    let errors = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      errors += chunk;
    });
    let isReady = false;
    // ready once it said so; a worker that ends before that fails the run at once
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        text += chunk;
        if (!isReady && text.startsWith('ready\n')) {
          isReady = true;
          resolve();
        }
      });
      child.on('error', reject);
      child.on('close', (code) =>
        reject(new Error(`an instance ended before it was ready (${code}): ${text}${errors.slice(-2_000)}`)),
      );
    });
    const done = new Promise<string>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0
          ? resolve(text)
          : reject(new Error(`an instance exited with ${code}: ${text.slice(0, 500)}${errors.slice(-2_000)}`)),
      );
    });
    // both are awaited below, or the run failed: no rejection goes unheard
    ready.catch(() => {});
    done.catch(() => {});
    return { child, ready, done };
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the instances did not finish within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([Promise.all(outputs.map((output) => output.ready)), timeout]);
    for (const { child } of outputs) child.stdin.end('go\n');
    const texts = await Promise.race([Promise.all(outputs.map((output) => output.done)), timeout]);
    return texts.map((text) => JSON.parse(text.trim().split('\n').at(-1) ?? '') as InstanceReport);
  } finally {
    clearTimeout(timer);
    for (const { child } of outputs) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
