import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import { toTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { meter } from '../compare/metrics.js';

/** FIFO: the system prompt and the newest messages that fit `budget` tokens, starting at a user message. */
export function fifo(budget: number): LanguageModelV4Middleware {
  return {
    specificationVersion: 'v4',
    async transformParams({ params }) {
      const transcript = toTranscript(params.prompt, undefined);
      const system = params.prompt.slice(0, transcript.system.length);
      const rest = params.prompt.slice(transcript.system.length);
      let tokens = transcript.system.reduce((sum, message) => sum + meter.measure(message).tokens, 0);
      let start = rest.length;
      while (start > 0) {
        const next = meter.measure(transcript.messages[start - 1] as (typeof transcript.messages)[number]).tokens;
        if (tokens + next > budget) break;
        tokens += next;
        start--;
      }
      while (start < rest.length - 1 && rest[start]?.role !== 'user') start++;
      return { ...params, prompt: [...system, ...rest.slice(start)] };
    },
  };
}
