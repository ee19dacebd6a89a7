import type { CallFacts } from '../call/call-facts.js';
import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import { deferredTasks } from '../deferred-tasks.js';
import type { Boundary } from '../folding/semantic-triggers.js';
import type { Message } from '../transcript/transcript.js';
import type { CallReporter } from './call-report.js';
import type { CompressOutput } from './compress-call.js';
import { withoutAwareness } from './read-call.js';

/**
 * Calls that send the history as it came, decided without counting all of it: nothing stored for the conversation
 * and no forced fold (the engine checks both), no tool result (nothing to mask or shorten), no segment a semantic
 * fold could take, and a prompt proven below the compression threshold and the hard limit by the UTF-8 length of the
 * messages not counted yet (the newest are counted until the proof holds). Every stage would then leave the prompt as
 * it is, so this is the output the stages give; its figures are counted only when read (`estimatedTokens`, `onCall`),
 * and meanwhile in the background, after the call went out.
 */
export class UnchangedCalls {
  constructor(
    private readonly meter: MessageMeter,
    private readonly reporter: CallReporter,
    /** The segment boundaries of a call's history; undefined when semantic folds are off. */
    private readonly boundaries: ((facts: CallFacts) => readonly Boundary[]) | undefined,
  ) {}

  /**
   * The output of a call no stage would change, or undefined when the proof fails: the stages decide. `aware`: an
   * earlier call of the conversation changed its prompt, and the awareness block goes out (see `withoutAwareness`).
   */
  outputIfUnchanged(facts: CallFacts, aware: boolean): CompressOutput | undefined {
    const { meter } = this;
    if (!meter.bounded || facts.sites.length > 0) return undefined;
    if (this.boundaries && this.boundaries(facts).length > 0) return undefined;
    const { messages } = facts;
    const limit = Math.min(facts.limits.compressAt, facts.limits.hardLimit);
    const bounds = messages.map((message) => meter.bound(message));
    let total = bounds.reduce((sum, bound) => sum + bound, facts.fixedTokens);
    for (let index = messages.length - 1; total > limit && index >= 0; index--) {
      total -= (bounds[index] as number) - meter.measure(messages[index] as Message).tokens;
    }
    if (total > limit) return undefined;
    const sent = aware ? facts : withoutAwareness(facts);
    const measures = messages.map((message) => lazyMeasure(meter, message));
    let counted: number | undefined;
    const promptTokens = () => {
      counted ??= messages.reduce((sum, message) => sum + meter.measure(message).tokens, sent.fixedTokens);
      return counted;
    };
    const report = this.reporter.unchanged({ facts: sent, sent: measures, promptTokens });
    deferredCounts.add(promptTokens);
    return {
      system: sent.system,
      messages: [...facts.input],
      get estimatedTokens() {
        return promptTokens();
      },
      decisions: [],
      deferred: [],
      event: undefined,
      report,
    };
  }
}

/** A message's measure whose tokens are counted when first read. */
function lazyMeasure(meter: MessageMeter, message: Message): MessageMeasure {
  return {
    hash: meter.hash(message),
    get tokens() {
      return meter.measure(message).tokens;
    },
  };
}

/** Counts waiting for the event loop at a time; an older one left out is counted when its figure is read. */
const MAX_DEFERRED_COUNTS = 8;

/**
 * Counts the engines run once the current task is done (the call sent, the provider working), so the figures they
 * fill are ready when read; at most `MAX_DEFERRED_COUNTS` for the process (see `deferredTasks`).
 */
const deferredCounts = deferredTasks(MAX_DEFERRED_COUNTS, 'drop');
