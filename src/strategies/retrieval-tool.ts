import MiniSearch from 'minisearch';
import { z } from 'zod';
import { MIN_RETRIEVAL_PAGE_CHARS, type RetrievalToolOptionsSchema } from '../options/tool-options.js';
import { exactRanking } from '../signals/exact-terms.js';
import { type Message, stableStringify } from '../transcript/transcript.js';

/** Name the retrieval tool is registered under when the caller does not pick one. */
export const DEFAULT_RETRIEVAL_TOOL_NAME = 'retrieve_tool_results';

/** Most tool calls one request of the retrieval tool may name. */
export const MAX_RETRIEVAL_IDS = 20;

/** Longest query accepted, in characters. */
export const MAX_RETRIEVAL_QUERY_CHARS = 200;

/** Characters of one page of an answer, by default (about 2,000 tokens of English or code). */
export const DEFAULT_RETRIEVAL_PAGE_CHARS = 8_000;

/** Results a query answers with at most. */
const QUERY_RESULTS = 3;

/** How an answer of the retrieval tool starts its results: such results are never found by a query. */
const RESULT_TAG = '<tool_result id=';

/**
 * The description of the `toolCallIds` argument. Compression recognizes the retrieval tool among a call's tools by it,
 * under whatever name the tool is registered.
 */
export const RETRIEVAL_IDS_DESCRIPTION = `Ids of earlier tool calls whose results were cleared, shortened or summarized and that you need again, exactly as they were (1 to ${MAX_RETRIEVAL_IDS}; empty when you give a query).`;

/** What the model sends to the retrieval tool. */
export const RetrievalInputSchema = z.object({
  toolCallIds: z.array(z.string()).describe(RETRIEVAL_IDS_DESCRIPTION),
  query: z
    .string()
    .optional()
    .describe(
      `Instead of ids: a few distinctive words (a file name, an error, an identifier) to find earlier tool results by; the ${QUERY_RESULTS} best matches come back (at most ${MAX_RETRIEVAL_QUERY_CHARS} characters).`,
    ),
  page: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Page of a long answer, from 1; the answer says how many pages there are.'),
});

/** A request of the retrieval tool as the model sent it. */
export type RetrievalInput = z.infer<typeof RetrievalInputSchema>;

/** One tool result given back, or the part of it on this page. */
export interface RetrievedResult {
  toolCallId: string;
  toolName: string;
  /** The original output, verbatim (the part of it on this page). */
  output: string;
  /** `k/n` when the output is split over pages: this is piece k of n. */
  part?: string;
}

/** What the retrieval tool answers the model. */
export interface RetrievalToolOutput {
  results: RetrievedResult[];
  /** Ids that name no earlier tool result, and why. */
  missing: Array<{ toolCallId: string; reason: string }>;
  page: number;
  pages: number;
  message: string;
}

/** Options every adapter's retrieval tool takes. */
export type RetrievalToolOptions = z.input<typeof RetrievalToolOptionsSchema>;

/** What the retrieval tool tells the model: when to use it, and that it never runs anything again. */
export const DEFAULT_RETRIEVAL_TOOL_DESCRIPTION = `Gives back, verbatim, the results of earlier tool calls that were cleared, shortened or summarized to save context: a placeholder or the session state names their call ids. Use it instead of running a tool again when you need exactly what it returned then (re-running can be slow, have side effects, or return something else). Pass the call ids, or a query of a few distinctive words when you do not know them. A long answer comes in pages; ask for the next with \`page\`.`;

/** Cuts `text` into pieces of at most `size` characters, at line ends where it can. */
function pieces(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const lineEnd = text.lastIndexOf('\n', end - 1);
      if (lineEnd > start + size / 2) end = lineEnd + 1;
      // never between the two halves of a surrogate pair
      else if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** A tool result of the history: its tool, what the call asked (its arguments as JSON) and the output. */
interface FoundResult {
  readonly name: string;
  readonly args: string;
  readonly output: string;
}

/** The tool results of a history by call id (the last result of a repeated id), with their call's tool and arguments. */
function resultsById(messages: readonly Message[]): Map<string, FoundResult> {
  const args = new Map<string, string>();
  const results = new Map<string, FoundResult>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') args.set(part.id, stableStringify(part.args));
      if (part.type === 'tool-result') {
        results.set(part.callId, { name: part.name, args: args.get(part.callId) ?? '', output: part.output });
      }
    }
  }
  return results;
}

/**
 * The ids of the results that match a query best, over every result of the history but the retrieval tool's, each
 * with its call's arguments: first those holding what the query names verbatim (a path, a file name, an identifier,
 * an error code; see `exactRanking`), by how rare and how long the terms they hold are, then BM25's ranking. A query
 * for `src/module_2.ts` or for a function name only one result holds finds that result first, where BM25 alone
 * splits names into words (`module`, `2`) that every read of a module shares.
 */
function searchResults(results: ReadonlyMap<string, FoundResult>, query: string, toolName: string): string[] {
  // earlier answers of the retrieval tool quote the originals: the originals are what comes back
  const documents = [...results]
    .filter(([, result]) => result.name !== toolName && !result.output.includes(RESULT_TAG))
    .map(([id, result]) => ({ id, text: `${result.name} ${result.args}\n${result.output}` }));
  const search = new MiniSearch<{ id: string; text: string }>({ fields: ['text'], storeFields: [] });
  search.addAll(documents);
  const lexical = search.search(query, { prefix: true, fuzzy: 0.1, combineWith: 'OR' }).map((hit) => String(hit.id));
  const exact = exactRanking(
    query,
    documents.map((document) => document.text),
  ).map(({ index }) => documents[index]?.id as string);
  return [...new Set([...exact, ...lexical])].slice(0, QUERY_RESULTS);
}

/**
 * The retrieval tool's answer: the results of the named calls, found in `messages` (the history the caller sends, so no
 * server state), verbatim, in the order asked, in pages of at most `pageChars` characters of output. Deterministic:
 * the same request on the same history gives the same answer.
 */
export function retrievalAnswer(
  messages: readonly Message[],
  input: unknown,
  {
    pageChars = DEFAULT_RETRIEVAL_PAGE_CHARS,
    toolName = DEFAULT_RETRIEVAL_TOOL_NAME,
  }: { pageChars?: number; toolName?: string } = {},
): RetrievalToolOutput {
  const none = (message: string): RetrievalToolOutput => ({ results: [], missing: [], page: 1, pages: 1, message });
  const parsed = RetrievalInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return none(`The request is invalid: ${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}.`);
  }
  const { query = '', page = 1 } = parsed.data;
  const results = resultsById(messages);
  let ids = [...new Set(parsed.data.toolCallIds)];
  if (ids.length === 0 && query.trim() === '') {
    return none('Name 1 or more tool call ids, or give a query; nothing was retrieved.');
  }
  if (ids.length > MAX_RETRIEVAL_IDS) {
    return none(`Name at most ${MAX_RETRIEVAL_IDS} tool call ids at once (got ${ids.length}); nothing was retrieved.`);
  }
  if (query.length > MAX_RETRIEVAL_QUERY_CHARS) {
    return none(`The query must be at most ${MAX_RETRIEVAL_QUERY_CHARS} characters (got ${query.length}).`);
  }
  if (ids.length === 0) {
    ids = searchResults(results, query, toolName);
    if (ids.length === 0) return none(`No earlier tool result matches "${query}".`);
  }
  const missing: RetrievalToolOutput['missing'] = [];
  const found: Array<{ id: string; name: string; output: string }> = [];
  for (const id of ids) {
    const result = results.get(id);
    if (!result) missing.push({ toolCallId: id, reason: 'no earlier tool result has this id' });
    else found.push({ id, ...result });
  }
  // pages: the results in order, each cut into pieces that fit a page; a page holds whole pieces
  const size = Math.max(MIN_RETRIEVAL_PAGE_CHARS, Math.floor(pageChars));
  const paged: RetrievedResult[][] = [[]];
  let used = 0;
  for (const result of found) {
    const cut = pieces(result.output, size);
    cut.forEach((output, index) => {
      if (used > 0 && used + output.length > size) {
        paged.push([]);
        used = 0;
      }
      paged.at(-1)?.push({
        toolCallId: result.id,
        toolName: result.name,
        output,
        ...(cut.length > 1 ? { part: `${index + 1}/${cut.length}` } : {}),
      });
      used += output.length;
    });
  }
  const pages = paged.length;
  const current = Math.min(page, pages);
  const onPage = paged[current - 1] ?? [];
  const parts = [
    found.length === 0
      ? 'Retrieved nothing.'
      : `Retrieved ${found.length} tool result${found.length === 1 ? '' : 's'} (${found.map((result) => result.id).join(', ')}) verbatim${pages > 1 ? `, page ${current} of ${pages}` : ''}.`,
  ];
  if (pages > 1 && current < pages) parts.push(`Ask again with page: ${current + 1} for the rest.`);
  if (page > pages) parts.push(`There is no page ${page}; this is the last one.`);
  if (missing.length > 0) parts.push(`Not found: ${missing.map((entry) => entry.toolCallId).join(', ')}.`);
  return { results: onPage, missing, page: current, pages, message: parts.join(' ') };
}

/**
 * The answer as the model reads it: the message, then each result verbatim between tags that name its call (plain
 * text, so code and logs come back as they were, without JSON escaping).
 */
export function renderRetrievalAnswer(output: RetrievalToolOutput): string {
  const blocks = output.results.map((result) => {
    const part = result.part ? ` part="${result.part}"` : '';
    return `${RESULT_TAG}${JSON.stringify(result.toolCallId)} tool=${JSON.stringify(result.toolName)}${part}>\n${result.output}\n</tool_result>`;
  });
  return [output.message, ...blocks].join('\n');
}
