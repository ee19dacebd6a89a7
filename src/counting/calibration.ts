const MAX_RATIO = 5;
/** The lowest ratio learned by default: a report below it is taken for a wrong one. */
const DEFAULT_CALIBRATION_FLOOR = 0.2;
/** A raised ratio counts as this many responses in the running mean. */
const RAISED_WEIGHT = 5;

/**
 * Learns, per model, the ratio between the tokens a provider reports and the tokens we estimated for the same
 * prompt, so budgets hold for models whose tokenizer is not tiktoken's (Gemini, Claude). A running mean with a
 * bounded weight, so it adapts but one odd response cannot swing it.
 */
export class TokenCalibration {
  private readonly ratios = new Map<string, { ratio: number; samples: number }>();

  constructor(
    private readonly maxSamples = 20,
    /** The lowest ratio learned (the counter's `calibrationFloor`). */
    private readonly floor = DEFAULT_CALIBRATION_FLOOR,
  ) {}

  /** Records one response: `estimated` is our count of the sent prompt, `reported` the provider's input tokens. */
  record(modelKey: string, estimated: number, reported: number | undefined): void {
    if (!reported || reported <= 0 || estimated <= 0) return;
    const observed = reported / estimated;
    if (!Number.isFinite(observed) || observed < this.floor || observed > MAX_RATIO) return;
    const current = this.ratios.get(modelKey);
    if (!current) {
      this.ratios.set(modelKey, { ratio: observed, samples: 1 });
      return;
    }
    const samples = Math.min(current.samples + 1, this.maxSamples);
    this.ratios.set(modelKey, { ratio: current.ratio + (observed - current.ratio) / samples, samples });
  }

  /**
   * Raises a model's ratio to at least `ratio` after the provider rejected a prompt as too long (capped at 5 like an
   * observed one), weighted as several responses so one later report cannot undo it at once. Returns the new ratio.
   */
  raise(modelKey: string, ratio: number): number {
    const current = this.ratios.get(modelKey);
    const raised = Math.min(MAX_RATIO, Math.max(current?.ratio ?? 1, ratio));
    this.ratios.set(modelKey, { ratio: raised, samples: Math.max(current?.samples ?? 0, RAISED_WEIGHT) });
    return raised;
  }

  /**
   * Starts a model's running mean from a ratio learned elsewhere (another instance, through a shared store), counted
   * as `samples` responses; only while this one has seen none of the model. Returns whether it took it.
   */
  seed(modelKey: string, ratio: number, samples: number): boolean {
    if (this.ratios.has(modelKey) || !Number.isFinite(ratio) || ratio < this.floor || ratio > MAX_RATIO) return false;
    this.ratios.set(modelKey, { ratio, samples: Math.max(1, Math.min(samples, this.maxSamples)) });
    return true;
  }

  /** The ratio learned for a model and how many responses it stands for; undefined until one was seen. */
  learned(modelKey: string): { ratio: number; samples: number } | undefined {
    const current = this.ratios.get(modelKey);
    return current && { ...current };
  }

  /** The learned ratio for a model, 1 until a response was seen. */
  ratio(modelKey: string): number {
    return this.ratios.get(modelKey)?.ratio ?? 1;
  }
}
