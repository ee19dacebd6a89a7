/**
 * The call's report reaches the AI SDK's OpenTelemetry integration (`@ai-sdk/otel`) as it is: the model call's
 * span carries `providerMetadata['context-compression']` in `ai.response.providerMetadata` when the integration is
 * asked to record provider metadata.
 */
import { OpenTelemetry } from '@ai-sdk/otel';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { approximateCounter, withContextCompression } from '../../../adapters/ai-sdk/index.js';
import { echoModel, orderChat } from '../../helpers/mock-model.js';

const options = { contextWindow: 4_000, reserveOutputTokens: 500, tokenCounter: approximateCounter() };

const chat = orderChat;

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const telemetry = new OpenTelemetry({ tracer: provider.getTracer('test'), providerMetadata: true });
  /** The reports recorded on the spans, by span name. */
  const reports = () =>
    exporter.getFinishedSpans().flatMap((span) => {
      const metadata = span.attributes['ai.response.providerMetadata'];
      if (typeof metadata !== 'string') return [];
      const report = (JSON.parse(metadata) as Record<string, unknown>)['context-compression'];
      return report ? [{ span: span.name, report: report as Record<string, unknown> }] : [];
    });
  return { telemetry, reports };
}

describe('the report on OpenTelemetry spans (the AI SDK telemetry integration)', () => {
  it('is on the model call span of a generateText call that folded', async () => {
    const { telemetry, reports } = tracing();
    const result = await generateText({
      model: withContextCompression(echoModel(), options),
      messages: chat(31),
      telemetry: { integrations: [telemetry] },
    });
    const recorded = reports();
    expect(recorded.length).toBeGreaterThan(0);
    const expected = JSON.parse(JSON.stringify(result.providerMetadata?.['context-compression']));
    for (const { report } of recorded) expect(report).toEqual(expected);
    // the model call's span (`chat {model}`), the step's and the whole call's
    expect(recorded.map(({ span }) => span)).toEqual(['chat mock-model', 'step 1', 'invoke_agent mock-model']);
    expect(expected).toMatchObject({ stateInPrompt: true, change: { trigger: 'budget' } });
  });

  it('is on the spans of a streamText call', async () => {
    const { telemetry, reports } = tracing();
    const result = streamText({
      model: withContextCompression(echoModel(), options),
      messages: chat(31),
      telemetry: { integrations: [telemetry] },
    });
    await result.consumeStream();
    const metadata = await result.providerMetadata;
    const recorded = reports();
    expect(recorded.map(({ span }) => span)).toContain('chat mock-model');
    for (const { report } of recorded)
      expect(report).toEqual(JSON.parse(JSON.stringify(metadata?.['context-compression'])));
  });
});
