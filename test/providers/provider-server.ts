/**
 * A local fake of four LLM APIs (OpenAI Responses, OpenAI Chat Completions, Anthropic Messages, Gemini
 * generateContent) that the real provider packages talk to over HTTP on 127.0.0.1. It counts every request its own
 * way (a multiple of o200k), reports that count as the input tokens of its answer, and rejects a request over its
 * window with the provider's real error body (see error-bodies.json, where each was seen).
 *
 * Routes: POST /openai/v1/responses, /openai/v1/chat/completions, /anthropic/v1/messages (`?beta=true` too),
 * /google/v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse. Anything else is a 404.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { AnthropicPromptCache, type CacheUse } from './anthropic-cache.js';
import errorBodiesJson from './error-bodies.json' with { type: 'json' };

/** The wire APIs the server speaks. */
export type ProviderApi = 'openai-responses' | 'openai-chat' | 'anthropic' | 'google';

/** The families `baseURL()` serves: OpenAI's two APIs share one base URL. */
export type ProviderFamily = 'openai' | 'anthropic' | 'google';

/**
 * The client a base URL is for. They differ for Anthropic only: `@ai-sdk/anthropic` wants `.../v1` and posts to
 * `{baseURL}/messages`, the Anthropic SDK under `@langchain/anthropic` appends `/v1/messages` itself.
 */
export type ProviderClient = 'ai-sdk' | 'langchain';

/** One tool call of a reply: the tool's name and its arguments. */
export interface ToolCallReply {
  name: string;
  args: Record<string, unknown>;
}

/** What the fake model answers: a text, or one or more tool calls. */
export type Reply = { text: string } | { toolCalls: ToolCallReply[] };

/** A request the server received, as it understood it. */
export interface ProviderRequest {
  api: ProviderApi;
  model: string;
  stream: boolean;
  /** The server's count of the request: what it reports as input tokens and checks against the window. */
  inputTokens: number;
  /** `max_output_tokens`, `max_completion_tokens` or `max_tokens`, or `generationConfig.maxOutputTokens`, as sent. */
  maxTokens?: number;
  /** The values of the `anthropic-beta` header, in order (empty for the other APIs or without the header). */
  betas: string[];
  /** The window the request was checked against (a `context-1m` beta raises Anthropic's). */
  window: number;
  /**
   * Set when the request was over the window: the status and body answered. For a streamed Responses request
   * rejected in the stream (`responsesStreamRejection: 'event'`), the status is 200 and the body the `error` event.
   */
  rejected?: { status: number; body: unknown };
  /** The parsed JSON body. */
  body: unknown;
  /** What an Anthropic request within the window read from the server's prompt cache and wrote to it. */
  cache?: CacheUse;
}

/** How the server counts, limits and answers. Every field is optional. */
export interface ProviderServerConfig {
  /** The input limit of every API, in the server's tokens. Default 128000. */
  window?: number;
  /** Per-API windows, over `window`. */
  windows?: Partial<Record<ProviderApi, number>>;
  /** The server's count of a request is `ceil(ratio × o200k of its text)` plus 4 per message. Default 1. */
  ratio?: number;
  /**
   * Whether the requested output counts against the window (`input + maxTokens > window` is then rejected). One
   * value for every API, or per API. Default: true for Anthropic, false for the others. Anthropic and Chat
   * Completions then answer their message naming both figures; the Responses and Gemini bodies have no such variant.
   */
  countsOutput?: boolean | Partial<Record<ProviderApi, boolean>>;
  /** Whether an `anthropic-beta` value starting with `context-1m` raises Anthropic's window to 1,000,000. Default true. */
  longContextBeta?: boolean;
  /**
   * How a streamed Responses request over the window is rejected: `'event'` (the default, what OpenAI does as far as
   * stored reports show) answers 200 and streams `response.created`, `response.in_progress`, an `error` event and
   * `response.failed`; `'http'` answers 400 with the JSON body of a non-streamed request.
   */
  responsesStreamRejection?: 'http' | 'event';
  /** The answer to a request within the window. Default: the text `ok`. */
  reply?: (request: ProviderRequest) => Reply | Promise<Reply>;
  /** The server closes itself after this long (an unref'd timer). Default 120000. */
  lifetimeMs?: number;
  /** A larger request body is answered 413. Default 50 MB. */
  maxBodyBytes?: number;
}

/** A running fake provider server. */
export interface ProviderServer {
  /** The base URL to give a provider package, e.g. `http://127.0.0.1:PORT/openai/v1`. */
  baseURL(family: ProviderFamily, client?: ProviderClient): string;
  /** Every request received, in order. */
  readonly requests: ProviderRequest[];
  /** Stops the server and drops its connections. Safe to call twice. */
  close(): Promise<void>;
}

/** The window an Anthropic request gets with a `context-1m` beta. */
export const LONG_CONTEXT_WINDOW = 1_000_000;

/** The fixed count the server adds per message (and per system or instructions text). */
export const MESSAGE_OVERHEAD = 4;

const DEFAULT_WINDOW = 128_000;
const DEFAULT_LIFETIME_MS = 120_000;
const DEFAULT_MAX_BODY_BYTES = 50 * 1024 * 1024;
const CREATED_AT = 1_760_000_000;

/** An error body of error-bodies.json: the status, the body with `{placeholders}`, and where it was seen. */
export interface ErrorBodyFixture {
  status: number;
  body: unknown;
  seen: string;
}

/** The cases of error-bodies.json. */
export type ErrorBodyCase =
  | 'openai-responses'
  | 'openai-responses-stream-error-event'
  | 'openai-responses-stream-failed-event'
  | 'openai-chat'
  | 'openai-chat-with-completion'
  | 'anthropic-prompt-too-long'
  | 'anthropic-max-tokens'
  | 'google';

/** The real error bodies, with `{placeholders}` for their figures. */
export const errorBodies: Record<ErrorBodyCase, ErrorBodyFixture> = errorBodiesJson;

/**
 * One error body with its placeholders filled: a string that is one placeholder of a number becomes that number,
 * any other placeholder is replaced inside its string.
 */
export function fillErrorBody(errorCase: ErrorBodyCase, values: Record<string, string | number>): unknown {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const whole = /^\{(\w+)\}$/.exec(value)?.[1];
      if (whole !== undefined && typeof values[whole] === 'number') return values[whole];
      return value.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item)]));
    return value;
  };
  return fill(errorBodies[errorCase].body);
}

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The server's count of a request body: `ceil(ratio × o200k)` of its texts joined by newlines (message, system and
 * instructions texts, tool call arguments, tool results, and the tool definitions as JSON), plus 4 per message.
 */
export function countRequestTokens(api: ProviderApi, body: unknown, ratio = 1): number {
  const { texts, messages } = requestTexts(api, body);
  return Math.ceil(ratio * countTokens(texts.join('\n'), PLAIN_TEXT)) + MESSAGE_OVERHEAD * messages;
}

/** Starts a server on 127.0.0.1 on a free port. */
export async function startProviderServer(config: ProviderServerConfig = {}): Promise<ProviderServer> {
  const requests: ProviderRequest[] = [];
  const sockets = new Set<Socket>();
  let ids = 0;
  const nextId = () => (++ids).toString().padStart(6, '0');
  const anthropicCache = new AnthropicPromptCache();

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'server_error' } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    // nothing of the server keeps the test process alive: a pending request does, through the client's socket
    socket.unref();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = req.method === 'POST' ? routeOf(url) : undefined;
    if (!route) return sendJson(res, 404, { error: { message: `no route for ${req.method} ${url.pathname}` } });
    const raw = await readBody(req, config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    if (raw === undefined) {
      res.setHeader('connection', 'close');
      res.once('finish', () => req.destroy());
      return sendJson(res, 413, { error: { message: 'request body too large', type: 'request_too_large' } });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendJson(res, 400, { error: { message: 'invalid JSON body', type: 'invalid_request_error' } });
    }
    const request = describeRequest(route, body, req, config);
    requests.push(request);
    const id = nextId();
    if (isOverWindow(request, config)) return rejectRequest(res, request, id, config);
    if (request.api === 'anthropic') request.cache = anthropicCache.use(body, request.inputTokens);
    const reply = await (config.reply?.(request) ?? { text: 'ok' });
    answer(res, request, reply, id);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      clearTimeout(lifetime);
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
    return closing;
  };
  const lifetime = setTimeout(close, config.lifetimeMs ?? DEFAULT_LIFETIME_MS);
  lifetime.unref();

  const origin = `http://127.0.0.1:${port}`;
  return {
    baseURL(family, client = 'ai-sdk') {
      if (family === 'openai') return `${origin}/openai/v1`;
      if (family === 'google') return `${origin}/google/v1beta`;
      return client === 'langchain' ? `${origin}/anthropic` : `${origin}/anthropic/v1`;
    },
    requests,
    close,
  };
}

interface Route {
  api: ProviderApi;
  /** From the path (Gemini), else from the body. */
  model?: string;
  /** From the path (Gemini), else from the body. */
  stream?: boolean;
}

function routeOf(url: URL): Route | undefined {
  const path = url.pathname;
  if (path === '/openai/v1/responses') return { api: 'openai-responses' };
  if (path === '/openai/v1/chat/completions') return { api: 'openai-chat' };
  if (path === '/anthropic/v1/messages') return { api: 'anthropic' };
  const gemini = /^\/google\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (!gemini?.[1]) return undefined;
  const stream = gemini[2] === 'streamGenerateContent';
  // only the SSE form of streamGenerateContent is served, the one @ai-sdk/google asks for
  if (stream && url.searchParams.get('alt') !== 'sse') return undefined;
  return { api: 'google', model: decodeURIComponent(gemini[1]), stream };
}

/** Reads the body, or answers undefined once it passes `limit` bytes (and stops reading). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function describeRequest(
  route: Route,
  body: unknown,
  req: IncomingMessage,
  config: ProviderServerConfig,
): ProviderRequest {
  const fields = isRecord(body) ? body : {};
  const betas =
    route.api === 'anthropic'
      ? String(req.headers['anthropic-beta'] ?? '')
          .split(',')
          .map((beta) => beta.trim())
          .filter((beta) => beta !== '')
      : [];
  const longContext =
    route.api === 'anthropic' &&
    config.longContextBeta !== false &&
    betas.some((beta) => beta.startsWith('context-1m'));
  const maxTokens = maxTokensOf(route.api, fields);
  return {
    api: route.api,
    model: route.model ?? String(fields.model ?? ''),
    stream: route.stream ?? fields.stream === true,
    inputTokens: countRequestTokens(route.api, body, config.ratio ?? 1),
    ...(maxTokens !== undefined && { maxTokens }),
    betas,
    window: longContext ? LONG_CONTEXT_WINDOW : (config.windows?.[route.api] ?? config.window ?? DEFAULT_WINDOW),
    body,
  };
}

function maxTokensOf(api: ProviderApi, body: Record<string, unknown>): number | undefined {
  const value =
    api === 'openai-responses'
      ? body.max_output_tokens
      : api === 'openai-chat'
        ? (body.max_completion_tokens ?? body.max_tokens)
        : api === 'anthropic'
          ? body.max_tokens
          : isRecord(body.generationConfig)
            ? body.generationConfig.maxOutputTokens
            : undefined;
  return typeof value === 'number' ? value : undefined;
}

function countsOutput(api: ProviderApi, config: ProviderServerConfig): boolean {
  const setting = config.countsOutput;
  if (typeof setting === 'boolean') return setting;
  return setting?.[api] ?? api === 'anthropic';
}

function isOverWindow(request: ProviderRequest, config: ProviderServerConfig): boolean {
  if (request.inputTokens > request.window) return true;
  return (
    countsOutput(request.api, config) &&
    request.maxTokens !== undefined &&
    request.inputTokens + request.maxTokens > request.window
  );
}

// ---------------------------------------------------------------------------------------------------------------
// What a request says: its texts and its message count.

interface RequestTexts {
  texts: string[];
  messages: number;
}

function requestTexts(api: ProviderApi, body: unknown): RequestTexts {
  const out: RequestTexts = { texts: [], messages: 0 };
  if (!isRecord(body)) return out;
  if (api === 'openai-responses') responsesTexts(body, out);
  else if (api === 'openai-chat') chatTexts(body, out);
  else if (api === 'anthropic') anthropicTexts(body, out);
  else googleTexts(body, out);
  const tools = body.tools;
  if (Array.isArray(tools) && tools.length > 0) out.texts.push(JSON.stringify(tools));
  return out;
}

/** The `text` of each part of a content array (or the content itself when it is a string). */
function partTexts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => (isRecord(part) && typeof part.text === 'string' ? [part.text] : []));
}

function responsesTexts(body: Record<string, unknown>, out: RequestTexts): void {
  if (typeof body.instructions === 'string') {
    out.texts.push(body.instructions);
    out.messages++;
  }
  const input = body.input;
  if (typeof input === 'string') {
    out.texts.push(input);
    out.messages++;
    return;
  }
  if (!Array.isArray(input)) return;
  for (const item of input) {
    if (!isRecord(item)) continue;
    if (item.type === 'function_call') out.texts.push(String(item.arguments ?? ''));
    else if (item.type === 'function_call_output') out.texts.push(...partTexts(item.output));
    else if (typeof item.role === 'string') out.texts.push(...partTexts(item.content));
    else continue;
    out.messages++;
  }
}

function chatTexts(body: Record<string, unknown>, out: RequestTexts): void {
  if (!Array.isArray(body.messages)) return;
  for (const message of body.messages) {
    if (!isRecord(message)) continue;
    out.messages++;
    out.texts.push(...partTexts(message.content));
    if (!Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls) {
      if (isRecord(call) && isRecord(call.function)) out.texts.push(String(call.function.arguments ?? ''));
    }
  }
}

function anthropicTexts(body: Record<string, unknown>, out: RequestTexts): void {
  const system = partTexts(body.system);
  if (system.length > 0) {
    out.texts.push(...system);
    out.messages++;
  }
  if (!Array.isArray(body.messages)) return;
  for (const message of body.messages) {
    if (!isRecord(message)) continue;
    out.messages++;
    if (typeof message.content === 'string') {
      out.texts.push(message.content);
      continue;
    }
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isRecord(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') out.texts.push(block.text);
      else if (block.type === 'tool_use') out.texts.push(JSON.stringify(block.input ?? {}));
      else if (block.type === 'tool_result') out.texts.push(...partTexts(block.content));
    }
  }
}

function googleTexts(body: Record<string, unknown>, out: RequestTexts): void {
  if (isRecord(body.systemInstruction)) {
    out.texts.push(...partTexts(body.systemInstruction.parts));
    out.messages++;
  }
  if (!Array.isArray(body.contents)) return;
  for (const content of body.contents) {
    if (!isRecord(content) || !Array.isArray(content.parts)) continue;
    out.messages++;
    for (const part of content.parts) {
      if (!isRecord(part)) continue;
      if (typeof part.text === 'string') out.texts.push(part.text);
      else if (isRecord(part.functionCall)) out.texts.push(JSON.stringify(part.functionCall.args ?? {}));
      else if (isRecord(part.functionResponse)) out.texts.push(JSON.stringify(part.functionResponse.response ?? {}));
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Rejections.

function rejectRequest(res: ServerResponse, request: ProviderRequest, id: string, config: ProviderServerConfig): void {
  const figures = {
    input: request.inputTokens,
    window: request.window,
    maxTokens: request.maxTokens ?? 0,
    total: request.inputTokens + (request.maxTokens ?? 0),
    requestId: `req_${id}`,
  };
  if (request.api === 'openai-responses' && request.stream && config.responsesStreamRejection !== 'http') {
    rejectInResponsesStream(res, request, id);
    return;
  }
  const errorCase: ErrorBodyCase =
    request.api === 'openai-responses'
      ? 'openai-responses'
      : request.api === 'openai-chat'
        ? countsOutput('openai-chat', config) && request.maxTokens !== undefined
          ? 'openai-chat-with-completion'
          : 'openai-chat'
        : request.api === 'anthropic'
          ? request.inputTokens > request.window
            ? 'anthropic-prompt-too-long'
            : 'anthropic-max-tokens'
          : 'google';
  const { status } = errorBodies[errorCase];
  const body = fillErrorBody(errorCase, figures);
  request.rejected = { status, body };
  setRequestIdHeader(res, request.api, id);
  sendJson(res, status, body);
}

/** 200, then `response.created`, `response.in_progress`, an `error` event and `response.failed`, as OpenAI streams it. */
function rejectInResponsesStream(res: ServerResponse, request: ProviderRequest, id: string): void {
  const base = responsesObject(request, `resp_${id}`, 'in_progress', [], null);
  const errorEvent = fillErrorBody('openai-responses-stream-error-event', { sequence: 2 });
  const failed = fillErrorBody('openai-responses-stream-failed-event', { sequence: 3 }) as {
    response: Record<string, unknown>;
  };
  request.rejected = { status: 200, body: errorEvent };
  startSse(res, request.api, id);
  writeEvent(res, 'response.created', { type: 'response.created', sequence_number: 0, response: base });
  writeEvent(res, 'response.in_progress', { type: 'response.in_progress', sequence_number: 1, response: base });
  writeEvent(res, 'error', errorEvent);
  writeEvent(res, 'response.failed', { ...failed, response: { ...base, ...failed.response } });
  res.end();
}

// ---------------------------------------------------------------------------------------------------------------
// Answers.

function answer(res: ServerResponse, request: ProviderRequest, reply: Reply, id: string): void {
  const output = outputTokens(reply);
  if (request.api === 'openai-responses') {
    if (request.stream) streamResponses(res, request, reply, id, output);
    else {
      const body = responsesObject(request, `resp_${id}`, 'completed', responsesOutput(reply, id), output);
      sendJson(res, 200, body, requestIdHeader(request.api, id));
    }
  } else if (request.api === 'openai-chat') {
    if (request.stream) streamChat(res, request, reply, id, output);
    else sendJson(res, 200, chatCompletion(request, reply, id, output), requestIdHeader(request.api, id));
  } else if (request.api === 'anthropic') {
    if (request.stream) streamAnthropic(res, request, reply, id, output);
    else sendJson(res, 200, anthropicMessage(request, reply, id, output), requestIdHeader(request.api, id));
  } else if (request.stream) streamGoogle(res, request, reply, id, output);
  else sendJson(res, 200, googleResponse(request, googleParts(reply), id, output, true));
}

function outputTokens(reply: Reply): number {
  const text = 'text' in reply ? reply.text : JSON.stringify(reply.toolCalls.map((call) => call.args));
  return Math.max(1, countTokens(text, PLAIN_TEXT));
}

/** A text in two or three pieces, so that a client has deltas to join. */
function pieces(text: string): string[] {
  if (text.length < 2) return [text];
  const cut = Math.ceil(text.length / 3);
  return [text.slice(0, cut), text.slice(cut, 2 * cut), text.slice(2 * cut)].filter((piece) => piece !== '');
}

// OpenAI Responses ------------------------------------------------------------------------------------------------

function responsesUsage(request: ProviderRequest, output: number) {
  return {
    input_tokens: request.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: request.inputTokens + output,
  };
}

function responsesObject(
  request: ProviderRequest,
  responseId: string,
  status: 'in_progress' | 'completed',
  output: unknown[],
  outputCount: number | null,
) {
  const body = isRecord(request.body) ? request.body : {};
  return {
    id: responseId,
    object: 'response',
    created_at: CREATED_AT,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: request.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: body.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: outputCount === null ? null : responsesUsage(request, outputCount),
    user: null,
    metadata: {},
  };
}

function responsesTextPart(text: string) {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

function responsesOutput(reply: Reply, id: string): unknown[] {
  if ('text' in reply) {
    return [
      {
        id: `msg_${id}`,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [responsesTextPart(reply.text)],
      },
    ];
  }
  return reply.toolCalls.map((call, index) => ({
    id: `fc_${id}_${index}`,
    type: 'function_call',
    status: 'completed',
    arguments: JSON.stringify(call.args),
    call_id: `call_${id}_${index}`,
    name: call.name,
  }));
}

function streamResponses(res: ServerResponse, request: ProviderRequest, reply: Reply, id: string, output: number) {
  let sequence = 0;
  const send = (type: string, fields: Record<string, unknown>) =>
    writeEvent(res, type, { type, sequence_number: sequence++, ...fields });
  const inProgress = responsesObject(request, `resp_${id}`, 'in_progress', [], null);
  const items = responsesOutput(reply, id) as Record<string, unknown>[];
  startSse(res, request.api, id);
  send('response.created', { response: inProgress });
  send('response.in_progress', { response: inProgress });
  items.forEach((item, outputIndex) => {
    const itemId = String(item.id);
    if (item.type === 'message' && 'text' in reply) {
      send('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', content: [] },
      });
      const part = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      send('response.content_part.added', { ...part, part: responsesTextPart('') });
      for (const delta of pieces(reply.text)) send('response.output_text.delta', { ...part, delta, logprobs: [] });
      send('response.output_text.done', { ...part, text: reply.text, logprobs: [] });
      send('response.content_part.done', { ...part, part: responsesTextPart(reply.text) });
    } else {
      const args = String(item.arguments);
      send('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      for (const delta of pieces(args)) {
        send('response.function_call_arguments.delta', { item_id: itemId, output_index: outputIndex, delta });
      }
      send('response.function_call_arguments.done', { item_id: itemId, output_index: outputIndex, arguments: args });
    }
    send('response.output_item.done', { output_index: outputIndex, item });
  });
  send('response.completed', { response: responsesObject(request, `resp_${id}`, 'completed', items, output) });
  res.end();
}

// OpenAI Chat Completions -----------------------------------------------------------------------------------------

function chatUsage(request: ProviderRequest, output: number) {
  return {
    prompt_tokens: request.inputTokens,
    completion_tokens: output,
    total_tokens: request.inputTokens + output,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function chatToolCalls(reply: Reply, id: string) {
  if ('text' in reply) return [];
  return reply.toolCalls.map((call, index) => ({
    id: `call_${id}_${index}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
}

function chatCompletion(request: ProviderRequest, reply: Reply, id: string, output: number) {
  const toolCalls = chatToolCalls(reply, id);
  return {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: CREATED_AT,
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'text' in reply ? reply.text : null,
          refusal: null,
          annotations: [],
          ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: chatUsage(request, output),
    service_tier: 'default',
    system_fingerprint: null,
  };
}

/** Chunks as OpenAI streams them; the usage chunk (empty `choices`) only when `stream_options.include_usage` asks. */
function streamChat(res: ServerResponse, request: ProviderRequest, reply: Reply, id: string, output: number) {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: `chatcmpl-${id}`,
    object: 'chat.completion.chunk',
    created: CREATED_AT,
    model: request.model,
    service_tier: 'default',
    system_fingerprint: null,
    choices,
    ...extra,
  });
  const choice = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finishReason,
  });
  startSse(res, request.api, id);
  const toolCalls = chatToolCalls(reply, id);
  if ('text' in reply) {
    writeData(res, chunk([choice({ role: 'assistant', content: '', refusal: null })]));
    for (const content of pieces(reply.text)) writeData(res, chunk([choice({ content })]));
    writeData(res, chunk([choice({}, 'stop')]));
  } else {
    writeData(res, chunk([choice({ role: 'assistant', content: null, refusal: null })]));
    toolCalls.forEach((call, index) => {
      const start = { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } };
      writeData(res, chunk([choice({ tool_calls: [start] })]));
      for (const args of pieces(call.function.arguments)) {
        writeData(res, chunk([choice({ tool_calls: [{ index, function: { arguments: args } }] })]));
      }
    });
    writeData(res, chunk([choice({}, 'tool_calls')]));
  }
  const body = isRecord(request.body) ? request.body : {};
  if (isRecord(body.stream_options) && body.stream_options.include_usage === true) {
    writeData(res, chunk([], { usage: chatUsage(request, output) }));
  }
  res.write('data: [DONE]\n\n');
  res.end();
}

// Anthropic Messages ------------------------------------------------------------------------------------------------

type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function anthropicContent(reply: Reply, id: string): AnthropicBlock[] {
  if ('text' in reply) return [{ type: 'text', text: reply.text }];
  return reply.toolCalls.map((call, index) => ({
    type: 'tool_use',
    id: `toolu_${id}_${index}`,
    name: call.name,
    input: call.args,
  }));
}

function anthropicMessage(request: ProviderRequest, reply: Reply, id: string, output: number) {
  return {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: anthropicContent(reply, id),
    stop_reason: 'text' in reply ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    // Anthropic's input_tokens leaves out what the cache read and wrote
    usage: {
      input_tokens: request.inputTokens - (request.cache?.read ?? 0) - (request.cache?.write ?? 0),
      cache_creation_input_tokens: request.cache?.write ?? 0,
      cache_read_input_tokens: request.cache?.read ?? 0,
      output_tokens: output,
      service_tier: 'standard',
    },
  };
}

function streamAnthropic(res: ServerResponse, request: ProviderRequest, reply: Reply, id: string, output: number) {
  const send = (type: string, fields: Record<string, unknown> = {}) => writeEvent(res, type, { type, ...fields });
  const message = anthropicMessage(request, reply, id, output);
  startSse(res, request.api, id);
  send('message_start', {
    message: {
      ...message,
      content: [],
      stop_reason: null,
      usage: { ...message.usage, output_tokens: 1 },
    },
  });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      if (index === 0) send('ping');
      for (const text of pieces(block.text)) {
        send('content_block_delta', { index, delta: { type: 'text_delta', text } });
      }
    } else {
      send('content_block_start', { index, content_block: { ...block, input: {} } });
      const json = JSON.stringify(block.input);
      for (const partialJson of ['', ...pieces(json)]) {
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partialJson } });
      }
    }
    send('content_block_stop', { index });
  });
  send('message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: output },
  });
  send('message_stop');
  res.end();
}

// Gemini ------------------------------------------------------------------------------------------------------------

function googleParts(reply: Reply): Record<string, unknown>[] {
  if ('text' in reply) return [{ text: reply.text }];
  return reply.toolCalls.map((call) => ({ functionCall: { name: call.name, args: call.args } }));
}

function googleResponse(request: ProviderRequest, parts: unknown[], id: string, output: number, last: boolean) {
  return {
    candidates: [
      {
        content: { parts, role: 'model' },
        ...(last && { finishReason: 'STOP' }),
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: request.inputTokens,
      candidatesTokenCount: output,
      totalTokenCount: request.inputTokens + output,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: request.inputTokens }],
    },
    modelVersion: request.model,
    responseId: `gemini_${id}`,
  };
}

/** `alt=sse` chunks: the text in pieces (a function call whole, as Gemini sends it), the last with `finishReason`. */
function streamGoogle(res: ServerResponse, request: ProviderRequest, reply: Reply, id: string, output: number) {
  startSse(res, request.api, id);
  const chunks = 'text' in reply ? pieces(reply.text).map((text) => [{ text }]) : [googleParts(reply)];
  chunks.forEach((parts, index) => {
    const last = index === chunks.length - 1;
    const body = googleResponse(request, parts, id, last ? output : 0, last);
    res.write(`data: ${JSON.stringify(body)}\r\n\r\n`);
  });
  res.end();
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP helpers.

function requestIdHeader(api: ProviderApi, id: string): Record<string, string> {
  if (api === 'anthropic') return { 'request-id': `req_${id}` };
  if (api === 'google') return {};
  return { 'x-request-id': `req_${id}` };
}

function setRequestIdHeader(res: ServerResponse, api: ProviderApi, id: string): void {
  for (const [name, value] of Object.entries(requestIdHeader(api, id))) res.setHeader(name, value);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function startSse(res: ServerResponse, api: ProviderApi, id: string): void {
  res.writeHead(200, {
    ...requestIdHeader(api, id),
    'content-type': api === 'google' ? 'text/event-stream' : 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
}

function writeEvent(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function writeData(res: ServerResponse, data: unknown): void {
  res.write(`data: ${JSON.stringify(data)}\n\n`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
