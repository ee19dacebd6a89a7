/**
 * Section 1b of `npm run bench`: the o200k_base tokenizers for JavaScript side by side on ~200k tokens of the fixture
 * trajectories' texts. Cold is loading the tokenizer, building its encoder and the first count, in a fresh process
 * each; warm is a second count. Counts are compared text by text with tiktoken's, all cut in the same chunks.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { SessionFile } from '../examples/lib/session-file.js';

const TOKENIZERS = ['tiktoken', 'gpt-tokenizer', 'js-tiktoken'] as const;
const PER_TOKENS = 200_000;
/** About 200k tokens at the fixtures' ~4 characters a token. */
const CORPUS_CHARS = 800_000;
const RUN_CHARS = 200_000;

interface ChildResult {
  coldMs: number;
  warmMs: number;
  rssMb: number;
  heapMb: number;
  counts: number[];
}

/** A long run that takes longer than this is reported as such: BPE on a run without spaces can take hours. */
const RUN_TIMEOUT_MS = 30_000;

/** A deterministic pseudo-random sequence (a linear congruential generator), so every run counts the same text. */
export function* pseudoRandom(seed: number): Generator<number> {
  let state = seed;
  for (;;) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    yield state / 2_147_483_648;
  }
}

/** Common Chinese characters, for CJK text without spaces. */
export const COMMON_CJK =
  '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切店随落底';

/** Long runs without a space, where BPE is slowest: CJK prose and base64. */
function longRuns(): Record<string, string> {
  const random = pseudoRandom(42);
  let cjk = '';
  while (cjk.length < RUN_CHARS) cjk += COMMON_CJK[Math.floor((random.next().value as number) * COMMON_CJK.length)];
  const bytes = Uint8Array.from({ length: (RUN_CHARS * 3) / 4 }, () =>
    Math.floor((random.next().value as number) * 256),
  );
  return { cjk, base64: Buffer.from(bytes).toString('base64') };
}

/**
 * Runs a child script of this folder (the tokenizer child by default) with `args` and parses the JSON it prints;
 * undefined when it ran out of time.
 */
export function runChild<T>(args: string[], timeout?: number, script = 'tokenizer-child.ts'): T | undefined {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', resolve(import.meta.dirname, script), ...args],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout },
  );
  if (child.signal && timeout !== undefined) return undefined;
  if (child.status !== 0) throw new Error(`${args[0]} failed:\n${child.stderr}`);
  return JSON.parse(child.stdout) as T;
}

/** Milliseconds to count a long run, or the time limit it passed. */
function runTime(name: string, corpusPath: string, run: string): string {
  const result = runChild<{ ms: number }>([name, corpusPath, run], RUN_TIMEOUT_MS);
  return result ? result.ms.toFixed(2) : `> ${RUN_TIMEOUT_MS.toLocaleString('en-US')}`;
}

export function tokenizerTable(sessions: readonly SessionFile[]): void {
  const texts: string[] = [];
  let chars = 0;
  for (const message of sessions.flatMap((session) => session.messages)) {
    if (chars >= CORPUS_CHARS) break;
    texts.push(message.content);
    chars += message.content.length;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tokenizers-'));
  const corpusPath = join(dir, 'corpus.json');
  writeFileSync(corpusPath, JSON.stringify({ texts, runs: longRuns() }));
  try {
    const results = new Map(
      TOKENIZERS.map((name) => [name, runChild<ChildResult>([name, corpusPath]) as ChildResult] as const),
    );
    const reference = results.get('tiktoken')?.counts ?? [];
    const tokens = reference.reduce((sum, count) => sum + count, 0);
    const per = PER_TOKENS / tokens;
    console.log(
      `\n1b. Tokenizers, o200k_base, on ${tokens.toLocaleString('en-US')} tokens of the fixture trajectories (${texts.length.toLocaleString('en-US')} message texts); times per 200k tokens`,
    );
    console.log('   cold: load, build the encoder and count once, in a fresh process; warm: count again\n');
    console.log(
      `   ${'tokenizer'.padEnd(16)} ${'cold ms'.padStart(9)} ${'warm ms'.padStart(9)} ${'RSS +MB'.padStart(8)} ${'heap +MB'.padStart(9)} ${'texts differing'.padStart(16)} ${'200k CJK ms'.padStart(12)} ${'200k base64 ms'.padStart(15)}`,
    );
    for (const [name, result] of results) {
      const differing = result.counts.filter((count, index) => count !== reference[index]).length;
      console.log(
        `   ${(name === 'tiktoken' ? 'tiktoken (WASM)' : name).padEnd(16)} ${(result.coldMs * per).toFixed(2).padStart(9)} ${(result.warmMs * per).toFixed(2).padStart(9)} ${result.rssMb.toFixed(2).padStart(8)} ${result.heapMb.toFixed(2).padStart(9)} ${`${differing} of ${texts.length}`.padStart(16)} ${runTime(name, corpusPath, 'cjk').padStart(12)} ${runTime(name, corpusPath, 'base64').padStart(15)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
