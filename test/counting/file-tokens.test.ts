import { describe, expect, it } from 'vitest';
import {
  DEFAULT_AUDIO_TOKENS,
  DEFAULT_FILE_TOKENS,
  DEFAULT_PDF_PAGES,
  DEFAULT_VIDEO_TOKENS,
  fileTokens,
  PDF_PAGE_TOKENS,
} from '../../src/counting/file-tokens.js';
import { anthropicImageTokens, geminiImageTokens, imageTokens } from '../../src/counting/image-tokens.js';
import { openAIImageRule, openAIImageTokens } from '../../src/counting/openai-image-tokens.js';
import { type FileCounting, fileCountingKey, providerFamily } from '../../src/counting/provider-family.js';
import { base64, jpeg, pdf, png } from '../helpers/images.js';

const size = (width: number, height: number) => ({ width, height });
const CLAUDE: FileCounting = { family: 'anthropic', modelId: 'claude-sonnet-4-5' };
const GPT_4O: FileCounting = { family: 'openai', modelId: 'gpt-4o' };
const GEMINI: FileCounting = { family: 'google', modelId: 'gemini-2.5-flash' };

describe("the providers' image rules, on their documented examples", () => {
  it.each([
    // Anthropic's vision guide: 1000x1000 is ~1,334 tokens; 1092x1092 (~1.19 MP) ~1,590; larger images scale down
    [size(1000, 1000), 1334],
    [size(200, 200), 54],
    [size(1092, 1092), 1590],
    [size(1568, 1568), 1600],
    [size(3000, 1000), 1093],
    [size(8000, 8000), 1600],
  ])('Claude: %o is %i tokens', (pixels, tokens) => {
    expect(anthropicImageTokens(pixels)).toBe(tokens);
  });

  it.each([
    // OpenAI's guide: 1024x1024 high is 765, 2048x4096 high is 1,105, any size at low detail 85
    ['gpt-4o', size(1024, 1024), 'high', 765],
    ['gpt-4o', size(2048, 4096), 'high', 1105],
    ['gpt-4o', size(2048, 4096), 'auto', 1105],
    ['gpt-4o', size(4096, 8192), 'low', 85],
    ['gpt-4o', size(512, 512), undefined, 255],
    ['gpt-4o', size(1568, 1568), 'high', 765],
    ['gpt-4.1', size(1024, 1024), 'high', 765],
    ['gpt-4o-mini', size(1024, 1024), 'high', 2833 + 4 * 5667],
    ['gpt-4o-mini-2024-07-18', size(64, 64), 'low', 2833],
    ['gpt-5', size(1024, 1024), 'high', 70 + 4 * 140],
    ['o3', size(1024, 1024), 'high', 75 + 4 * 150],
    // patch models: 1024x1024 is 1,024 patches; 1800x2400 scales down to 1,452 patches; times the multiplier
    ['gpt-4.1-mini', size(1024, 1024), undefined, Math.ceil(1024 * 1.62)],
    ['gpt-4.1-mini', size(1800, 2400), undefined, Math.ceil(1452 * 1.62)],
    ['gpt-4.1-nano', size(1800, 2400), undefined, Math.ceil(1452 * 2.46)],
    ['openai/o4-mini', size(1800, 2400), 'low', Math.ceil(1452 * 1.72)],
    ['gpt-5-mini', size(4000, 4000), undefined, Math.ceil(1521 * 1.62)],
  ])('OpenAI %s: %o at %s detail is %i tokens', (model, pixels, detail, tokens) => {
    expect(openAIImageTokens(openAIImageRule(model), pixels, detail)).toBe(tokens);
  });

  it.each([
    // Gemini's token guide: both sides at most 384 px is 258; larger ones are 768x768 tiles of 258 each
    [size(384, 384), 258],
    [size(385, 100), 258],
    [size(768, 1536), 516],
    [size(1568, 1568), 9 * 258],
  ])('Gemini: %o is %i tokens', (pixels, tokens) => {
    expect(geminiImageTokens(pixels)).toBe(tokens);
  });

  it('an unknown provider counts the largest of the three; an unknown size is counted as 2048x2048', () => {
    const unknown: FileCounting = { family: 'unknown' };
    expect(imageTokens({ ...size(1000, 1000), format: 'png' }, unknown)).toBe(1334);
    expect(imageTokens({ ...size(1568, 1568), format: 'png' }, unknown)).toBe(2322);
    expect(imageTokens(undefined, CLAUDE)).toBe(1600);
    expect(imageTokens(undefined, GPT_4O)).toBe(765);
    expect(imageTokens(undefined, GEMINI)).toBe(9 * 258);
    expect(imageTokens(undefined, unknown)).toBe(9 * 258);
  });
});

describe('fileTokens', () => {
  const image = png(1000, 1000);

  it('reads the image in any form and counts it for the provider', () => {
    for (const data of [image, base64(image), `data:image/png;base64,${base64(image)}`]) {
      expect(fileTokens({ mediaType: 'image/png', data }, CLAUDE)).toBe(1334);
      expect(fileTokens({ mediaType: 'image/png', data }, GPT_4O)).toBe(765);
      expect(fileTokens({ mediaType: 'image/png', data, detail: 'low' }, GPT_4O)).toBe(85);
      expect(fileTokens({ mediaType: 'image/png', data }, GEMINI)).toBe(4 * 258);
    }
    // a generic or wrong media type: the bytes tell
    expect(fileTokens({ mediaType: 'application/octet-stream', data: jpeg(1000, 1000) }, CLAUDE)).toBe(1334);
    expect(fileTokens({ mediaType: 'image/*', data: 'https://example.com/cat.png' }, CLAUDE)).toBe(1600);
  });

  it('counts a PDF by its pages: read, else estimated from its size, else DEFAULT_PDF_PAGES', () => {
    const report = pdf(3);
    expect(fileTokens({ mediaType: 'application/pdf', data: report }, CLAUDE)).toBe(3 * PDF_PAGE_TOKENS.anthropic);
    expect(fileTokens({ mediaType: 'application/pdf', data: base64(report) }, GPT_4O)).toBe(3 * 1600);
    expect(fileTokens({ mediaType: 'file', data: `data:application/pdf;base64,${base64(report)}` }, GEMINI)).toBe(
      3 * 258,
    );
    expect(fileTokens({ mediaType: 'application/pdf', data: 'https://example.com/a.pdf' }, CLAUDE)).toBe(
      DEFAULT_PDF_PAGES * 3_000,
    );
    const compressed = new Uint8Array(400_000);
    compressed.set(new TextEncoder().encode('%PDF-1.7\n'));
    expect(fileTokens({ mediaType: 'application/pdf', data: compressed }, GEMINI)).toBe(8 * 258);
    expect(fileTokens({ mediaType: 'application/pdf', data: report })).toBe(3 * 3_000);
  });

  it('counts audio, video, text and other files by the stated defaults', () => {
    expect(fileTokens({ mediaType: 'audio/wav', data: new Uint8Array(10) }, GEMINI)).toBe(DEFAULT_AUDIO_TOKENS);
    expect(fileTokens({ mediaType: 'video/mp4' }, CLAUDE)).toBe(DEFAULT_VIDEO_TOKENS);
    expect(fileTokens({ mediaType: 'text/csv', data: new TextEncoder().encode('a,b\n'.repeat(100)) })).toBe(100);
    expect(fileTokens({ mediaType: 'application/zip', data: new Uint8Array(50) }, CLAUDE)).toBe(DEFAULT_FILE_TOKENS);
    expect(fileTokens({ mediaType: 'application/zip', data: '%%%' }, CLAUDE)).toBe(DEFAULT_FILE_TOKENS);
  });
});

describe('providerFamily', () => {
  it.each([
    ['anthropic.messages', 'claude-sonnet-4-5', 'anthropic'],
    ['google.vertex.anthropic.messages', 'claude-opus-4', 'anthropic'],
    ['amazon-bedrock', 'us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'anthropic'],
    ['amazon-bedrock', 'amazon.nova-pro-v1:0', 'unknown'],
    ['openai.chat', 'gpt-4o', 'openai'],
    ['openai.responses', 'o3', 'openai'],
    ['azure.chat', 'my-deployment', 'openai'],
    ['gateway', 'openai/gpt-4.1-mini', 'openai'],
    ['gateway', 'anthropic/claude-sonnet-4', 'anthropic'],
    ['google.generative-ai', 'gemini-2.5-pro', 'google'],
    ['google.vertex.chat', 'gemini-2.0-flash', 'google'],
    ['ChatGoogleGenerativeAI', '', 'google'],
    ['mock-provider', 'mock-model', 'unknown'],
    ['', 'o4-mini', 'openai'],
    ['', 'llama-3.3-70b', 'unknown'],
  ])('%s with %s is %s', (provider, modelId, family) => {
    expect(providerFamily(provider, modelId)).toBe(family);
  });

  it("names OpenAI's rule in the key, so models that count alike share one", () => {
    expect(fileCountingKey(GPT_4O)).toBe(fileCountingKey({ family: 'openai', modelId: 'gpt-4.1' }));
    expect(fileCountingKey(GPT_4O)).not.toBe(fileCountingKey({ family: 'openai', modelId: 'gpt-4o-mini' }));
    expect(fileCountingKey(CLAUDE)).toBe(fileCountingKey({ family: 'anthropic', modelId: 'claude-haiku-4-5' }));
    expect(fileCountingKey(CLAUDE)).not.toBe(fileCountingKey(GEMINI));
  });
});
