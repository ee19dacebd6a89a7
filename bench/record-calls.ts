/**
 * A record of every call the engine makes in a run: loaded before a benchmark or the fuzz runner
 * (`node --import tsx --import ./bench/record-calls.ts bench/run.ts --only 3`, with `CC_RECORD=calls.jsonl`), it
 * writes one line per `compress()`: a hash of the input history, a hash of the prompt sent (system and messages, the
 * framework objects left out) and the call's report without its timings. Two records of the same run on two versions
 * of the code are equal when the code sends the same prompts and reports the same decisions, so a change meant to move
 * code only is checked by `diff`, and a change meant to change behaviour shows each call it changed.
 */
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { CompressionEngine } from '../src/engine/engine.js';
import type { CallReport } from '../src/reports/events.js';
import type { Message } from '../src/transcript/transcript.js';

const file = process.env.CC_RECORD;

/** A message as the model sees it: the framework's own objects (`original`) left out. */
function plain(message: Message): unknown {
  const { original: _message, ...rest } = message;
  return { ...rest, parts: rest.parts.map(({ original: _part, ...part }) => part) };
}

const hash = (value: unknown) =>
  createHash('sha1')
    .update(JSON.stringify(value) ?? '')
    .digest('hex')
    .slice(0, 16);

/** The report without what depends on the clock. */
function untimed(report: CallReport): unknown {
  const { event } = report;
  return {
    historyTokens: report.historyTokens,
    promptTokens: report.promptTokens,
    cacheablePrefixTokens: report.cacheablePrefixTokens,
    messagesOutOfPrompt: report.messagesOutOfPrompt,
    stateInPrompt: report.stateInPrompt,
    event: event && { ...event, summarizerMs: undefined },
  };
}

if (file) {
  const compress = CompressionEngine.prototype.compress;
  CompressionEngine.prototype.compress = async function record(this: CompressionEngine, input) {
    const output = await compress.call(this, input);
    const line = {
      input: hash(input.transcript.messages.map(plain)),
      prompt: hash({ system: output.system.map(plain), messages: output.messages.map(plain) }),
      report: hash(untimed(output.report)),
      tokens: output.estimatedTokens,
      decisions: output.decisions.map((decision) => `${decision.trigger} ${JSON.stringify(decision.scope)}`),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    return output;
  };
}
