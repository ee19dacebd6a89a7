import type { Tool } from 'ai';
import type { z } from 'zod';
import { InvalidOptionError } from '../../src/errors.js';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { OpenAIAgentsToolOptionsSchema } from '../../src/options/tool-options.js';
import {
  DEFAULT_REDACTION_TOOL_NAME,
  type RedactionInput,
  RedactionInputSchema,
  type RedactionToolOutput,
} from '../../src/strategies/redaction.js';
import {
  DEFAULT_RETRIEVAL_TOOL_NAME,
  type RetrievalInput,
  RetrievalInputSchema,
  type RetrievalToolOutput,
} from '../../src/strategies/retrieval-tool.js';
import { hasPromptOfToolCall } from './tool-call-prompts.js';

/**
 * What the OpenAI Agents SDK's `tool()` takes to make a function tool, as its types declare it (written out here, so
 * that this package does not depend on `@openai/agents`).
 */
export interface OpenAIAgentsToolDefinition<Schema extends z.ZodType> {
  name: string;
  description: string;
  parameters: Schema;
  execute: (
    input: z.output<Schema>,
    context?: unknown,
    details?: { toolCall?: { callId?: string } },
  ) => Promise<string>;
}

/** What the tool answers when no compressed model answered with its call: it has no history to read. */
const NO_HISTORY =
  'Nothing can be done here: the tool cannot see the conversation (the agent model must be aisdk(withContextCompression(model)), in the same process).';

/**
 * Makes this package's retrieval or redaction tool (`retrievalTool()`, `redactionTool()`) usable in the OpenAI Agents
 * SDK, whose tools receive no history: pass the result to its `tool()`, with the agent's model wrapped as
 * `aisdk(withContextCompression(model))`. The tool reads the history from the prompt that model answered with the
 * call (found by the call's id, kept in memory for the latest 256 such calls).
 */
export function openaiAgentsTool(
  tool: Tool<RetrievalInput, RetrievalToolOutput>,
  options?: { name?: string },
): OpenAIAgentsToolDefinition<typeof RetrievalInputSchema>;
export function openaiAgentsTool(
  tool: Tool<RedactionInput, RedactionToolOutput>,
  options?: { name?: string },
): OpenAIAgentsToolDefinition<typeof RedactionInputSchema>;
export function openaiAgentsTool(
  tool: Tool<RetrievalInput, RetrievalToolOutput> | Tool<RedactionInput, RedactionToolOutput>,
  options: { name?: string } = {},
): OpenAIAgentsToolDefinition<typeof RetrievalInputSchema> | OpenAIAgentsToolDefinition<typeof RedactionInputSchema> {
  const { name } = parseOptions(OpenAIAgentsToolOptionsSchema, options, '');
  const { inputSchema, execute, toModelOutput } = tool as Tool<unknown, unknown>;
  const defaultName =
    inputSchema === RetrievalInputSchema
      ? DEFAULT_RETRIEVAL_TOOL_NAME
      : inputSchema === RedactionInputSchema
        ? DEFAULT_REDACTION_TOOL_NAME
        : undefined;
  if (defaultName === undefined || !execute) {
    throw new InvalidOptionError({
      option: 'tool',
      message: 'openaiAgentsTool takes the retrievalTool() or redactionTool() of context-compression/ai-sdk',
    });
  }
  return {
    name: name ?? defaultName,
    description: typeof tool.description === 'string' ? tool.description : '',
    parameters: inputSchema as typeof RetrievalInputSchema,
    execute: async (input: unknown, _context?: unknown, details?: { toolCall?: { callId?: string } }) => {
      const toolCallId = details?.toolCall?.callId;
      if (toolCallId === undefined || !hasPromptOfToolCall(toolCallId)) return NO_HISTORY;
      const output: unknown = await execute(input, { toolCallId, messages: [], context: undefined });
      const modelOutput = await toModelOutput?.({ toolCallId, input, output });
      return modelOutput?.type === 'text' ? modelOutput.value : JSON.stringify(output);
    },
  };
}
