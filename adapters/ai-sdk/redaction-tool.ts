import { type Tool, tool } from 'ai';
import {
  DEFAULT_REDACTION_TOOL_DESCRIPTION,
  type RedactionInput,
  RedactionInputSchema,
  type RejectedRedaction,
  validateRedaction,
} from '../../src/redaction.js';
import { modelMessagesToTranscript } from './model-messages.js';

/** Options of the redaction tool. */
export interface RedactionToolOptions {
  /** What the tool tells the model. @default DEFAULT_REDACTION_TOOL_DESCRIPTION */
  description?: string;
  /** Tools whose results may not be redacted; give the middleware the same list as `masking.excludeTools`. */
  excludeTools?: string[];
}

/** What the redaction tool answers the model. */
export interface RedactionToolOutput {
  accepted: string[];
  rejected: RejectedRedaction[];
  message: string;
}

/**
 * An AI SDK tool the model calls, in parallel with its other tools, to flag earlier tool results it no longer needs.
 * It checks the ids against the conversation and answers which were accepted and which were rejected and why. The
 * middleware then finds the directive in the history on every later call and replaces those results with the
 * model's reason: no server state. Register it under `DEFAULT_REDACTION_TOOL_NAME` (or give the middleware the
 * name you use as `redaction.toolName`).
 */
export function redactionTool({
  description = DEFAULT_REDACTION_TOOL_DESCRIPTION,
  excludeTools,
}: RedactionToolOptions = {}): Tool<RedactionInput, RedactionToolOutput> {
  return tool({
    description,
    inputSchema: RedactionInputSchema,
    execute: async (input, { messages }) => {
      const outcome = validateRedaction(modelMessagesToTranscript(messages), input, { excludeTools });
      return { accepted: [...outcome.accepted], rejected: [...outcome.rejected], message: outcome.message };
    },
  });
}
