/**
 * Reads a provider's error for one thing: did it reject the prompt for its length, and what figures did it give?
 * Read from the error's fields (status, code, type, message, body, the wrapped cause), never from its class, so the AI
 * SDK's `APICallError`, the providers' own SDK errors (Anthropic, OpenAI, Google) and LangChain's `ContextOverflowError`
 * are read alike, from any copy of those packages.
 */

/**
 * Margin over the ratio of the provider's count to ours that a rejection shows, taken when learning from it, so the
 * retry is not rejected again by a rounding of the provider's.
 */
export const OVERFLOW_RATIO_MARGIN = 1.05;

/** What a provider said when it rejected a prompt as too long. */
export interface ProviderOverflow {
  /** The prompt's tokens as the provider counted them, when its message says. */
  readonly providerTokens: number | undefined;
  /** The most the provider accepts (its context window, or the prompt's share of it), when its message says. */
  readonly providerLimit: number | undefined;
  /**
   * Output tokens the provider counted against the same limit (the call's `max_tokens`), when its message says:
   * Anthropic's "input length and `max_tokens` exceed context limit: 155114 + 64000 > 200000", OpenAI's "you
   * requested 140000 tokens (100000 in the messages, 40000 in the completion)".
   */
  readonly providerOutputTokens: number | undefined;
  /** The provider's message, cut to 300 characters. */
  readonly message: string;
}

/** Error codes and types that mean "the prompt is longer than the model's window", whatever the message. */
const OVERFLOW_CODES = new Set([
  'context_length_exceeded', // OpenAI, Azure OpenAI, Groq and other OpenAI-compatible servers
  'exceed_context_size_error', // llama.cpp server
  'context-overflow', // LangChain's ContextOverflowError marker
]);

/** Messages that mean the same, from the providers that give no code (Anthropic, Gemini, Mistral, vLLM, Bedrock). */
const OVERFLOW_MESSAGES = [
  /prompt is too long/i, // Anthropic: "prompt is too long: 210183 tokens > 200000 maximum"
  /input length and `?max_tokens`? exceed context limit/i, // Anthropic, input and max_tokens over the window
  /maximum context length/i, // OpenAI chat, vLLM, DeepSeek, Mistral
  /exceeds? the (?:model's )?context window/i, // OpenAI responses: "Your input exceeds the context window of this model"
  /input token count.{0,40}exceeds the maximum/i, // Gemini: "The input token count (N) exceeds the maximum ... (M)"
  /exceeds the available context size/i, // llama.cpp
  /input is too long/i, // Amazon Bedrock
  /maximum prompt length is \d+/i, // xAI
  /too many tokens in the prompt|prompt.{0,40}cannot exceed \d+ tokens/i, // Cohere
  /input tokens exceed the configured limit/i, // OpenAI (LangChain's own check)
];

/** Messages that name tokens but are not about the prompt's length: rate limits per minute, the output cap. */
const NOT_OVERFLOW = [/per min|\bTPM\b|rate limit|max_tokens is too large/i];

/** Figures `[provider count, limit, output counted]` as each provider writes them. */
const FIGURES: readonly {
  pattern: RegExp;
  tokens?: number;
  limit?: number;
  output?: number;
  /** Input and output together, as a provider that names both writes it: the input is this less the output. */
  requested?: number;
}[] = [
  {
    pattern: /exceed context limit: (\d[\d,]*) \+ (\d[\d,]*) > (\d[\d,]*)/i,
    tokens: 1,
    output: 2,
    limit: 3,
  },
  {
    // "you requested 140000 tokens (96000 in the messages, 4000 in the functions, and 40000 in the completion)"
    pattern:
      /maximum context length is (\d[\d,]*) tokens.{0,80}?requested (\d[\d,]*) tokens \(.{0,160}?(\d[\d,]*) in the completion/is,
    limit: 1,
    requested: 2,
    output: 3,
  },
  { pattern: /(\d[\d,]*) tokens? > (\d[\d,]*) maximum/i, tokens: 1, limit: 2 },
  {
    pattern: /maximum context length is (\d[\d,]*) tokens.{0,80}?resulted in (\d[\d,]*) tokens/is,
    tokens: 2,
    limit: 1,
  },
  { pattern: /maximum context length is (\d[\d,]*) tokens.{0,80}?\((\d[\d,]*) in the messages/is, tokens: 2, limit: 1 },
  {
    pattern: /input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)/i,
    tokens: 1,
    limit: 2,
  },
  { pattern: /prompt contains (\d+) tokens.{0,80}?with (\d+) maximum context length/is, tokens: 1, limit: 2 },
  { pattern: /maximum prompt length is (\d+) but the request contains (\d+) tokens/i, tokens: 2, limit: 1 },
  {
    pattern: /maximum context length is (\d[\d,]*) tokens and your request has (\d[\d,]*) input/i,
    tokens: 2,
    limit: 1,
  },
  { pattern: /maximum context length is (\d[\d,]*) tokens/i, limit: 1 },
];

const MAX_DEPTH = 4;

interface Gathered {
  readonly texts: string[];
  readonly codes: Set<string>;
  readonly statuses: Set<number>;
  /** llama.cpp's body fields. */
  promptTokens?: number;
  contextSize?: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** A JSON body in a string (the AI SDK's `responseBody`, an SDK's "400 {...}" message), parsed, or undefined. */
function parsedBody(text: string): unknown {
  const start = text.indexOf('{');
  if (start < 0 || text.length > 100_000) return undefined;
  try {
    return JSON.parse(text.slice(start));
  } catch {
    return undefined;
  }
}

/** Collects the texts, codes and statuses of an error, its body, its nested `error`, `data` and `cause`. */
function gather(value: unknown, into: Gathered, depth: number): void {
  if (depth > MAX_DEPTH || value === undefined || value === null) return;
  if (typeof value === 'string') {
    into.texts.push(value);
    const body = parsedBody(value);
    if (body !== undefined) gather(body, into, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  for (const key of ['statusCode', 'status', 'code']) {
    const field = value[key];
    if (typeof field === 'number' && field >= 100 && field < 600) into.statuses.add(field);
  }
  for (const key of ['code', 'type', 'name', 'lc_error_code']) {
    const field = value[key];
    if (typeof field === 'string') into.codes.add(field.toLowerCase());
  }
  if (typeof value.n_prompt_tokens === 'number') into.promptTokens = value.n_prompt_tokens;
  if (typeof value.n_ctx === 'number') into.contextSize = value.n_ctx;
  if (typeof value.message === 'string') into.texts.push(value.message);
  for (const key of ['responseBody', 'error', 'data', 'cause', 'body', 'response']) gather(value[key], into, depth + 1);
  // LangChain's ContextOverflowError carries its brand as a symbol-keyed marker; its name says the same
  if (value.name === 'ContextOverflowError') into.codes.add('context-overflow');
}

const number = (text: string | undefined) => (text === undefined ? undefined : Number(text.replaceAll(',', '')));

/** The provider's count and limit, from the first message that states them. */
function figures(texts: readonly string[]): { tokens?: number; limit?: number; output?: number } {
  for (const { pattern, tokens, limit, output, requested } of FIGURES) {
    for (const text of texts) {
      const match = pattern.exec(text);
      if (!match) continue;
      const at = (index: number | undefined) => (index === undefined ? undefined : number(match[index]));
      const outputTokens = at(output);
      const total = at(requested);
      return {
        tokens: total !== undefined && outputTokens !== undefined ? total - outputTokens : at(tokens),
        limit: at(limit),
        output: outputTokens,
      };
    }
  }
  return {};
}

/**
 * The provider's rejection of a prompt for its length, read from an error of any provider SDK or framework, or
 * undefined for every other error (a rate limit, a bad request of another kind, a network failure, an abort).
 */
export function readProviderOverflow(error: unknown): ProviderOverflow | undefined {
  const gathered: Gathered = { texts: [], codes: new Set(), statuses: new Set() };
  gather(error, gathered, 0);
  const { texts, codes, statuses } = gathered;
  // a rate limit (429) or a server error is never a length rejection, whatever its text says
  if ([...statuses].some((status) => status === 429 || status >= 500)) return undefined;
  if (texts.some((text) => NOT_OVERFLOW.some((pattern) => pattern.test(text)))) return undefined;
  const coded = [...codes].some((code) => OVERFLOW_CODES.has(code));
  if (!coded && !texts.some((text) => OVERFLOW_MESSAGES.some((pattern) => pattern.test(text)))) return undefined;
  const found = figures(texts);
  const message = texts.find((text) => OVERFLOW_MESSAGES.some((pattern) => pattern.test(text))) ?? texts[0] ?? '';
  return {
    providerTokens: gathered.promptTokens ?? found.tokens,
    providerLimit: gathered.contextSize ?? found.limit,
    providerOutputTokens: found.output,
    message: message.length > 300 ? `${message.slice(0, 297)}...` : message,
  };
}
