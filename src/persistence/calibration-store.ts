import { z } from 'zod';
import type { TokenCalibration } from '../counting/calibration.js';
import { hashString } from '../counting/hash.js';
import { STATE_FORMAT_VERSION, scopePrefix } from './state-records.js';
import type { StateStore } from './state-store.js';

const CalibrationSchema = z.object({
  version: z.literal(STATE_FORMAT_VERSION),
  ratio: z.number().positive(),
  samples: z.number().int().positive(),
});

/** A ratio is written again once it moved by more than this share of the one written last. */
const REWRITE_CHANGE = 0.02;

/**
 * The calibration ratios of an engine's models, kept in a shared store: an instance that starts (a new server, an
 * edge function's new isolate) begins from what the others learned instead of a ratio of 1, which for a counter far
 * from the provider's tokens (UTF-8 bytes count about four times a model's tokens) would compress its first calls
 * much too early, and for a model that counts more than the counter (Claude, Gemini) would send them over the window.
 * Keyed by the counter and the model, apart from any conversation; read once per model and instance, written when
 * the ratio moved.
 */
export class CalibrationStore {
  private readonly loads = new Map<string, Promise<void>>();
  private readonly written = new Map<string, number>();

  constructor(
    private readonly store: StateStore,
    private readonly calibration: TokenCalibration,
    private readonly namespace: string,
    private readonly counterName: string,
    private readonly ttlMs: number | undefined,
  ) {}

  private key(modelKey: string): string {
    return `${scopePrefix(this.namespace)}calibration:${hashString(`${this.counterName}\n${modelKey}`)}`;
  }

  /** Seeds a model's ratio from the store, once per instance, unless this instance has seen a response of it. */
  load(modelKey: string): Promise<void> {
    let loading = this.loads.get(modelKey);
    if (!loading) {
      loading = this.read(modelKey);
      this.loads.set(modelKey, loading);
    }
    return loading;
  }

  private async read(modelKey: string): Promise<void> {
    const parsed = CalibrationSchema.safeParse(await this.store.get(this.key(modelKey)));
    if (!parsed.success) return;
    const { ratio, samples } = parsed.data;
    if (this.calibration.seed(modelKey, ratio, samples)) this.written.set(modelKey, ratio);
  }

  /** Writes a model's ratio when it moved since this instance last wrote or read it. */
  async save(modelKey: string): Promise<void> {
    const learned = this.calibration.learned(modelKey);
    if (!learned) return;
    const before = this.written.get(modelKey);
    if (before !== undefined && Math.abs(learned.ratio - before) <= before * REWRITE_CHANGE) return;
    this.written.set(modelKey, learned.ratio);
    const options = this.ttlMs ? { ttlMs: this.ttlMs } : undefined;
    await this.store.set(this.key(modelKey), { version: STATE_FORMAT_VERSION, ...learned }, options);
  }
}
