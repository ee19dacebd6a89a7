import { retrievalToolAwareness } from '../options/prompts.js';
import { findOwnTools, type OwnToolNames } from '../strategies/own-tools.js';
import { type Message, messageText } from '../transcript/transcript.js';

/**
 * This package's tools as an engine instance has seen them: the names they are registered under (found among each
 * call's tools by `findOwnTools`) and the awareness block that goes with them. A step that leaves the tools out
 * (`activeTools`, a call without bound tools) keeps the names seen before, so the system prompt and the placeholders
 * stay the same from step to step.
 */
export class OwnToolsSeen {
  private names: OwnToolNames = {};
  /** The awareness block with the retrieval tool's sentence, by the tool's name: one object each, counted once. */
  private readonly blocks = new Map<string, Message>();

  constructor(private readonly awareness: Message | undefined) {}

  /** The names for a call carrying `definitions`, and its awareness block (none when awareness is off). */
  forCall(definitions: readonly unknown[]): { names: OwnToolNames; awareness: Message | undefined } {
    this.names = { ...this.names, ...findOwnTools(definitions) };
    return { names: this.names, awareness: this.awarenessFor(this.names.retrieval) };
  }

  /** The configured awareness block, followed by a sentence on the retrieval tool when there is one. */
  private awarenessFor(retrievalToolName: string | undefined): Message | undefined {
    const { awareness } = this;
    if (!awareness || retrievalToolName === undefined) return awareness;
    let block = this.blocks.get(retrievalToolName);
    if (!block) {
      const text = `${messageText(awareness)}\n${retrievalToolAwareness(retrievalToolName)}`;
      block = { ...awareness, parts: [{ type: 'text', text }] };
      this.blocks.set(retrievalToolName, block);
    }
    return block;
  }
}
