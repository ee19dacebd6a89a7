import type { Message } from '../transcript/transcript.js';
import {
  DEFAULT_MASKING_OPTIONS,
  type MaskingSettings,
  type SemanticTriggerSettings,
  type StalenessSettings,
} from './compression-options.js';
import { DEFAULT_REDACTION_TOOL_NAME } from './prompts.js';
import type { ResolvedOptions } from './resolve-options.js';

/** How summaries made ahead of time run: a caller's `waitUntil` keeps a serverless function alive for them. */
export interface AheadSettings {
  /** Handed each background summary (Vercel's `waitUntil`, Next.js `after`, a Worker's `ctx.waitUntil`). */
  readonly waitUntil?: ((work: Promise<unknown>) => void) | undefined;
  /** Aborts the summaries running and starts no more: the engine is closed. */
  readonly signal?: AbortSignal | undefined;
}

/** Options of redaction validation. */
export interface RedactionRules {
  /** The redaction tool's own name: its calls cannot be redacted. @default DEFAULT_REDACTION_TOOL_NAME */
  readonly toolName?: string;
  /** Tools whose results are never redacted. @default [] */
  readonly excludeTools?: readonly string[];
}

/** Which stages run, and with what: the resolved options as the stages read them. */
export interface EngineSettings {
  /** Undefined when masking is off. */
  readonly masking: MaskingSettings | undefined;
  /** Undefined when staleness masking is off (it needs masking). */
  readonly staleness: StalenessSettings | undefined;
  /** Undefined when semantic folds are off (they need folding). */
  readonly semantic: SemanticTriggerSettings | undefined;
  /** Undefined when redaction replay is off. */
  readonly redaction: RedactionRules | undefined;
  /** The redaction tool's name, also when replay is off: its calls are the package's own. */
  readonly redactionToolName: string;
  readonly folding: boolean;
  /** Placeholders name how many recent results are kept, masking on or off. */
  readonly keepRecent: number;
  /** The awareness block appended to the system prompt, undefined when turned off. */
  readonly awareness: Message | undefined;
  readonly acknowledgement: string;
  /** Summaries made ahead of time, undefined when off (or folding is off). */
  readonly ahead: AheadSettings | undefined;
}

/** The settings the engine runs with, from resolved options. */
export function engineSettings(options: ResolvedOptions): EngineSettings {
  const { masking, triggers, redaction, folding, awarenessBlock, summarizeAhead, summarizer } = options;
  // on by default with a model summarizer (seconds a summary); a function may be anything, the extractive one is fast
  const ahead =
    summarizeAhead ?? (typeof summarizer !== 'function' && summarizer.name.startsWith('model:') ? {} : false);
  return {
    masking: masking || undefined,
    staleness: masking ? triggers.staleness || undefined : undefined,
    semantic: folding ? triggers.semantic || undefined : undefined,
    redaction: redaction || undefined,
    redactionToolName: redaction ? redaction.toolName : DEFAULT_REDACTION_TOOL_NAME,
    folding,
    keepRecent: (masking || DEFAULT_MASKING_OPTIONS).keepRecent,
    awareness: awarenessBlock
      ? { role: 'system', parts: [{ type: 'text', text: awarenessBlock }], synthetic: 'awareness' }
      : undefined,
    acknowledgement: options.acknowledgement,
    ahead: folding && ahead ? ahead : undefined,
  };
}
