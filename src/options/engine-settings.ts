import { DEFAULT_AWARENESS_BLOCK, DEFAULT_STATE_ACKNOWLEDGEMENT } from '../options/prompts.js';
import { DEFAULT_MASKING_OPTIONS, type MaskingOptions } from '../strategies/observation-masking.js';
import { DEFAULT_REDACTION_TOOL_NAME, type RedactionRules } from '../strategies/redaction.js';
import type { Message } from '../transcript/transcript.js';
import { DEFAULT_SEMANTIC_TRIGGER_OPTIONS, type SemanticTriggerOptions } from '../triggers/semantic-triggers.js';
import type { StalenessOptions } from '../triggers/staleness.js';
import type { CompressionOptions } from './options.js';

/** The options with their defaults in place: which stages run, and with what. */
export interface EngineSettings {
  /** Undefined when masking is off. */
  readonly masking: Required<MaskingOptions> | undefined;
  /** Undefined when staleness masking is off (it needs masking). */
  readonly staleness: StalenessOptions | undefined;
  /** Undefined when semantic folds are off (they need folding). */
  readonly semantic: SemanticTriggerOptions | undefined;
  /** Undefined when redaction replay is off. */
  readonly redaction: RedactionRules | undefined;
  readonly redactionToolName: string;
  readonly folding: boolean;
  /** Placeholders name how many recent results are kept, masking on or off. */
  readonly keepRecent: number;
  /** The awareness block appended to the system prompt, undefined when turned off. */
  readonly awareness: Message | undefined;
  readonly acknowledgement: string;
}

/** Resolves validated options into the settings the engine runs with. */
export function engineSettings(options: CompressionOptions): EngineSettings {
  const masking = options.masking === false ? undefined : { ...DEFAULT_MASKING_OPTIONS, ...options.masking };
  const triggers = options.triggers ?? {};
  const redactionToolName =
    (options.redaction === false ? undefined : options.redaction?.toolName) ?? DEFAULT_REDACTION_TOOL_NAME;
  const awarenessBlock = options.awarenessBlock ?? DEFAULT_AWARENESS_BLOCK;
  return {
    masking,
    staleness: triggers.staleness === false || !masking ? undefined : { ...triggers.staleness },
    semantic:
      triggers.semantic === false || options.folding === false
        ? undefined
        : { ...DEFAULT_SEMANTIC_TRIGGER_OPTIONS, ...triggers.semantic },
    redaction:
      options.redaction === false ? undefined : { toolName: redactionToolName, excludeTools: masking?.excludeTools },
    redactionToolName,
    folding: options.folding !== false,
    keepRecent: masking ? masking.keepRecent : DEFAULT_MASKING_OPTIONS.keepRecent,
    awareness: awarenessBlock
      ? { role: 'system', parts: [{ type: 'text', text: awarenessBlock }], synthetic: 'awareness' }
      : undefined,
    acknowledgement: options.acknowledgement ?? DEFAULT_STATE_ACKNOWLEDGEMENT,
  };
}
