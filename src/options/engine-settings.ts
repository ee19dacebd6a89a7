import type { AheadSettings } from '../engine/folds-ahead.js';
import type { MaskingSettings } from '../strategies/observation-masking.js';
import { DEFAULT_REDACTION_TOOL_NAME, type RedactionRules } from '../strategies/redaction.js';
import type { Message } from '../transcript/transcript.js';
import type { SemanticTriggerSettings } from '../triggers/semantic-triggers.js';
import type { StalenessSettings } from '../triggers/staleness.js';
import { DEFAULT_MASKING_OPTIONS } from './compression-options.js';
import type { ResolvedOptions } from './resolve-options.js';

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
