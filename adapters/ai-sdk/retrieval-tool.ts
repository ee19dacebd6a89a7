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
import { toolCallHistory } from './model-messages.js';

export type { RetrievalToolOptions, RetrievalToolOutput };

/**
 * An AI SDK tool the model calls to get back, verbatim, tool results that compression hid (cleared, redacted,
 * shortened, or folded into the session state), instead of running the tools again. It finds them in the messages
 * the AI SDK passes to `execute` (the whole history, as the caller sent it), or, in a framework that passes less
 * (Mastra), in the prompt a compressed model answered with the call. The model reads the results as plain text; a
 * long answer comes in pages. Register it under any name: compression recognizes it among the call's tools and names
 * it in every placeholder.
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
    execute: async (input, { toolCallId, messages }) =>
      retrievalAnswer(toolCallHistory(toolCallId, messages), input, pageChars === undefined ? {} : { pageChars }),
    toModelOutput: (options) => ({ type: 'text', value: renderRetrievalAnswer(outputOf(options)) }),
  });
}

/**
 * The tool's output from what `toModelOutput` receives: `{ output, toolCallId, input }` as the AI SDK (v6 and later)
 * passes it, or the output itself as frameworks built on the AI SDK v5 call it (Mastra).
 */
function outputOf(options: { output: RetrievalToolOutput } | RetrievalToolOutput): RetrievalToolOutput {
  return 'results' in options ? options : options.output;
}
