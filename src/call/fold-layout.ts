import { type CutPoints, cutPointsFor } from '../transcript/cut-point-index.js';
import type { Message } from '../transcript/transcript.js';

/**
 * Token arithmetic of the assembled prompt for any fold point, precomputed once per call:
 * `[fixed: system + tools] [state pair] [pinned user message?] [messages from the fold point on, each recall block
 * just before the user message it was made for]`.
 *
 * A fold point is a cut where no tool call is separated from its result. When the kept part starts in the middle
 * of a turn, the last user message before the cut is pinned verbatim after the state pair, so the model always sees
 * what it is working on and the layout changes only when a fold happens (never when a later user message arrives).
 */
export class FoldLayout {
  /** Valid fold points, ascending; never 0, never past the last message. */
  readonly cuts: readonly number[];
  private readonly suffix: number[];
  /** `suffix` without the recall blocks. */
  private readonly messageSuffix: number[];
  private readonly lastUserBefore: number[];

  constructor(
    private readonly messages: readonly Message[],
    private readonly tokens: readonly number[],
    readonly fixedTokens: number,
    /** Tokens sent just before a message besides it (a recall block), by message index; they leave with it. */
    before: ReadonlyMap<number, number> = new Map(),
    /** The history's fold points, when the call read them already. */
    points: CutPoints = cutPointsFor(messages),
  ) {
    this.points = points;
    this.cuts = points.list;
    this.suffix = new Array<number>(messages.length + 1).fill(0);
    this.messageSuffix = new Array<number>(messages.length + 1).fill(0);
    for (let index = messages.length - 1; index >= 0; index--) {
      this.suffix[index] = (this.suffix[index + 1] as number) + (tokens[index] as number) + (before.get(index) ?? 0);
      this.messageSuffix[index] = (this.messageSuffix[index + 1] as number) + (tokens[index] as number);
    }
    this.lastUserBefore = new Array<number>(messages.length + 1).fill(-1);
    for (let index = 1; index <= messages.length; index++) {
      this.lastUserBefore[index] =
        messages[index - 1]?.role === 'user' ? index - 1 : (this.lastUserBefore[index - 1] as number);
    }
  }

  /** Whether a message index is a valid fold point. */
  isCut(index: number): boolean {
    return this.points.has(index);
  }

  private readonly points: CutPoints;

  /** The index of the user message pinned after the state pair for a fold point, or -1. */
  pinned(covered: number): number {
    if (covered === 0 || covered >= this.messages.length || this.messages[covered]?.role === 'user') return -1;
    return this.lastUserBefore[covered] as number;
  }

  /** Tokens of the whole prompt for a fold point and a state of `stateTokens` (0 when there is no state). */
  total(covered: number, stateTokens: number): number {
    const pinned = this.pinned(covered);
    return (
      this.fixedTokens +
      stateTokens +
      (pinned >= 0 ? (this.tokens[pinned] as number) : 0) +
      (this.suffix[covered] as number)
    );
  }

  /**
   * Tokens a model call added to the history lately: the median, over the last `calls` spans from one assistant
   * message to the next, of the tokens in the span (an agent step and its results, or a turn of a chat). 0 when the
   * history holds fewer than two assistant messages. `largest`: the largest of those spans instead. `messagesOnly`:
   * the messages' own tokens, without the recall blocks sent with them.
   */
  growthPerCall(calls = 5, largest = false, messagesOnly = false): number {
    const suffix = messagesOnly ? this.messageSuffix : this.suffix;
    const spans: number[] = [];
    let next = -1;
    for (let index = this.messages.length - 1; index >= 0 && spans.length < calls; index--) {
      if (this.messages[index]?.role !== 'assistant') continue;
      if (next >= 0) spans.push((suffix[index] as number) - (suffix[next] as number));
      next = index;
    }
    if (spans.length === 0) return 0;
    if (largest) return Math.max(...spans);
    spans.sort((a, b) => a - b);
    const middle = Math.floor(spans.length / 2);
    return spans.length % 2 === 1
      ? (spans[middle] as number)
      : ((spans[middle - 1] as number) + (spans[middle] as number)) / 2;
  }

  /**
   * The fold point for a compression beyond `covered`: the first one whose prompt fits `targetTokens`, preferring
   * the start of a turn (a user message), so chats fold whole turns; the deepest one when none fits. With `force`,
   * everything up to the latest user message, once; when the history starts with it, every step of its turn; never a
   * span of just the user message it then pins. Undefined when nothing can be folded.
   */
  chooseCut({
    covered,
    stateTokens,
    targetTokens,
    force = false,
  }: {
    covered: number;
    stateTokens: number;
    targetTokens: number;
    force?: boolean;
  }): number | undefined {
    const candidates = this.cuts.filter((cut) => cut > covered);
    if (candidates.length === 0) return undefined;
    if (force) {
      const latestUser = this.lastUserBefore[this.messages.length] as number;
      if (candidates.includes(latestUser)) return latestUser;
      // folded up to (or past) the latest user message already, by an earlier forced fold or what followed it: its
      // turn stays
      if (covered > 0 && latestUser > 0 && covered >= latestUser) return undefined;
      // a fold of nothing but the user message it then pins again is no fold
      return candidates.filter((cut) => !(covered <= latestUser && cut === latestUser + 1)).at(-1);
    }
    const fits = (cut: number) => this.total(cut, stateTokens) <= targetTokens;
    return (
      candidates.find((cut) => this.messages[cut]?.role === 'user' && fits(cut)) ??
      candidates.find(fits) ??
      candidates.at(-1)
    );
  }
}
