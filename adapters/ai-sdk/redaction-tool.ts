import { type Tool, tool } from 'ai';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { RedactionToolOptionsSchema } from '../../src/options/tool-options.js';
import {
  DEFAULT_REDACTION_TOOL_DESCRIPTION,
  type RedactionInput,
  RedactionInputSchema,
  type RedactionToolOptions,
  type RedactionToolOutput,
  redactionAnswer,
} from '../../src/strategies/redaction.js';
import { toolCallHistory } from './model-messages.js';

export type { RedactionToolOptions, RedactionToolOutput };

/**
 * An AI SDK tool the model calls, in parallel with its other tools, to flag earlier tool results it no longer needs.
 * It checks the ids against the conversation and answers which were accepted and which were rejected and why. The
 * middleware then finds the directive in the history on every later call and replaces those results with the
 * model's reason: no server state. Register it under `DEFAULT_REDACTION_TOOL_NAME` (or give the middleware the
 * name you use as `redaction.toolName`).
 */
export function redactionTool(options: RedactionToolOptions = {}): Tool<RedactionInput, RedactionToolOutput> {
  const { description = DEFAULT_REDACTION_TOOL_DESCRIPTION, excludeTools } = parseOptions(
    RedactionToolOptionsSchema,
    options,
    '',
  );
  return tool({
    description,
    inputSchema: RedactionInputSchema,
    execute: async (input, { toolCallId, messages }) =>
      redactionAnswer(toolCallHistory(toolCallId, messages), input, { excludeTools }),
  });
}
