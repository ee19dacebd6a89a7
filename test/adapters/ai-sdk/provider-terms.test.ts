import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  anthropicDefaultMaxTokens,
  callContextWindow,
  callOutputTokens,
} from '../../../adapters/ai-sdk/provider-terms.js';

/** What the AI SDK adapter reads of a call's terms: the output it asks for, the window its beta flags open. */

const model = (provider: string, modelId: string) => new MockLanguageModelV4({ provider, modelId });
const call = (fields: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions => ({
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  ...fields,
});

describe('callOutputTokens', () => {
  it("is @ai-sdk/anthropic's default max_tokens when the call gives none", () => {
    expect(callOutputTokens(call(), model('anthropic.messages', 'claude-sonnet-4-5'))).toBe(64_000);
    expect(callOutputTokens(call(), model('anthropic.messages', 'claude-opus-4-1'))).toBe(32_000);
    expect(callOutputTokens(call(), model('vertex.anthropic.messages', 'claude-sonnet-4-6'))).toBe(128_000);
    // a Claude model the package does not list: its newest default, not capped
    expect(anthropicDefaultMaxTokens('claude-mythos-1')).toEqual({ tokens: 128_000, known: false });
    expect(anthropicDefaultMaxTokens('claude-3-5-sonnet-20241022')).toEqual({ tokens: 4_096, known: false });
  });

  it("adds the thinking budget, capped at a known model's maximum, as the package sends it", () => {
    const thinking = (budgetTokens?: number) => ({
      providerOptions: { anthropic: { thinking: { type: 'enabled', ...(budgetTokens && { budgetTokens }) } } },
    });
    const sonnet = model('anthropic.messages', 'claude-sonnet-4-5');
    expect(callOutputTokens(call({ maxOutputTokens: 1_000, ...thinking(2_000) }), sonnet)).toBe(3_000);
    expect(callOutputTokens(call({ maxOutputTokens: 1_000, ...thinking() }), sonnet)).toBe(2_024);
    expect(callOutputTokens(call(thinking(10_000)), sonnet)).toBe(64_000);
  });

  it("is the call's own maxOutputTokens for a model whose window holds its output", () => {
    expect(callOutputTokens(call({ maxOutputTokens: 16_000 }), model('openai.chat', 'gpt-4o'))).toBe(16_000);
    expect(callOutputTokens(call(), model('openai.responses', 'gpt-4o'))).toBeUndefined();
    // Claude on Bedrock: not Anthropic's package, so not its default
    expect(callOutputTokens(call(), model('amazon-bedrock', 'anthropic.claude-sonnet-4-5'))).toBeUndefined();
  });

  it('is nothing for a window that is input alone (GPT-5, Gemini)', () => {
    expect(callOutputTokens(call({ maxOutputTokens: 64_000 }), model('openai.responses', 'gpt-5'))).toBeUndefined();
    expect(
      callOutputTokens(call({ maxOutputTokens: 65_536 }), model('google.generative-ai', 'gemini-2.5-pro')),
    ).toBeUndefined();
  });
});

describe('callContextWindow', () => {
  const sonnet = model('anthropic.messages', 'claude-sonnet-4-5');

  it("opens Claude's 1M window only with the context-1m flag, in a header or the provider options", () => {
    expect(callContextWindow(call(), sonnet)).toBeUndefined();
    expect(
      callContextWindow(call({ headers: { 'Anthropic-Beta': 'files-api-2025-04-14, context-1m-2025-08-07' } }), sonnet),
    ).toBe(1_000_000);
    expect(
      callContextWindow(call({ providerOptions: { anthropic: { anthropicBeta: ['context-1m-2025-08-07'] } } }), sonnet),
    ).toBe(1_000_000);
  });

  it('leaves a model without the long window, or another provider, to the table', () => {
    const flagged = call({ headers: { 'anthropic-beta': 'context-1m-2025-08-07' } });
    expect(callContextWindow(flagged, model('anthropic.messages', 'claude-opus-4-1'))).toBeUndefined();
    expect(callContextWindow(flagged, model('openai.chat', 'gpt-4o'))).toBeUndefined();
  });
});
