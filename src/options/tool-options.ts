import type { z } from 'zod';
import { callback, group, nonEmptyText, text, toolNames, whole } from './option-fields.js';

/*
 * The options of the tools this package gives the model (`retrievalTool()`, `redactionTool()`, and
 * `openaiAgentsTool()` that makes either an OpenAI Agents SDK tool) and of the in-memory store: checked when the tool
 * or store is made, listed in the options reference. The adapters' tool option types extend the shared ones with what
 * only their framework has (LangChain tools carry their `name`).
 */

/** Smallest page the retrieval tool accepts, in characters. */
export const MIN_RETRIEVAL_PAGE_CHARS = 200;

const retrievalToolShape = {
  /** What the tool tells the model. @default DEFAULT_RETRIEVAL_TOOL_DESCRIPTION */
  description: text().optional(),
  /** Characters of one page of an answer; a longer answer comes in pages. @default 8000 */
  pageChars: whole(MIN_RETRIEVAL_PAGE_CHARS, ' of characters').optional(),
};

/** Options of `retrievalTool()`, shared by both adapters. */
export const RetrievalToolOptionsSchema: z.ZodObject<typeof retrievalToolShape, z.core.$strict> =
  group(retrievalToolShape);

const redactionToolShape = {
  /** What the tool tells the model. @default DEFAULT_REDACTION_TOOL_DESCRIPTION */
  description: text().optional(),
  /** Tools whose results may not be redacted; give the compression the same list as `masking.excludeTools`. @default none */
  excludeTools: toolNames().optional(),
};

/** Options of `redactionTool()`, shared by both adapters. */
export const RedactionToolOptionsSchema: z.ZodObject<typeof redactionToolShape, z.core.$strict> =
  group(redactionToolShape);

const langChainToolShape = {
  /**
   * LangChain tools only: the tool's name. The retrieval tool is recognized under any name; for the redaction tool
   * give the same name to the compression options as `redaction.toolName`. @default the tool's DEFAULT_*_TOOL_NAME
   */
  name: nonEmptyText().optional(),
  /**
   * LangChain `retrievalTool()` only: where it finds the conversation when `createAgent` does not run it (a function
   * returning the current messages). @default the agent state's messages
   */
  messages: callback<() => unknown>().optional(),
};

/** What LangChain's tools add to the shared tool options. */
export const LangChainToolOptionsSchema: z.ZodObject<typeof langChainToolShape, z.core.$strict> =
  group(langChainToolShape);

const openAIAgentsToolShape = {
  /** The tool's name in the OpenAI Agents SDK. @default the tool's DEFAULT_*_TOOL_NAME */
  name: nonEmptyText().optional(),
};

/** Options of `openaiAgentsTool(tool, options)` (AI SDK adapter). */
export const OpenAIAgentsToolOptionsSchema: z.ZodObject<typeof openAIAgentsToolShape, z.core.$strict> =
  group(openAIAgentsToolShape);

const memoryStoreShape = {
  /** Entries kept at the most; the least recently used go first. @default 10000 */
  maxEntries: whole(1, ' of entries').optional(),
  /** Milliseconds since an arbitrary origin, for TTLs; injectable for tests. @default Date.now */
  now: callback<() => number>().optional(),
};

/** Options of `memoryStateStore()`. */
export const MemoryStoreOptionsSchema: z.ZodObject<typeof memoryStoreShape, z.core.$strict> = group(memoryStoreShape);
