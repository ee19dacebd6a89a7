/**
 * Section 5 of `npm run bench`: the worst case of counting. BPE time grows with the square of a run without
 * whitespace, so a tool result of CJK text, base64 or one character repeated is where a tokenizer is slowest; the
 * counters cut such runs (see count-in-chunks.ts). Each figure is the first count of one text by one shipped counter,
 * in a fresh process with the tokenizer loaded, next to English prose of the same size. With the fixtures beside the
 * checkout it also measures what cutting costs in accuracy on their texts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { fixturesDir, readSessions } from '../examples/lib/session-file.js';
import { countInChunks } from '../src/counting/count-in-chunks.js';
import { format } from './stats.js';
import { COMMON_CJK, pseudoRandom, runChild } from './tokenizers.js';

const COUNTERS = ['tiktoken', 'gpt-tokenizer', 'approximate'] as const;
const RESULT_CHARS = 200_000;
const SUMMARY_CHARS = 100_000;
/** A count that takes longer than this is reported as such. */
const TIMEOUT_MS = 120_000;

const ENGLISH_WORDS =
  'the deploy pipeline reads its configuration from a file in the repository and retries three times before it reports a timeout to whoever started the job, which is why the logs of a failed run are long'.split(
    ' ',
  );

/** English prose of about `chars` characters: the fixture conversations' messages when present, else generated. */
function english(chars: number): string {
  const dir = fixturesDir();
  const lines: string[] = [];
  let length = 0;
  const texts = dir
    ? readSessions(resolve(dir, 'conversations.jsonl')).flatMap((session) => session.messages.map((m) => m.content))
    : [];
  const random = pseudoRandom(7);
  while (length < chars) {
    const line =
      texts[lines.length] ??
      Array.from(
        { length: 20 },
        () => ENGLISH_WORDS[Math.floor((random.next().value as number) * ENGLISH_WORDS.length)],
      ).join(' ');
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

/** CJK text of `chars` characters; with `sentences`, a full stop or comma every 8-40 characters, as a summary has. */
function cjk(chars: number, seed: number, sentences: boolean): string {
  const random = pseudoRandom(seed);
  const next = () => random.next().value as number;
  let text = '';
  let untilStop = 8 + Math.floor(next() * 32);
  while (text.length < chars) {
    text += COMMON_CJK[Math.floor(next() * COMMON_CJK.length)];
    if (sentences && --untilStop === 0) {
      text += next() < 0.5 ? '，' : '。';
      untilStop = 8 + Math.floor(next() * 32);
    }
  }
  return text.slice(0, chars);
}

function texts(): Record<string, string> {
  const random = pseudoRandom(11);
  const bytes = Uint8Array.from({ length: (RESULT_CHARS * 3) / 4 }, () =>
    Math.floor((random.next().value as number) * 256),
  );
  return {
    'English prose, 200k chars': english(RESULT_CHARS),
    'CJK result, 200k chars': cjk(RESULT_CHARS, 42, false),
    'base64 result, 200k chars': Buffer.from(bytes).toString('base64').slice(0, RESULT_CHARS),
    'one character x 200k': 'a'.repeat(RESULT_CHARS),
    'CJK summary, 100k chars': cjk(SUMMARY_CHARS, 43, true),
  };
}

/** Tokens counted in pieces against counted whole, over the fixture texts. */
function cuttingError(): string | undefined {
  const dir = fixturesDir();
  if (!dir) return undefined;
  const plain = { disallowedSpecial: new Set<string>() };
  let whole = 0;
  let inPieces = 0;
  let differing = 0;
  let count = 0;
  for (const file of ['trajectories.jsonl', 'conversations.jsonl']) {
    for (const session of readSessions(resolve(dir, file))) {
      for (const { content } of session.messages) {
        const exact = countTokens(content, plain);
        const cut = countInChunks(content, (piece) => countTokens(piece, plain));
        whole += exact;
        inPieces += cut;
        count++;
        if (cut !== exact) differing++;
      }
    }
  }
  const error = ((inPieces - whole) / whole) * 100;
  return `   counting in pieces vs whole on the ${format(count)} fixture texts: ${format(inPieces)} vs ${format(whole)} tokens (${error >= 0 ? '+' : ''}${error.toFixed(4)}%), ${differing} texts differ`;
}

export function worstCaseCounting(): void {
  const corpus = texts();
  const dir = mkdtempSync(join(tmpdir(), 'worst-case-counting-'));
  const corpusPath = join(dir, 'corpus.json');
  writeFileSync(corpusPath, JSON.stringify({ texts: [], runs: corpus }));
  try {
    console.log(
      '\n5. Worst case of counting: first count of one text by each counter, fresh process, tokenizer loaded',
    );
    console.log(`   ms (tokens); a count past ${TIMEOUT_MS / 1000} s is shown as such\n`);
    console.log(`   ${'text'.padEnd(28)} ${COUNTERS.map((name) => name.padStart(22)).join(' ')}`);
    for (const name of Object.keys(corpus)) {
      const cells = COUNTERS.map((counter) => {
        const result = runChild<{ ms: number; tokens: number }>([counter, corpusPath, name], TIMEOUT_MS);
        return (result ? `${result.ms.toFixed(0)} (${format(result.tokens)})` : `> ${format(TIMEOUT_MS)}`).padStart(22);
      });
      console.log(`   ${name.padEnd(28)} ${cells.join(' ')}`);
    }
    const error = cuttingError();
    if (error) console.log(`\n${error}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
