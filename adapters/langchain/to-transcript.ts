import type { BaseMessage } from '@langchain/core/messages';
import type { Transcript } from '../../src/transcript/transcript.js';
import { TranscriptConverter } from './transcript-converter.js';

/**
 * Tool definitions in one shape for counting, `{ name, description, inputSchema }`, from LangChain tools or the
 * OpenAI-style definitions a model binds.
 */
export function toolDefinitions(tools: readonly unknown[] | undefined): unknown[] {
  return new TranscriptConverter().toolDefinitions(tools);
}

/**
 * Converts LangChain messages and tools into the engine's transcript. Leading system messages become the system
 * prompt; a system message later on stays a message in its place. Every message keeps its object as `original`.
 * Something that is not a LangChain message, or content blocks that are not objects, is an InvalidPromptError; null
 * content reads as empty and tool call args with a cycle or a BigInt as plain data. Remembers nothing between calls;
 * a {@link TranscriptConverter} does.
 */
export function toTranscript(messages: readonly BaseMessage[], tools?: readonly unknown[]): Transcript {
  return new TranscriptConverter().toTranscript(messages, tools);
}
