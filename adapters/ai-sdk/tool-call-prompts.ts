import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { LRUCache } from 'lru-cache';
import { findOwnTools } from '../../src/strategies/own-tools.js';

/**
 * How many calls of this package's tools keep the prompt that made them. A prompt is needed from the model's answer
 * until the framework runs the tool, moments later, so this bounds only what many concurrent runs hold at once.
 */
const REMEMBERED_TOOL_CALLS = 256;

/**
 * One memory per process, on a registered symbol, so that another copy of this package (its CommonJS build beside the
 * ESM one) reads what this one remembered.
 */
const MEMORY = Symbol.for('context-compression.tool-call-prompts');

function memory(): LRUCache<string, LanguageModelV4Prompt> {
  const holder = globalThis as { [MEMORY]?: LRUCache<string, LanguageModelV4Prompt> };
  holder[MEMORY] ??= new LRUCache<string, LanguageModelV4Prompt>({ max: REMEMBERED_TOOL_CALLS });
  return holder[MEMORY];
}

/**
 * Keeps the history of each call of this package's tools: some frameworks give a tool little or no history (the OpenAI
 * Agents SDK none, Mastra the first user message), so the tool asks by its call id for the prompt the model answered,
 * as the caller sent it (before compression). Calls of other tools are not kept.
 */
export class ToolCallPrompts {
  private ownNames: ReadonlySet<string> | undefined;

  constructor(private readonly params: LanguageModelV4CallOptions) {}

  /** Remembers the prompt for every call of this package's tools among an answer's content parts. */
  remember(parts: readonly (LanguageModelV4Content | LanguageModelV4StreamPart)[]): void {
    for (const part of parts) this.rememberPart(part);
  }

  /** Remembers the prompt when `part` is a call of this package's tools. */
  rememberPart(part: LanguageModelV4Content | LanguageModelV4StreamPart): void {
    if (part.type !== 'tool-call' || part.providerExecuted) return;
    this.ownNames ??= new Set(Object.values(findOwnTools(this.params.tools ?? [])));
    if (this.ownNames.has(part.toolName)) memory().set(part.toolCallId, this.params.prompt);
  }
}

/** True when a compressed model answered with this call of this package's tools, and its prompt was not taken yet. */
export function hasPromptOfToolCall(toolCallId: string | undefined): boolean {
  return toolCallId !== undefined && memory().has(toolCallId);
}

/**
 * The prompt a compressed model answered with a call of this package's tools, by the call's id, given once: a tool
 * runs once per call, and an id a later run happens to reuse (as scripted test models do) finds nothing.
 */
export function takePromptOfToolCall(toolCallId: string | undefined): LanguageModelV4Prompt | undefined {
  if (!toolCallId) return undefined;
  const prompt = memory().get(toolCallId);
  memory().delete(toolCallId);
  return prompt;
}
