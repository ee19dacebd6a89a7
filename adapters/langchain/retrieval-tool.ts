import type { BaseMessage } from '@langchain/core/messages';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import { group } from '../../src/options/option-fields.js';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { LangChainToolOptionsSchema, RetrievalToolOptionsSchema } from '../../src/options/tool-options.js';
import {
  DEFAULT_RETRIEVAL_TOOL_DESCRIPTION,
  DEFAULT_RETRIEVAL_TOOL_NAME,
  type RetrievalInput,
  RetrievalInputSchema,
  renderRetrievalAnswer,
  retrievalAnswer,
  type RetrievalToolOptions as SharedRetrievalToolOptions,
} from '../../src/strategies/retrieval-tool.js';
import { toTranscript } from './to-transcript.js';

/** Options of the LangChain retrieval tool: the shared options and the tool's name. */
export interface RetrievalToolOptions extends SharedRetrievalToolOptions {
  /** The tool's name; compression recognizes the tool under any name. @default DEFAULT_RETRIEVAL_TOOL_NAME */
  name?: string;
  /**
   * Where the tool finds the conversation when it is not run by `createAgent` (whose `runtime.state.messages` it reads
   * by default): a function returning the current messages.
   */
  messages?: () => readonly BaseMessage[] | Promise<readonly BaseMessage[]>;
}

/** The shared options, the tool's name and where it finds the conversation. */
const OptionsSchema = group({ ...RetrievalToolOptionsSchema.shape, ...LangChainToolOptionsSchema.shape });

/**
 * A LangChain tool the model calls to get back, verbatim, tool results that compression hid (cleared, redacted,
 * shortened, or folded into the session state), instead of running the tools again. In a `createAgent` loop it reads
 * the conversation from `runtime.state.messages` (no server state); elsewhere give it `messages`. It answers in plain
 * text, a long answer in pages. Compression recognizes it among the call's tools under any name.
 */
export function retrievalTool(
  options: RetrievalToolOptions = {},
): DynamicStructuredTool<typeof RetrievalInputSchema, RetrievalInput, RetrievalInput, string> {
  parseOptions(OptionsSchema, options, '');
  const {
    name = DEFAULT_RETRIEVAL_TOOL_NAME,
    description = DEFAULT_RETRIEVAL_TOOL_DESCRIPTION,
    pageChars,
    messages: source,
  } = options;
  return tool(
    async (input: RetrievalInput, runtime?: unknown) => {
      const messages =
        (runtime as { state?: { messages?: BaseMessage[] } } | undefined)?.state?.messages ?? (await source?.());
      if (!messages) {
        return 'Nothing can be retrieved here: the tool cannot see the conversation (give retrievalTool a `messages` source outside createAgent).';
      }
      const output = retrievalAnswer(toTranscript([...messages]).messages, input, {
        toolName: name,
        ...(pageChars === undefined ? {} : { pageChars }),
      });
      return renderRetrievalAnswer(output);
    },
    { name, description, schema: RetrievalInputSchema },
  );
}
