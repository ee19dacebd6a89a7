import type { BaseMessage } from '@langchain/core/messages';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import { group } from '../../src/options/option-fields.js';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { LangChainToolOptionsSchema, RedactionToolOptionsSchema } from '../../src/options/tool-options.js';
import {
  DEFAULT_REDACTION_TOOL_DESCRIPTION,
  DEFAULT_REDACTION_TOOL_NAME,
  type RedactionInput,
  RedactionInputSchema,
  type RedactionToolOutput,
  redactionAnswer,
  type RedactionToolOptions as SharedRedactionToolOptions,
} from '../../src/strategies/redaction.js';
import { toTranscript } from './to-transcript.js';

export type { RedactionToolOutput };

/** Options of the LangChain redaction tool: the shared options and the tool's name. */
export interface RedactionToolOptions extends SharedRedactionToolOptions {
  /** The tool's name; give the same to the compression options as `redaction.toolName`. @default DEFAULT_REDACTION_TOOL_NAME */
  name?: string;
}

/** The shared options and the tool's name. */
const OptionsSchema = group({ ...RedactionToolOptionsSchema.shape, name: LangChainToolOptionsSchema.shape.name });

/**
 * A LangChain tool the model calls, beside its other tools, to flag earlier tool results it no longer needs. In a
 * `createAgent` loop it checks the ids against the conversation (`runtime.state.messages`) and answers which were
 * accepted and which rejected, and why; elsewhere it cannot see the conversation and accepts the ids unchecked.
 * Either way compression finds the directive in the history on every later call, checks it again, and replaces
 * those results with the model's reason: no server state.
 */
export function redactionTool(
  options: RedactionToolOptions = {},
): DynamicStructuredTool<typeof RedactionInputSchema, RedactionInput, RedactionInput, string> {
  const {
    name = DEFAULT_REDACTION_TOOL_NAME,
    description = DEFAULT_REDACTION_TOOL_DESCRIPTION,
    excludeTools,
  } = parseOptions(OptionsSchema, options, '');
  return tool(
    async (input: RedactionInput, runtime?: unknown) => {
      const messages = (runtime as { state?: { messages?: BaseMessage[] } } | undefined)?.state?.messages;
      const output: RedactionToolOutput = messages
        ? redactionAnswer(toTranscript(messages).messages, input, { toolName: name, excludeTools })
        : {
            accepted: [...input.toolCallIds],
            rejected: [],
            message: 'Noted; the ids are checked against the conversation before any result is hidden.',
          };
      return JSON.stringify(output);
    },
    { name, description, schema: RedactionInputSchema },
  );
}
