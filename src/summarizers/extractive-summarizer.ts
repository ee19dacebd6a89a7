import {
  type ExtractiveSummarizerOptions,
  ExtractiveSummarizerOptionsSchema,
  type ExtractiveSummarizerSettings,
} from '../options/extractive-summarizer-options.js';
import { parseOptions } from '../options/option-issue-error.js';
import { entryTokens, mergeSessionStates } from '../session-state/merge-session-state.js';
import type { SessionState } from '../session-state/session-state.js';
import { callActions } from '../transcript/call-actions.js';
import {
  type Message,
  type OtherPart,
  type ReasoningPart,
  type Role,
  stableStringify,
  type TextPart,
  type ToolCallPart,
  type ToolResultPart,
} from '../transcript/transcript.js';
import { cutText, speakerTopics, summaryOf, topicsOf } from './conversation-summary.js';
import { SPEAKER_LABEL, sentences, signalScore, TEST_SUMMARY, worthKeeping } from './fact-signals.js';
import { definedTerms, pathosOf } from './style-signals.js';
import type { Summarizer } from './summarizer.js';

export type { ExtractiveSummarizerOptions };

/** Defaults of `extractiveSummarizer`. */
export const DEFAULT_EXTRACTIVE_SUMMARIZER_OPTIONS: Readonly<ExtractiveSummarizerSettings> = Object.freeze(
  ExtractiveSummarizerOptionsSchema.parse({}),
);

const SOURCE_WEIGHT = { text: 1, tool: 0.7, code: 0.5, reasoning: 0.5 } as const;

interface Candidate {
  text: string;
  score: number;
  order: number;
}

/**
 * The offline default summarizer: no model, fully deterministic. It keeps fact-bearing sentences verbatim (numbers,
 * dates, names, identifiers, paths, URLs, constraints, decisions, errors, and plain sentences with particulars no
 * other folded message uses), from both speakers, a short message's kept sentences together as one entry, never
 * greetings, thanks or agreement alone; a few lines per tool result, a small style heuristic as pathos and the terms
 * the user defines as abstract, then merges with the previous state.
 */
export function extractiveSummarizer(options: ExtractiveSummarizerOptions = {}): Summarizer {
  const resolved = parseOptions(ExtractiveSummarizerOptionsSchema, options, '');
  return {
    name: 'extractive',
    async summarize({ messages, previous, abortSignal }) {
      abortSignal?.throwIfAborted();
      const next = extractSessionState(messages, resolved);
      return mergeSessionStates(previous, next, { ...resolved.merge, maxChars: resolved.maxChars });
    },
  };
}

/** Characters of a call's main argument the summary names. */
const SUMMARY_ARG_CHARS = 40;

type ExtractOptions = Required<Omit<ExtractiveSummarizerOptions, 'merge'>>;

function extractSessionState(messages: readonly Message[], options: ExtractOptions): SessionState {
  const extraction = new Extraction(messages, options);
  for (const message of messages) {
    if (!message.synthetic) extraction.read(message); // engine-made messages repeat the previous state or carry no facts
  }
  return extraction.state();
}

/** What reading a batch of messages found so far: the candidate entries, and what the summary line tells. */
class Extraction {
  private readonly candidates: Candidate[] = [];
  private readonly calls = new Map<string, { name: string; candidate: Candidate }>();
  private readonly speakers: Set<string>;
  /** Participants addressing each other by name ("Thanks, Mel!") is not a fact, so their names carry no signal. */
  private readonly speakerNames: Set<string>;
  private readonly rare: Set<string>;
  private readonly counts: Record<Role, number> = { system: 0, user: 0, assistant: 0, tool: 0 };
  private readonly userTexts: string[] = [];
  private firstUserText = '';
  private lastUserText = '';
  private lastAssistantText = '';

  constructor(
    private readonly messages: readonly Message[],
    private readonly options: ExtractOptions,
  ) {
    this.speakers = repeatedSpeakerLabels(messages);
    this.speakerNames = new Set([...this.speakers].flatMap((key) => key.slice(key.indexOf(':') + 1).split(' ')));
    this.rare = rareWords(messages);
  }

  read(message: Message): void {
    this.counts[message.role]++;
    const conversational = !message.parts.some((part) => part.type === 'tool-call');
    for (const part of message.parts) {
      if (part.type === 'text' || part.type === 'reasoning' || part.type === 'other') {
        this.textPart(message, part, conversational);
      } else if (part.type === 'tool-call') this.toolCall(part);
      else if (part.type === 'tool-result') this.toolResult(part);
    }
  }

  state(): SessionState {
    const { speakers, userTexts } = this;
    return {
      logos: selectLogos(this.candidates, this.options.maxLogos),
      pathos: pathosOf(userTexts),
      abstract: definedTerms(userTexts, (text) => this.cut(text)),
      conversationSummary: summaryOf({
        counts: this.counts,
        first: this.firstUserText,
        latest: this.lastAssistantText || this.lastUserText,
        // names, not all-caps labels an agent writes before its text (`THOUGHT:`)
        who: [...new Set([...speakers].map((key) => key.slice(key.indexOf(':') + 1)))].filter((name) =>
          /\p{Ll}/u.test(name),
        ),
        topics: topicsOf(this.messages, this.speakerNames),
        spoke: speakerTopics(this.messages, (message) => this.labelOf(message), this.speakerNames),
        actions: callActions(this.messages, SUMMARY_ARG_CHARS),
      }),
    };
  }

  /** The speaker label a message opens with, when the batch names its speakers so (`Caroline: ...`). */
  private labelOf(message: Message): string | undefined {
    const first = message.parts[0];
    const label = first?.type === 'text' ? SPEAKER_LABEL.exec(first.text)?.[1] : undefined;
    return label && this.speakers.has(`${message.role}:${label}`) ? label : undefined;
  }

  private cut(text: string): string {
    return cutText(text.replace(/\s+/g, ' ').trim(), this.options.maxSentenceChars);
  }

  private add(text: string, score: number): void {
    this.candidates.push({ text, score, order: this.candidates.length });
  }

  /** The fact-bearing sentences of a text, under the speaker's label when the batch names its speakers. */
  private textPart(message: Message, part: TextPart | ReasoningPart | OtherPart, conversational: boolean): void {
    const label = SPEAKER_LABEL.exec(part.text)?.[1];
    const speaker = label && this.speakers.has(`${message.role}:${label}`) ? label : undefined;
    const text = speaker ? part.text.slice(part.text.indexOf(':') + 1) : part.text;
    const prefix = speaker ? `${speaker} (${message.role})` : message.role;
    const weight = part.type === 'reasoning' ? SOURCE_WEIGHT.reasoning : SOURCE_WEIGHT.text;
    const kept: { text: string; score: number }[] = [];
    for (const [sentence, inCode] of sentences(text)) {
      const short = this.cut(sentence);
      const score = specificScore(short, this.speakerNames, this.rare) * (inCode ? SOURCE_WEIGHT.code : weight);
      if (score > 0) kept.push({ text: short, score });
    }
    // a short conversational message (no tool call in it) keeps its fact-bearing sentences together, as one
    // entry: a later question about it finds the whole statement in one place (agent steps keep single
    // sentences: joined, they measured as more tokens on the agent runs)
    const joined = kept.map((sentence) => sentence.text).join(' ');
    if (
      conversational &&
      part.type === 'text' &&
      kept.length > 1 &&
      joined.length <= 2 * this.options.maxSentenceChars
    ) {
      this.add(`${prefix}: ${joined}`, Math.max(...kept.map((sentence) => sentence.score)));
    } else for (const sentence of kept) this.add(`${prefix}: ${sentence.text}`, sentence.score);
    if (part.type === 'text' && message.role === 'user' && part.text.trim() !== '') {
      this.userTexts.push(text);
      this.firstUserText ||= part.text.trim();
      this.lastUserText = part.text.trim();
    }
    if (part.type === 'text' && message.role === 'assistant' && part.text.trim() !== '') {
      this.lastAssistantText = part.text.trim();
    }
  }

  private toolCall(part: ToolCallPart): void {
    const call = `${part.name}(${cutText(describeArgs(part.args), 120)})`;
    const candidate = { text: `assistant called ${call}`, score: 1 + signalScore(call), order: this.candidates.length };
    this.candidates.push(candidate);
    this.calls.set(part.id, { name: part.name, candidate });
  }

  /** A result completes its call's entry (its outcome or length), and adds its most telling lines. */
  private toolResult(part: ToolResultPart): void {
    const call = this.calls.get(part.callId);
    const name = call?.name ?? part.name;
    const lines = toolLines(part.output, this.options.maxToolLines, (text) => this.cut(text));
    const outcome = part.isError ? 'error, ' : '';
    const inline = part.output.length <= 120 && !part.output.includes('\n');
    const summary = inline ? `-> ${outcome}${part.output.trim() || 'empty'}` : `-> ${outcome}${lines.total} lines`;
    if (call) call.candidate.text = `tool ${call.candidate.text.slice('assistant called '.length)} ${summary}`;
    else this.add(`tool ${name} ${summary}`, 1 + (part.isError ? 2 : 0));
    if (!inline) for (const line of lines.kept) this.add(`tool ${name}: ${line.text}`, line.score * SOURCE_WEIGHT.tool);
  }
}

/** How greetings, thanks, agreement and praise open: such a sentence is kept only for a fact signal of its own. */
const SMALL_TALK =
  /^\W*(?:hey|hi|hello|thanks|thank you|thx|wow|whoa|haha|lol|agreed|yeah|yes|yep|totally|absolutely|awesome|cool|great|nice|congrats|congratulations|sounds|that['’]?s (?:so |really |super )?(?:great|awesome|cool|amazing|nice|good|wonderful|fantastic|lovely)|good (?:luck|job|to hear)|glad|love (?:that|it|this)|oh)\b/i;

/** Lowercased words of five letters or more that only one message of the batch uses: its particulars. */
function rareWords(messages: readonly Message[]): Set<string> {
  const seen = new Map<string, number>();
  for (const message of messages) {
    if (message.synthetic || (message.role !== 'user' && message.role !== 'assistant')) continue;
    const words = new Set<string>();
    for (const part of message.parts) {
      if (part.type === 'text') for (const word of part.text.toLowerCase().match(/\p{L}{5,}/gu) ?? []) words.add(word);
    }
    for (const word of words) seen.set(word, (seen.get(word) ?? 0) + 1);
  }
  return new Set([...seen].filter(([, count]) => count === 1).map(([word]) => word));
}

/**
 * The score of a sentence: its fact signals (see `worthKeeping`), or, for a sentence of five words or more that
 * carries none, 1 when two of its words appear in no other folded message (what a person tells of their own life is
 * often plain words: "we went camping in the mountains with the kids"). Greetings, thanks and agreement score 0.
 */
function specificScore(sentence: string, speakerNames: ReadonlySet<string>, rare: ReadonlySet<string>): number {
  const score = worthKeeping(sentence, speakerNames);
  if (score > 0 || sentence.split(/\s+/).length < 5 || SMALL_TALK.test(sentence)) return score;
  let particulars = 0;
  for (const word of sentence.toLowerCase().match(/\p{L}{5,}/gu) ?? []) if (rare.has(word)) particulars++;
  return particulars >= 2 ? 1 : 0;
}

/** Speaker labels (`Name: ...`) that open at least two messages of one role, so they name people, not headings. */
function repeatedSpeakerLabels(messages: readonly Message[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const message of messages) {
    const first = message.parts[0];
    const label = first?.type === 'text' ? SPEAKER_LABEL.exec(first.text)?.[1] : undefined;
    if (!label) continue;
    const key = `${message.role}:${label}`;
    if (seen.has(key)) repeated.add(key);
    seen.add(key);
  }
  return repeated;
}

function toolLines(output: string, maxLines: number, cut: (text: string) => string) {
  const kept: { text: string; score: number; order: number }[] = [];
  let total = 0;
  let start = 0;
  while (start < output.length) {
    const newline = output.indexOf('\n', start);
    const end = newline === -1 ? output.length : newline;
    // Only the start of a very long line is read: it is cut to maxSentenceChars anyway, and this keeps scans linear.
    const line = cut(output.slice(start, Math.min(end, start + 4 * 1024)));
    start = end + 1;
    total++;
    if (line === '' || maxLines === 0) continue;
    const score = signalScore(line) + (TEST_SUMMARY.test(line) ? 3 : 0);
    if (score < 3) continue;
    // Later lines win ties: summaries and the last line of a traceback come at the end of an output.
    kept.push({ text: line, score, order: total });
    kept.sort((left, right) => right.score - left.score || right.order - left.order);
    if (kept.length > maxLines) kept.pop();
  }
  return { total, kept: kept.sort((left, right) => left.order - right.order) };
}

function describeArgs(args: unknown): string {
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    const values = Object.values(args as Record<string, unknown>);
    if (values.length === 1 && typeof values[0] === 'string') return values[0].replace(/\s+/g, ' ');
  }
  return stableStringify(args).replace(/\s+/g, ' ');
}

function selectLogos(candidates: readonly Candidate[], maxLogos: number): string[] {
  const byKey = new Map<string, Candidate>();
  for (const candidate of candidates) {
    if (candidate.score <= 0) continue;
    const key = entryTokens(candidate.text).join(' ');
    const existing = byKey.get(key);
    if (!existing || candidate.score > existing.score) byKey.set(key, candidate);
  }
  // Highest score first; among equals the newer sentence wins, since later turns tend to supersede earlier ones.
  const ranked = [...byKey.values()].sort((left, right) => right.score - left.score || right.order - left.order);
  return ranked
    .slice(0, maxLogos)
    .sort((left, right) => left.order - right.order)
    .map((candidate) => candidate.text);
}
