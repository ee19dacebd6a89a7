/**
 * The needed-later rate: how often a compression system hid an observation (a tool result) that the agent went on to
 * use. A replay feeds the recorded trajectory to the system call by call; the agent's recorded later actions tell
 * which hidden content was needed. Lower is better: 0 means every hidden observation was dead weight.
 */
import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, type ModelMessage } from 'ai';
import type { MockLanguageModelV4 } from 'ai/test';
import { recordingModel } from '../examples/lib/replay.js';
import { assistantTurns, type SessionFile, toModelMessages } from '../examples/lib/session-file.js';

/** Shortest token kept: shorter ones (`id`, `0`, `200`, `py`) are too generic to show reuse. */
const MIN_LENGTH = 4;
/** A token is distinctive for an observation only if at most this many tool outputs of the run contain it. */
const MAX_OUTPUTS = 2;
/** Shortest output text whose verbatim occurrence elsewhere in a prompt counts as a quote (shorter ones collide). */
const MIN_QUOTE = 32;

/** Runs of word characters with the separators of paths, dotted names, e-mails, dates and versions. */
const CHUNK = /[A-Za-z0-9_][\w./@:-]*/g;
const NUMBER = /^\d+(?:\.\d+)?$/;
const IDENTIFIER = /^[A-Za-z_]\w*$/;

/** Whether a separator-free piece (identifier or number) is specific enough to be a token on its own. */
function distinctivePiece(piece: string): boolean {
  if (piece.length < MIN_LENGTH) return false;
  // Numbers: 4+ digits (ids, years, line counts) or a decimal (1.25); 0, 1 and 200 are too short.
  if (NUMBER.test(piece)) return true;
  if (!IDENTIFIER.test(piece)) return /\d/.test(piece) && /[A-Za-z]/.test(piece);
  // snake_case, letters with digits (K1NW8N, HAT023, py39), camelCase / PascalCase (NdarrayMixin, FutureWarning).
  // Plain words (`table`, `Column`, `Error`, `THOUGHT`) are not: prose and generic names.
  if (piece.includes('_') || /\d/.test(piece)) return true;
  return /[a-z][A-Z]/.test(piece) || /[A-Z]{2}[a-z]/.test(piece);
}

function addChunk(chunk: string, tokens: Set<string>): void {
  const trimmed = chunk.replace(/^[./@:-]+|[./@:-]+$/g, '');
  if (trimmed.length < MIN_LENGTH) return;
  if (NUMBER.test(trimmed)) {
    tokens.add(trimmed);
    return;
  }
  for (const separator of [':', '/']) {
    if (!trimmed.includes(separator)) continue;
    // A location or path (table.py:1234, astropy/table/table.py, https://host/x): the whole and each part, except
    // clock times made of short numbers (15:00:00).
    const parts = trimmed.split(separator).filter((part) => part.length > 0);
    if (/[A-Za-z]/.test(trimmed) || parts.some((part) => /^\d{3,}/.test(part))) tokens.add(trimmed);
    for (const part of parts) addChunk(part, tokens);
    return;
  }
  const pieces = trimmed.split(/[.@-]+/).filter((piece) => piece.length > 0);
  if (pieces.length > 1) {
    // A compound (table.py, np.ndarray, 2024-05-26, mohamed.silva9198@example.com), unless it is hyphenated prose
    // (non-test, built-in) or made only of short numbers (1.2.3).
    const prose = !/[.@]/.test(trimmed) && pieces.every((piece) => /^[a-zA-Z]+$/.test(piece));
    const shortNumbers = pieces.every((piece) => /^\d{1,2}$/.test(piece));
    if (!prose && !shortNumbers) tokens.add(trimmed);
  }
  for (const piece of pieces) if (distinctivePiece(piece)) tokens.add(piece);
}

/**
 * Distinctive tokens of a text: the shapes that carry specific information an agent can reuse — file paths (and their
 * segments), dotted names (`np.ndarray`, `table.py`), e-mails and dates, identifiers with an underscore, a digit or an
 * inner capital (`data_is_mixin`, `HAT023`, `NdarrayMixin`, error names such as `ValueError` / `FooException`), and
 * numbers with 4+ characters (`1234`, `1.25`). Tokens shorter than 4 characters, plain words of any case (`table`,
 * `Column`, `THOUGHT`), hyphenated prose (`non-test`) and short numbers (`0`, `1`, `200`) are left out.
 *
 * This is the text-only half of "distinctive": {@link neededLater} also keeps only tokens rare in the run (in at most
 * 2 tool outputs, absent from the task statement and from the dialogue before the observation).
 */
export function distinctiveTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const match of text.matchAll(CHUNK)) addChunk(match[0], tokens);
  return tokens;
}

/** One tool result of the full history. */
interface Observation {
  /** Index of its tool message in the history (`toModelMessages(session).messages`). */
  readonly messageIndex: number;
  readonly toolCallId: string;
  readonly text: string;
}

/** Every string and number inside a value (tool-call args), one per line, so JSON escaping does not glue tokens. */
function leaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'bigint') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) leaves(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) leaves(item, out);
  return out;
}

/** Text of a tool result's output, whatever its type. */
function outputText(output: unknown): string {
  if (output === null || typeof output !== 'object') return '';
  const typed = output as { type?: string; value?: unknown; reason?: string };
  if (typed.type === 'text' || typed.type === 'error-text') return String(typed.value ?? '');
  if (typed.type === 'json' || typed.type === 'error-json') return JSON.stringify(typed.value);
  if (typed.type === 'execution-denied') return typed.reason ?? '';
  if (typed.type === 'content' && Array.isArray(typed.value)) {
    return typed.value
      .map((part: { type?: string; text?: string }) => (part.type === 'text' ? part.text : ''))
      .join('');
  }
  return '';
}

/** Text the model reads in a history message (text parts and tool-call args; tool results excluded). */
function messageText(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  const texts: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text);
    else if (part.type === 'tool-call') texts.push(...leaves(part.input));
  }
  return texts.join('\n');
}

/** The tool results of a prompt as (toolCallId, text), and all of the prompt's text for verbatim quotes. */
function promptContent(prompt: LanguageModelV4Prompt): { results: Map<string, number>; all: string } {
  const results = new Map<string, number>();
  const all: string[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      all.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'tool-result') {
        const text = outputText(part.output);
        const key = `${part.toolCallId}\u0000${text}`;
        results.set(key, (results.get(key) ?? 0) + 1);
        all.push(text);
      } else if (part.type === 'text' || part.type === 'reasoning') all.push(part.text);
      else if (part.type === 'tool-call') all.push(...leaves(part.input));
    }
  }
  return { results, all: all.join('\n\u0000\n') };
}

/**
 * The needed-later rate of one replayed run: of all observations a system hid at some call (masked or folded: present
 * in the full history before that call but not verbatim in that call's prompt), the share whose distinctive content
 * appears again in a LATER assistant message (text or tool-call args) after the first call that hid it — information
 * the agent went on to use. Lower is better.
 *
 * Definitions:
 * - History and calls: `messages = toModelMessages(session).messages`, `ends = assistantTurns(messages)`; `prompts[i]`
 *   is the prompt the model received at the i-th call, whose full history is `messages.slice(0, ends[i])`, and the
 *   recorded answer to it is `messages[ends[i]]`. `prompts` may be shorter than `ends` (a partial replay), not longer.
 * - Observation: one tool-result part of a history tool message, identified by its position, not its toolCallId (ids
 *   may be reused). Its text is the output text (json outputs as JSON).
 * - Hidden at call i: the observation is in `messages.slice(0, ends[i])` but the prompt has no tool result with the
 *   same toolCallId and exactly the same text (masked: text replaced; folded or dropped: absent) and, for a text of 32+
 *   characters, the text does not appear verbatim anywhere else in the prompt (e.g. quoted whole in a summary). Tool results with the same
 *   (toolCallId, text) are matched as a multiset, newest first, so a duplicate counts as visible only once.
 * - Distinctive tokens of an observation: {@link distinctiveTokens} of its text that appear in at most 2 tool outputs
 *   of the run, are not tokens of the task statement (the system prompt and the first user message), and were not
 *   already written in a user or assistant message before the observation (e.g. the path in its own tool call, or an
 *   id the user gave): those the agent knew without the observation.
 * - Needed later: some distinctive token appears in the text or tool-call args of an assistant message at index
 *   `>= ends[f]`, f being the first call that hid the observation — the answer to call f is already produced without
 *   it. An observation with no distinctive tokens counts as hidden but can never be needed later.
 * - rate = neededLater / hidden, 0 when nothing was hidden.
 */
export function neededLater(
  session: SessionFile,
  prompts: readonly LanguageModelV4Prompt[],
): { hidden: number; neededLater: number; rate: number } {
  const { instructions, messages } = toModelMessages(session);
  const ends = assistantTurns(messages);
  if (prompts.length > ends.length) {
    throw new Error(`neededLater: ${prompts.length} prompts for ${ends.length} assistant turns in ${session.id}`);
  }

  const observations: Observation[] = [];
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'tool') return;
    for (const part of message.content) {
      if (part.type === 'tool-result') {
        observations.push({ messageIndex, toolCallId: part.toolCallId, text: outputText(part.output) });
      }
    }
  });

  // Rarity: in how many tool outputs each token occurs.
  const tokensOf = observations.map((observation) => distinctiveTokens(observation.text));
  const outputsWith = new Map<string, number>();
  for (const tokens of tokensOf) for (const token of tokens) outputsWith.set(token, (outputsWith.get(token) ?? 0) + 1);
  const firstUser = messages.find((message) => message.role === 'user');
  const task = distinctiveTokens([instructions ?? '', firstUser ? messageText(firstUser) : ''].join('\n'));
  // Dialogue: first user/assistant message writing each token, last assistant message writing it.
  const firstSaid = new Map<string, number>();
  const lastAssistant = new Map<string, number>();
  messages.forEach((message, index) => {
    if (message.role !== 'user' && message.role !== 'assistant') return;
    for (const token of distinctiveTokens(messageText(message))) {
      if (!firstSaid.has(token)) firstSaid.set(token, index);
      if (message.role === 'assistant') lastAssistant.set(token, index);
    }
  });

  // First call at which each observation was hidden.
  const firstHidden = new Map<number, number>();
  prompts.forEach((prompt, call) => {
    const end = ends[call] as number;
    const { results, all } = promptContent(prompt);
    for (let index = observations.length - 1; index >= 0; index--) {
      const observation = observations[index] as Observation;
      if (observation.messageIndex >= end) continue;
      const key = `${observation.toolCallId}\u0000${observation.text}`;
      const count = results.get(key) ?? 0;
      if (count > 0) {
        results.set(key, count - 1);
        continue;
      }
      if (observation.text.length >= MIN_QUOTE && all.includes(observation.text)) continue;
      if (!firstHidden.has(index)) firstHidden.set(index, call);
    }
  });

  let needed = 0;
  for (const [index, call] of firstHidden) {
    const { messageIndex } = observations[index] as Observation;
    const answeredFrom = ends[call] as number;
    for (const token of tokensOf[index] as Set<string>) {
      if ((outputsWith.get(token) ?? 0) > MAX_OUTPUTS || task.has(token)) continue;
      if ((firstSaid.get(token) ?? Number.POSITIVE_INFINITY) < messageIndex) continue;
      if ((lastAssistant.get(token) ?? -1) >= answeredFrom) {
        needed++;
        break;
      }
    }
  }
  const hidden = firstHidden.size;
  return { hidden, neededLater: needed, rate: hidden > 0 ? needed / hidden : 0 };
}

/**
 * Replays a session call by call like `replaySession` (examples/lib/replay.ts) and returns the prompt the model
 * received at each call, ready for {@link neededLater}. `wrap` turns the recording mock into the system under test.
 */
export async function replayPrompts(
  session: SessionFile,
  wrap: (model: MockLanguageModelV4) => LanguageModelV4,
): Promise<LanguageModelV4Prompt[]> {
  const { instructions, messages } = toModelMessages(session);
  const mock = recordingModel();
  const model = wrap(mock);
  for (const end of assistantTurns(messages)) {
    await generateText({ model, instructions, messages: messages.slice(0, end) });
  }
  return mock.doGenerateCalls.map((call) => call.prompt);
}
