import type { Message } from '../transcript/transcript.js';
import { analyzeSteps, type StepSignals } from './transcript-signals.js';

/**
 * Step signals of conversations. Complete steps are remembered per conversation, keyed by the prefix they cover, so a
 * call that adds one step analyzes one step. Bounded: the least recently used conversations are forgotten.
 */
export class StepAnalyses {
  private readonly analyses = new Map<string, { through: number; hash: number; steps: StepSignals[] }>();

  constructor(private readonly maxConversations = 1_000) {}

  /** The step signals of a history; `prefixHashes[k]` is the hash of its first k messages. */
  analyze(conversation: string, messages: readonly Message[], prefixHashes: readonly number[]): StepSignals[] {
    const cached = this.analyses.get(conversation);
    const reuse = cached && cached.through <= messages.length && prefixHashes[cached.through] === cached.hash;
    const start = reuse ? cached.through : 0;
    const fresh = analyzeSteps(messages.slice(start)).map((step) => ({
      ...step,
      messageIndex: step.messageIndex + start,
      resultIndexes: step.resultIndexes.map((index) => index + start),
    }));
    const steps = [...(reuse ? cached.steps : []), ...fresh];
    // the last step may still grow (more results): remember the steps before it
    const last = steps.at(-1);
    if (last) {
      this.analyses.delete(conversation);
      this.analyses.set(conversation, {
        through: last.messageIndex,
        hash: prefixHashes[last.messageIndex] as number,
        steps: steps.slice(0, -1),
      });
      if (this.analyses.size > this.maxConversations) this.analyses.delete(this.analyses.keys().next().value as string);
    }
    return steps;
  }
}
