/**
 * The invariants every prompt a wrapped model receives must keep (DESIGN.md "Invariants", README), checked on the
 * framework's own messages: tool pairing and placement, no empty message, the caller's system prompt unchanged and
 * stable, the hard limit (by the library's own meter), the state and recall caps, injection-safe markup, the cache
 * prefix between compressions, and the caller's input unmutated. A `ConversationChecker` follows one conversation
 * (its calls share the system prompt and the previous prompt); `violations` are `{ kind, detail }`.
 */
import {
  EMPTY_SESSION_STATE,
  findPairingProblems,
  type Message,
  MessageMeter,
  sessionStateMessages,
  type Transcript,
} from '../../src/advanced.js';
import {
  type CompressEvent,
  type CompressionErrorEvent,
  HardLimitError,
  MessageTooLargeError,
  SummarizerError,
  type TokenCounter,
} from '../../src/index.js';
import { QUESTION_RECALL_FACTOR } from '../../src/recall/choose-recall.js';
import { partText } from '../../src/transcript/transcript.js';
import type { PromptKind } from './prompt-kinds.js';
import { budgetOf } from './turns.js';

/** Every kind of violation the checker reports, for tables that show the kinds not found too. */
export const VIOLATION_KINDS = [
  'threw',
  'message-too-large-wrongly',
  'orphan-result',
  'call-without-result',
  'result-before-call',
  'tool-result-not-after-its-call',
  'system-not-leading',
  'empty-message',
  'system-changed',
  'system-unstable',
  'over-hard-limit',
  'state-over-cap',
  'recall-over-cap',
  'fold-grew-prompt',
  'markup-forgeable',
  'error-text-in-prompt',
  'summarizer-error',
  'unexpected-error-event',
  'repeat-differs',
  'cache-prefix-broken',
  'recall-flip',
  'input-mutated',
  'new-instance-differs',
  'new-instance-summarized',
] as const;

/** One broken invariant. */
export interface Violation {
  readonly kind: string;
  readonly detail: string;
}

/** The limits a case runs with, as the library reads its options. */
export interface CheckLimits {
  readonly contextWindow: number;
  readonly reserveOutputTokens: number | undefined;
  /** @default 0.85 */
  readonly hardLimit: number;
  /** 0 when recall is off. */
  readonly recallShare: number;
  /** The awareness block text, '' when off. */
  readonly awareness: string;
  /** True when the case's summarizer throws on purpose. */
  readonly failingSummarizer: boolean;
  /**
   * Provider tokens per token of ours that the mock model reports as usage (undefined: no usage reported). Once the
   * library has seen a report it must hold its limits in provider tokens.
   */
  readonly usageRatio: number | undefined;
}

/** Slack on a learned ratio: our recount of a LangChain prompt is a few tokens off the library's own estimate. */
const RATIO_TOLERANCE = 0.03;

/** Text the failing summarizer throws; it must never reach a prompt. */
export const SUMMARIZER_FAILURE = 'FUZZ-SUMMARIZER-FAILURE';
const STATE_SHARE = 0.25;
/**
 * Room for the note and timeline entry a drop adds to the state, and the protected core it quotes from what it drops
 * (the task, constraints, decisions): the library reserves 64 tokens and a quarter of the state's cap for them.
 */
const DROP_NOTE_TOKENS = 64;

/** One call as the harness saw it: what the caller sent, what the model received, and what the library reported. */
export interface Call<P> {
  readonly caller: P;
  readonly sent: P;
  readonly tools: readonly unknown[] | undefined;
  readonly events: readonly CompressEvent[];
  readonly errors: readonly CompressionErrorEvent[];
  /**
   * The call asked for a fold (`force`): not the same request as one without it (before or after it), and allowed to
   * change the prompt.
   */
  readonly forced?: boolean;
  /**
   * Another instance than the previous call's made this call: the prompt may differ from the previous one without an
   * event of this instance's (it reports against what it sent itself), so the cache prefix is not checked.
   */
  readonly instanceChanged?: boolean;
}

const firstText = (message: Message) => {
  const part = message.parts[0];
  return part?.type === 'text' ? part.text : '';
};

export const short = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max)}...` : text);

/** Where two texts part, with some context of each. */
function difference(before: string, after: string): string {
  let at = 0;
  while (at < before.length && before[at] === after[at]) at++;
  const from = Math.max(0, at - 60);
  return `at char ${at}: ${JSON.stringify(before.slice(from, at + 80))} -> ${JSON.stringify(after.slice(from, at + 80))}`;
}

/**
 * Whether a call's fold grew the prompt it was meant to shrink (a recall block it added aside). A fold asked for with
 * `force` may grow a short prompt, whichever decision the event is named after (masking decisions come first); a
 * forced call that only masked, and folded for the budget, may not.
 */
export function foldGrewPrompt(event: CompressEvent): boolean {
  const forcedFold = event.decisions.some(
    (decision) => decision.trigger === 'forced' && decision.scope.kind === 'messages',
  );
  if (forcedFold) return false;
  return event.messagesFolded > 0 && event.tokensAfter - event.recalled.tokens > event.tokensBefore;
}

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

/** One meter per counter for all checks: counts are memoized by content, and a meter takes ~15 ms to build. */
const meters = new WeakMap<TokenCounter, MessageMeter>();

function meterFor(counter: TokenCounter): MessageMeter {
  let meter = meters.get(counter);
  if (!meter) {
    meter = new MessageMeter(counter);
    meters.set(counter, meter);
  }
  return meter;
}

/** Follows one conversation of one adapter and checks each of its calls. */
export class ConversationChecker<P> {
  readonly meter: MessageMeter;
  /** What the checked prompts exercised: states, recall blocks, events by kind, errors by name. */
  readonly coverage = new Map<string, number>();
  /** The caller's messages of the call the awareness block first went out with: it stays on every call extending them. */
  private awareSince: string[] | undefined;
  /** An earlier call sent a prompt that was not the history as it came. */
  private changedBefore = false;
  /** The session states sent so far (their text): one sent before may stay over a cap that moved. */
  private readonly statesSent = new Set<string>();
  private previous: { caller: string[]; sent: string[]; blocks: Set<string>; forced: boolean } | undefined;
  /** Every call checked so far: the caller's messages and the prompt sent, as JSON. */
  private readonly calls: { caller: string[]; sent: string[] }[] = [];
  /** Recall blocks a prompt took out, with the history (caller's messages) of the call that took them out. */
  private readonly blocksLeft = new Map<string, string[]>();

  constructor(
    private readonly kind: PromptKind<P>,
    private readonly limits: CheckLimits,
    counter: TokenCounter,
  ) {
    this.meter = meterFor(counter);
  }

  get budget(): number {
    return budgetOf(this.limits.contextWindow, this.limits.reserveOutputTokens);
  }

  private usageSeen = false;

  /** Tells the checker that the model reported usage for a call, so later calls are held to calibrated limits. */
  noteUsage(): void {
    this.usageSeen = true;
  }

  /** The ratio the library has learned by now, at its most lenient within the tolerance. */
  private ratio(lenient: 'low' | 'high'): number {
    const { usageRatio } = this.limits;
    if (!this.usageSeen || usageRatio === undefined) return 1;
    return usageRatio * (lenient === 'low' ? 1 - RATIO_TOLERANCE : 1 + RATIO_TOLERANCE);
  }

  /** A share of the budget in our tokens, as the library holds it after calibration (lenient). */
  private ours(share: number): number {
    return (share * this.budget) / this.ratio('low');
  }

  /**
   * The cap of a block made once and then kept byte for byte (the state, a recall block): it may have been made before
   * the library learned the ratio, so the cap at ratio 1 holds too.
   */
  private kept(share: number): number {
    return (share * this.budget) / Math.min(1, this.ratio('low'));
  }

  /** Our token count of a prompt as the library counts it: system, messages and tool definitions. */
  promptTokens(prompt: P, tools: readonly unknown[] | undefined): number {
    const transcript = this.kind.transcript(prompt, tools);
    const fixed = transcript.tools.length > 0 ? this.meter.countText(JSON.stringify(transcript.tools)) : 0;
    return fixed + this.tokens(transcript.system) + this.tokens(transcript.messages);
  }

  private tokens(messages: readonly Message[]): number {
    return messages.reduce((sum, message) => sum + this.meter.measure(message).tokens, 0);
  }

  private count(what: string): void {
    this.coverage.set(what, (this.coverage.get(what) ?? 0) + 1);
  }

  /** Checks one prompt the model received. */
  check(call: Call<P>): Violation[] {
    this.tally(call);
    const out: Violation[] = [];
    const add = (kind: string, detail: string) => out.push({ kind, detail });
    const { kind, limits } = this;
    const caller = kind.transcript(call.caller, call.tools);
    const sent = kind.transcript(call.sent, call.tools);
    const callerHashes = new Set(caller.messages.map((message) => this.meter.measure(message).hash));
    const fresh = (message: Message) => !callerHashes.has(this.meter.measure(message).hash);

    // tool pairing: the library's own check on the neutral transcript
    const callerOpen = findPairingProblems(caller.messages, { allowOpenCallsAtEnd: false }).some(
      (problem) => problem.kind === 'call-without-result' && problem.messageIndex === caller.messages.length - 1,
    );
    for (const problem of findPairingProblems(sent.messages, { allowOpenCallsAtEnd: callerOpen })) {
      if (problem.kind === 'empty-message') continue;
      add(problem.kind, `message ${problem.messageIndex} of ${sent.messages.length}, call id ${problem.toolCallId}`);
    }
    // tool results only right after the assistant message that made their calls
    const calledBefore = new Set<string>();
    for (let index = 0; index < sent.messages.length; index++) {
      const message = sent.messages[index] as Message;
      if (message.role === 'tool') {
        let at = index - 1;
        while (at >= 0 && sent.messages[at]?.role === 'tool') at--;
        const before = sent.messages[at];
        const calls = new Set(
          before?.role === 'assistant'
            ? before.parts.flatMap((part) => (part.type === 'tool-call' ? [part.id] : []))
            : [],
        );
        for (const part of message.parts)
          if (part.type === 'tool-result' && calledBefore.has(part.callId) && !calls.has(part.callId))
            add('tool-result-not-after-its-call', `message ${index}: result ${part.callId} follows a ${before?.role}`);
      }
      for (const part of message.parts) if (part.type === 'tool-call') calledBefore.add(part.id);
    }
    // system messages only leading
    const laterSystem = (transcript: Transcript) =>
      transcript.messages.filter((message) => message.role === 'system').length;
    if (laterSystem(sent) > laterSystem(caller))
      add('system-not-leading', `${laterSystem(sent)} system messages after the first non-system one`);
    // no empty message (the caller's own are theirs)
    const callerJson = new Set(kind.messageJson(call.caller));
    const sentJson = kind.messageJson(call.sent);
    for (const index of kind.emptyMessages(call.sent))
      if (!callerJson.has(sentJson[index] as string))
        add('empty-message', `message ${index}: ${short(sentJson[index] ?? '')}`);

    // the caller's system prompt byte for byte, then the awareness block from the first prompt that is not the
    // history as it came, on every later call whose history extends the one it came with (a shorter resend or an
    // edited history is another line of the conversation: its prompt may go out as it came)
    const leading = kind.leadingSystem(call.sent);
    const system = JSON.stringify(kind.systemHead(call.sent));
    const expected = JSON.stringify(kind.expectedSystem(call.caller, limits.awareness));
    const bare = JSON.stringify(kind.expectedSystem(call.caller, ''));
    const callerAll = kind.messageJson(call.caller);
    const callerMessages = callerAll.slice(kind.leadingSystem(call.caller));
    const sentMessages = sentJson.slice(leading);
    const asItCame =
      sentMessages.length === callerMessages.length &&
      callerMessages.every((json, index) => sentMessages[index] === json);
    const shownOn = this.awareSince;
    const extendsShown =
      shownOn !== undefined && shownOn.length <= callerAll.length && shownOn.every((json, i) => json === callerAll[i]);
    const withBlock = system === expected && expected !== bare;
    if (system !== expected && system !== bare)
      add('system-changed', `expected ${short(expected, 300)}, got ${short(system, 300)}`);
    else if (!withBlock && expected !== bare && !asItCame)
      add('system-changed', 'a prompt that is not the history as it came, without the awareness block');
    else if (!withBlock && expected !== bare && extendsShown)
      add('system-unstable', 'the awareness block left the prompt');
    else if (withBlock && asItCame && !this.changedBefore)
      add('system-changed', 'the awareness block in a prompt sent as it came, before any change');
    if (withBlock && !extendsShown) this.awareSince = callerAll;
    this.changedBefore ||= !asItCame;

    // the synthetic blocks: one state, within its cap, its markup unforgeable; recall within its share
    const freshUsers = sent.messages.filter((message) => message.role === 'user' && fresh(message));
    const states = freshUsers.filter((message) => firstText(message).startsWith('<session_state>\n'));
    if (states.length > 1) add('markup-forgeable', `${states.length} session state messages`);
    for (const state of states) {
      const text = firstText(state);
      if (occurrences(text, '<session_state>') !== 1 || occurrences(text, '</session_state>') !== 1)
        add('markup-forgeable', `a state with ${occurrences(text, '</session_state>')} closing tags`);
      const tokens = this.meter.countText(text);
      const cap = Math.floor(this.kept(STATE_SHARE));
      // a stored state sent before as it is may stay over a cap that moved with the calibration (it is cut only when
      // the prompt needs it); a state new in this prompt keeps to its cap
      if (tokens > cap && !this.statesSent.has(text))
        add('state-over-cap', `state of ${tokens} tokens, cap ${cap} (budget ${this.budget})`);
      this.statesSent.add(text);
    }
    // a question in a conversation without tool calls may take twice the share (its room below the threshold)
    const chat = !caller.messages.some((message) =>
      message.parts.some((part) => part.type === 'tool-call' || part.type === 'tool-result'),
    );
    for (const recall of freshUsers.filter((message) => firstText(message).startsWith('<recalled_messages>\n'))) {
      const text = firstText(recall);
      if (occurrences(text, '<recalled_messages>') !== 1 || occurrences(text, '</recalled_messages>') !== 1)
        add('markup-forgeable', 'a recall block with more than one tag pair');
      const tokens = this.meter.countText(text);
      const asked = sent.messages[sent.messages.indexOf(recall) + 2];
      const question = chat && asked !== undefined && /[?？؟]/.test(asked.parts.map(partText).join('\n'));
      const cap = Math.floor(this.kept(limits.recallShare) * (question ? QUESTION_RECALL_FACTOR : 1));
      if (tokens > cap) add('recall-over-cap', `recall block of ${tokens} tokens, cap ${cap}`);
    }
    if (limits.failingSummarizer && sentJson.some((json) => json.includes(SUMMARIZER_FAILURE)))
      add('error-text-in-prompt', 'the summarizer error text reached the prompt');

    // under the hard limit, unless the library reported that what is left cannot be folded and it really cannot
    const fixed = sent.tools.length > 0 ? this.meter.countText(JSON.stringify(sent.tools)) : 0;
    const total = fixed + this.tokens(sent.system) + this.tokens(sent.messages);
    const limit = this.ours(limits.hardLimit);
    if (total > limit) {
      const reported = call.errors.some((event) => HardLimitError.isInstance(event.error));
      const latest = sent.messages.findLastIndex(
        (message) =>
          message.role === 'user' &&
          !(fresh(message) && /^<(session_state|recalled_messages)>\n/.test(firstText(message))),
      );
      const stateAt = sent.messages.findIndex((message) => states.includes(message));
      const statePair = stateAt >= 0 ? this.tokens(sent.messages.slice(stateAt, stateAt + 2)) : 0;
      // dropping what comes before the current turn leaves a note in the state (a new pair if there was none)
      const droppable = latest > (stateAt >= 0 ? stateAt + 2 : 0);
      const note = droppable
        ? DROP_NOTE_TOKENS +
          Math.round(Math.floor(this.ours(STATE_SHARE)) / 4) +
          (stateAt >= 0 ? 0 : this.tokens(sessionStateMessages(EMPTY_SESSION_STATE)))
        : 0;
      const irreducible =
        fixed + this.tokens(sent.system) + statePair + note + this.tokens(sent.messages.slice(Math.max(0, latest)));
      if (!reported || irreducible <= limit)
        add(
          'over-hard-limit',
          `${total} tokens > ${Math.round(limit)} (${limits.hardLimit} of ${this.budget}); irreducible ${irreducible}` +
            `${reported ? ', HardLimitError reported' : ', nothing reported'}`,
        );
    }

    for (const event of call.events)
      if (foldGrewPrompt(event))
        add(
          'fold-grew-prompt',
          `folded ${event.messagesFolded} messages: ${event.tokensBefore} -> ${event.tokensAfter} tokens`,
        );
    for (const { error } of call.errors) {
      if (HardLimitError.isInstance(error)) continue;
      if (SummarizerError.isInstance(error)) {
        if (!limits.failingSummarizer) add('summarizer-error', short(error.message, 300));
        continue;
      }
      add('unexpected-error-event', `${error.name}: ${short(error.message, 300)}`);
    }

    // between two compressions the prompt grows by appending: same input, same prompt; extended input, same prefix
    const callerList = kind.messageJson(call.caller);
    const sentList = sentJson.slice(leading);
    if (this.previous) {
      const { caller: before, sent: sentBefore } = this.previous;
      const extends_ = before.length <= callerList.length && before.every((json, index) => json === callerList[index]);
      // a fold summarized ahead of time is made by the first call after its summary is ready: a retry may make it
      const aheadFold = call.events.some((event) =>
        event.decisions.some((decision) => decision.details.endsWith('summarized ahead of time')),
      );
      if (
        extends_ &&
        !call.forced &&
        !this.previous.forced &&
        !aheadFold &&
        before.length === callerList.length &&
        sentBefore.join('\n') !== sentList.join('\n')
      ) {
        const at = sentBefore.findIndex((json, index) => json !== sentList[index]);
        add(
          'repeat-differs',
          `the same request gave a different prompt (${sentBefore.length} vs ${sentList.length} messages), message ${at}: ` +
            difference(sentBefore[at] ?? '', sentList[at] ?? '(none)'),
        );
      } else if (extends_ && call.events.length === 0 && !call.instanceChanged) {
        const broken = sentBefore.findIndex((json, index) => json !== sentList[index]);
        // after a shorter resend (an earlier call went further along this history), the calls that extend it meet
        // the records that further ground left: continuity with the resend's prompt is not owed
        const afterResend = this.calls.some(
          (earlier) =>
            earlier.caller.length > before.length && before.every((json, index) => json === earlier.caller[index]),
        );
        if (broken >= 0 && !afterResend)
          add(
            'cache-prefix-broken',
            `message ${broken} of the previous prompt changed without a compression event: ` +
              difference(sentBefore[broken] ?? '', sentList[broken] ?? '(none)'),
          );
      }
    }
    // a recall block taken out must not come back on a history that extends the one it left at (two cache rewrites)
    // a block by what it quotes and the message it precedes (after its acknowledgement): the same quotes before another
    // user message are another block
    const blocks = new Set(
      sentList.flatMap((json, index) =>
        !callerJson.has(json) && json.includes('<recalled_messages>') ? [`${json}\u0000${sentList[index + 2]}`] : [],
      ),
    );
    const extend = (before: readonly string[]) =>
      before.length <= callerList.length && before.every((json, index) => json === callerList[index]);
    for (const block of blocks) {
      const leftAt = this.blocksLeft.get(block);
      if (leftAt && extend(leftAt))
        add('recall-flip', `a recall block taken out ${callerList.length - leftAt.length} messages ago came back`);
    }
    // a block whose user message left the prompt (folded, dropped) left with it: that is no flip
    const sentSet = new Set(sentList);
    if (this.previous && extend(this.previous.caller))
      for (const block of this.previous.blocks)
        if (!blocks.has(block) && sentSet.has(block.slice(block.indexOf('\u0000') + 1)))
          this.blocksLeft.set(block, callerList);
    this.previous = { caller: callerList, sent: sentList, blocks, forced: call.forced === true };
    this.calls.push(this.previous);
    return out;
  }

  private tally(call: Call<P>): void {
    const json = this.kind.messageJson(call.sent).join('\n');
    if (json.includes('<session_state>\\n{')) this.count('prompt with a state');
    if (json.includes('<recalled_messages>\\n[')) this.count('prompt with recall');
    if (json.includes('cleared to save context')) this.count('prompt with masked results');
    for (const event of call.events) {
      if (event.messagesFolded > 0) this.count('fold');
      if (event.decisions.some((decision) => decision.details.endsWith('summarized ahead of time')))
        this.count('fold summarized ahead');
      if (event.decisions.some((decision) => decision.details.endsWith('summarized offline')))
        this.count('fold summarized offline');
      if (event.messagesDropped > 0) this.count('drop');
      if (event.toolResultsMasked.count > 0) this.count('masking');
      if (event.toolResultsTruncated > 0) this.count('truncation');
      if (event.toolResultsRedacted.count > 0) this.count('redaction');
      if (event.recalled.chunks > 0) this.count('recall');
    }
    for (const { error } of call.errors) this.count(error.name);
  }

  /** Checks an error thrown by a call: only MessageTooLargeError, and only for a latest user message over budget. */
  checkThrown(error: unknown, caller: P, tools: readonly unknown[] | undefined): Violation[] {
    if (MessageTooLargeError.isInstance(error)) {
      this.count('MessageTooLargeError');
      const { messages } = this.kind.transcript(caller, tools);
      const latest = messages.findLast((message) => message.role === 'user');
      const tokens = latest ? this.meter.measure(latest).tokens : 0;
      return tokens * this.ratio('high') > this.budget
        ? []
        : [
            {
              kind: 'message-too-large-wrongly',
              detail: `latest user message of ${tokens} tokens, budget ${this.budget}`,
            },
          ];
    }
    const err = error as Error;
    const where = (err?.stack ?? '')
      .split('\n')
      .find((line) => /\/(src|adapters)\//.test(line))
      ?.trim()
      .replace(/^at /, '')
      .replace(/\(?\/.*\/main\//, '')
      .replace(/\)$/, '');
    return [
      {
        kind: 'threw',
        detail: `${err?.name ?? typeof error}: ${short(String(err?.message ?? error), 200)}${where ? ` at ${where}` : ''}`,
      },
    ];
  }
}
