import { type Tool, tool } from 'ai';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { RetrievalToolOptionsSchema } from '../../src/options/tool-options.js';
import {
  DEFAULT_RETRIEVAL_TOOL_DESCRIPTION,
  type RetrievalInput,
  RetrievalInputSchema,
  type RetrievalToolOptions,
  type RetrievalToolOutput,
  renderRetrievalAnswer,
  retrievalAnswer,
} from '../../src/strategies/retrieval-tool.js';
import { modelMessagesToTranscript } from './model-messages.js';

export type { RetrievalToolOptions, RetrievalToolOutput };

/**
 * An AI SDK tool the model calls to get back, verbatim, tool results that compression hid (cleared, redacted,
 * shortened, or folded into the session state), instead of running the tools again. It finds them in the messages
 * the AI SDK passes to `execute` (the whole history, as the caller sent it): no server state. The model reads the
 * results as plain text; a long answer comes in pages. Register it under any name: compression recognizes it among
 * the call's tools and names it in every placeholder.
 */
export function retrievalTool(options: RetrievalToolOptions = {}): Tool<RetrievalInput, RetrievalToolOutput> {
  const { description = DEFAULT_RETRIEVAL_TOOL_DESCRIPTION, pageChars } = parseOptions(
    RetrievalToolOptionsSchema,
    options,
    '',
  );
  return tool({
    description,
    inputSchema: RetrievalInputSchema,
    execute: async (input, { messages }) =>
      retrievalAnswer(modelMessagesToTranscript(messages), input, pageChars === undefined ? {} : { pageChars }),
    toModelOutput: ({ output }) => ({ type: 'text', value: renderRetrievalAnswer(output) }),
  });
}
