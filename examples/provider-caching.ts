/**
 * Provider-aware caching: the same long chat compressed for Anthropic (cache breakpoints placed at the end of the
 * system prompt, of the session-state pair and of the prompt) and for Gemini (one system instruction; counts
 * calibrated from the usage it reports). With ANTHROPIC_API_KEY / GOOGLE_GENERATIVE_AI_API_KEY set, the real APIs
 * answer and report their cache reads; without, each provider package runs against a stand-in `fetch` that prints
 * where the breakpoints are in the request body it would send.
 *
 *   npx tsx examples/provider-caching.ts
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { generateText, type ModelMessage } from 'ai';
import { withContextCompression } from 'context-compression/ai-sdk';

/** A stand-in for the provider's HTTP API: records the request body, answers with the given JSON. */
function standIn(answer: (body: Record<string, unknown>) => unknown) {
  const bodies: Array<Record<string, unknown>> = [];
  const fetch = async (_url: unknown, init?: { body?: unknown }) => {
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    bodies.push(body);
    return new Response(JSON.stringify(answer(body)), { headers: { 'content-type': 'application/json' } });
  };
  return { bodies, fetch: fetch as unknown as typeof globalThis.fetch };
}

const chat: ModelMessage[] = Array.from({ length: 40 }, (_, turn): ModelMessage[] => [
  {
    role: 'user',
    content: `Turn ${turn}: the deploy of service-${turn} failed. ${'The logs show a slow start. '.repeat(15)}`,
  },
  { role: 'assistant', content: `Service-${turn}: the health check timed out. ${'Raise its timeout. '.repeat(15)}` },
])
  .flat()
  .slice(0, -1);
const system = 'You are a deployment assistant.';

// Anthropic: breakpoints where the prompt stays the same from call to call
{
  const offline = standIn(() => ({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Raise the health-check timeout.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 8 },
  }));
  const anthropic = process.env.ANTHROPIC_API_KEY
    ? createAnthropic()
    : createAnthropic({ apiKey: 'offline', fetch: offline.fetch });
  const model = withContextCompression(anthropic('claude-sonnet-4-5'), { contextWindow: 8_000 });
  const result = await generateText({ model, system, messages: chat });
  console.log(`anthropic: ${result.text}`);
  if (result.providerMetadata?.anthropic)
    console.log(`  usage: ${JSON.stringify(result.providerMetadata.anthropic.usage)}`);
  const body = offline.bodies[0];
  if (body) {
    const where: string[] = [];
    for (const [index, block] of (body.system as Array<Record<string, unknown>>).entries()) {
      if (block.cache_control) where.push(`system block ${index} (the end of the system prompt and awareness block)`);
    }
    const messages = body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    for (const [index, message] of messages.entries()) {
      if (!message.content.some((block) => block.cache_control)) continue;
      const what =
        index === 1
          ? 'the end of the session-state pair'
          : index === messages.length - 1
            ? 'the end of the prompt'
            : 'yours';
      where.push(`message ${index} of ${messages.length} (${what})`);
    }
    console.log(`  cache breakpoints in the request: ${where.join('; ')}`);
  }
}

// Gemini: one system instruction; its reported prompt tokens calibrate the counts
{
  const offline = standIn((body) => ({
    candidates: [
      { content: { role: 'model', parts: [{ text: 'Raise the health-check timeout.' }] }, finishReason: 'STOP' },
    ],
    usageMetadata: { promptTokenCount: Math.round(JSON.stringify(body).length / 3.5), candidatesTokenCount: 8 },
  }));
  const google = process.env.GOOGLE_GENERATIVE_AI_API_KEY
    ? createGoogleGenerativeAI()
    : createGoogleGenerativeAI({ apiKey: 'offline', fetch: offline.fetch });
  const model = withContextCompression(google('gemini-2.5-flash'), { contextWindow: 8_000 });
  const result = await generateText({ model, system, messages: chat });
  console.log(`gemini: ${result.text} (${result.usage.inputTokens} input tokens reported)`);
  const body = offline.bodies[0] as { systemInstruction?: { parts: Array<{ text: string }> } } | undefined;
  if (body) {
    const parts = body.systemInstruction?.parts ?? [];
    console.log(
      `  system instruction: ${parts.length} parts, ${parts.map((part) => part.text.length).join(' + ')} characters`,
    );
  }
}
