import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * examples/next-chat as a user runs it, in a real browser: the package packed (`npm pack`), the app installed with
 * `npm ci` against that tarball and built with `next build` (Turbopack, no special config), started with
 * `next start`, and driven in Debian's Chromium with playwright-core through enough messages that compression
 * happens. The page must show every answer, a compression panel reporting a fold, and no console error; a screenshot
 * goes to test-results/next-chat.png. Then the server restarts on the same state folder and carries the
 * conversation on. Skipped with the reason printed where no Chromium is installed (CI installs it, and sets
 * CC_REQUIRE_BROWSER so that it cannot skip), or with CC_SKIP_E2E set.
 */
const root = resolve(import.meta.dirname, '../..');
const CHROMIUM = process.env.CC_CHROMIUM ?? '/usr/bin/chromium';
const run = promisify(execFile);

function skipReason(): string | undefined {
  if (process.env.CC_SKIP_E2E) return 'CC_SKIP_E2E is set';
  if (!existsSync(CHROMIUM)) {
    const reason = `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
    if (process.env.CC_REQUIRE_BROWSER) throw new Error(`CC_REQUIRE_BROWSER is set, but ${reason}`);
    return reason;
  }
  return undefined;
}
const skip = skipReason();
if (skip) console.log(`examples/next-chat in Chromium: skipped, ${skip}`);

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

describe.skipIf(skip !== undefined)('examples/next-chat in Chromium', () => {
  let work = '';
  let app = '';
  let server: ChildProcess | undefined;
  let url = '';
  let serverOutput = '';
  const state = () => join(work, 'state');

  let port = 0;
  const start = async () => {
    // the same port after a restart: the open page goes on talking to it
    port ||= await freePort();
    url = `http://127.0.0.1:${port}`;
    serverOutput = '';
    server = spawn(join(app, 'node_modules/.bin/next'), ['start', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: app,
      env: { ...process.env, STATE_DIR: state(), OPENAI_API_KEY: '', NEXT_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (chunk) => (serverOutput += chunk));
    server.stderr?.on('data', (chunk) => (serverOutput += chunk));
    for (let attempt = 0; attempt < 120; attempt++) {
      try {
        if ((await fetch(url)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((wait) => setTimeout(wait, 250));
    }
    throw new Error(`next start did not answer: ${serverOutput}`);
  };
  const stop = async () => {
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((done) => server?.once('exit', done));
    server.kill('SIGTERM');
    await exited;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cc-next-chat-'));
    // the package as npm would publish it, where the app's package.json expects it (file:../../context-compression-*.tgz)
    // built from the sources under test (a dist left from an earlier build would be packed stale)
    await run('npm', ['run', 'build'], { cwd: root });
    await run('npm', ['pack', '--pack-destination', work], { cwd: root });
    app = join(work, 'examples/next-chat');
    mkdirSync(join(work, 'examples'));
    cpSync(join(root, 'examples/next-chat'), app, {
      recursive: true,
      filter: (source) => !/[\\/](node_modules|\.next|\.data)([\\/]|$)/.test(source),
    });
    await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 32 * 1024 * 1024 });
    await run('npm', ['run', 'build'], {
      cwd: app,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
      maxBuffer: 32 * 1024 * 1024,
    });
    await start();
  }, 600_000);

  afterAll(async () => {
    await stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('answers every message, shows a fold in the compression panel, logs no error; a restart carries the chat on', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    const problems: string[] = [];
    try {
      const page = await browser.newPage({ viewport: { width: 900, height: 1400 } });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
      await page.goto(url);
      const send = async (text: string, answers: number) => {
        await page.getByTestId('input').fill(text);
        await page.getByTestId('send').click();
        await page
          .locator('[data-role="assistant"]')
          .nth(answers - 1)
          .getByTestId('compression')
          .waitFor();
      };
      const question = (turn: number) =>
        `Message ${turn}: the deploy of service-${turn} failed with exit code ${100 + turn}. ${'The logs show a slow start and a health check that timed out. '.repeat(14)}`;
      // the first fold comes with message 9 (the threshold of the 4k window); the restart comes after message 10, so
      // that message 11 stays below the threshold: carried on from the stored state, it folds nothing new
      const turns = 10;
      for (let turn = 1; turn <= turns; turn++) await send(question(turn), turn);

      const answers = await page.locator('[data-role="assistant"]').allTextContents();
      expect(answers).toHaveLength(turns);
      for (const [index, answer] of answers.entries()) expect(answer).toContain(`Offline answer ${index + 1}:`);
      const panels = await page.getByTestId('compression').allTextContents();
      expect(
        panels.some((panel) => /folded \d+ messages into the session state/.test(panel)),
        panels.join('\n'),
      ).toBe(true);
      // after the fold, the model is told it received the session state
      expect(answers.at(-1)).toContain('including the session state');
      mkdirSync(join(root, 'test-results'), { recursive: true });
      await page.screenshot({ path: join(root, 'test-results/next-chat.png'), fullPage: true });

      // the server restarts; the page goes on with the same conversation: the stored state is found again
      await stop();
      await start();
      await send(question(turns + 1), turns + 1);
      // found again after the restart: the state is in the prompt, and this request folded nothing new
      const last = (await page.getByTestId('compression').allTextContents()).at(-1);
      expect(last).toMatch(/; \d+ messages in the session state; nothing changed/);
      expect((await page.locator('[data-role="assistant"]').allTextContents()).at(-1)).toContain(
        'including the session state',
      );
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 300_000);
});
