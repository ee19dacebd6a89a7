import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import type { EngineSettings } from '../options/engine-settings.js';
import type { RecallPlanner } from '../recall/recall-planner.js';
import { sessionStateMessages } from '../session-state/render-session-state.js';
import type { SessionState } from '../session-state/session-state.js';
import { rebindOriginals } from '../transcript/rebind-originals.js';
import type { Message } from '../transcript/transcript.js';
import { project } from '../view/project.js';
import type { ConversationMemory } from './conversation-memory.js';
import { blockIdentity } from './sent-prompts.js';

/**
 * The prompt at a compression point: what the model sees there (its projection), its tokens, and its messages in
 * order: the state pair, the pinned user message when the fold point splits a turn, the kept messages with a recall
 * block before its user message. Measures are taken on the engine's objects, whose measures are remembered; untouched
 * messages go out as the caller's own.
 */
export class PromptAssembly {
  constructor(
    private readonly meter: MessageMeter,
    private readonly settings: Pick<EngineSettings, 'keepRecent' | 'acknowledgement'>,
    private readonly memory: ConversationMemory,
    private readonly recalls: RecallPlanner,
  ) {}

  /** What the model sees at a point: the edited messages and the token arithmetic of every cut. */
  project(facts: CallFacts, point: CompressionPoint): Projection {
    return project(facts, point, {
      meter: this.meter,
      keepRecent: this.settings.keepRecent,
      cache: this.memory.projections,
      recallTokens: (at, items) => this.recalls.block(facts, at, items)?.tokens ?? 0,
    });
  }

  /** Tokens of the prompt at a point. */
  total(projection: Projection, point: CompressionPoint): number {
    return projection.layout.total(point.coveredCount, this.stateTokens(point.state));
  }

  /** Tokens of the session state pair, 0 without a state. */
  stateTokens(state: SessionState | undefined): number {
    if (!state) return 0;
    return this.stateMessages(state).reduce((sum, message) => sum + this.meter.measure(message).tokens, 0);
  }

  /** The messages sent at a point, and the measure of each. */
  assemble(
    facts: CallFacts,
    point: CompressionPoint,
    projection: Projection,
  ): { messages: Message[]; measures: MessageMeasure[] } {
    const messages: Message[] = [];
    const measures: MessageMeasure[] = [];
    for (const { message, sent } of this.messages(facts, point, projection)) {
      messages.push(sent);
      measures.push(this.meter.measure(message));
    }
    return { messages, measures };
  }

  /** The messages of the prompt at a point: the engine's object of each (measured) and the one sent. */
  messages(facts: CallFacts, point: CompressionPoint, projection: Projection): { message: Message; sent: Message }[] {
    const prompt: { message: Message; sent: Message }[] = [];
    const add = (message: Message, sent: Message = message) => prompt.push({ message, sent });
    if (point.state) for (const message of this.stateMessages(point.state)) add(message);
    const pinned = projection.layout.pinned(point.coveredCount);
    if (pinned >= 0) add(facts.messages[pinned] as Message, facts.input[pinned]);
    for (let index = point.coveredCount; index < facts.messages.length; index++) {
      const items = point.recalls.get(index);
      const block = items && this.recalls.block(facts, index, items);
      if (block) for (const synthetic of block.messages) add(synthetic);
      const message = projection.view.messages[index] as Message;
      const caller = facts.input[index] as Message;
      add(message, message === facts.messages[index] ? caller : this.rebound(message, caller));
    }
    return prompt;
  }

  /** The recall blocks the prompt at a point carries, by identity. */
  blocks(facts: CallFacts, point: CompressionPoint): ReadonlySet<string> {
    const blocks = new Set<string>();
    for (const [at, items] of point.recalls) {
      if (at >= point.coveredCount && this.recalls.block(facts, at, items))
        blocks.add(blockIdentity(at, facts.prefixHashes, items));
    }
    return blocks;
  }

  /** Tokens of the recall block made for the user message at an index (0 when none is made). */
  blockTokens(facts: CallFacts, at: number, items: readonly string[]): number {
    return this.recalls.block(facts, at, items)?.tokens ?? 0;
  }

  /** The session state pair of a state, rendered once per state object. */
  private stateMessages(state: SessionState): readonly Message[] {
    let pair = this.memory.statePairs.get(state);
    if (!pair) {
      pair = sessionStateMessages(state, this.settings.acknowledgement);
      this.memory.statePairs.set(state, pair);
    }
    return pair;
  }

  /** An edited message with this call's framework objects, the same object while the caller's message is the same. */
  private rebound(edited: Message, caller: Message): Message {
    const known = this.memory.rebinds.get(caller);
    if (known?.edited === edited) return known.sent;
    const sent = rebindOriginals(edited, caller);
    this.memory.rebinds.set(caller, { edited, sent });
    return sent;
  }
}
