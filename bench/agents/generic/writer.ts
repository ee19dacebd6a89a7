/**
 * Writes one generated agent run in the session file format: user tasks, assistant steps that each call one tool
 * with JSON arguments, and the tools' outputs. Side steps (looking around, checks that lead nowhere) come between the
 * steps a task needs.
 */
import type { SessionFileMessage } from '../../../examples/lib/session-file.js';
import type { Random } from './random.js';

/** A step that leads nowhere: its output is never used again (the assistant may remark on it once). */
export type SideStep = (writer: RunWriter) => void;

/** The messages of one run, written step by step. */
export class RunWriter {
  readonly messages: SessionFileMessage[] = [];
  private calls = 0;
  /** A remark on the previous side step, said at the start of the next step. */
  private remark = '';

  constructor(
    readonly random: Random,
    system: string,
    private readonly sideSteps: readonly SideStep[],
  ) {
    this.messages.push({ role: 'system', content: system });
  }

  /** A new task from the user. */
  user(text: string): void {
    this.messages.push({ role: 'user', content: text });
  }

  /** One step: the assistant says `text` and calls `name` with `args`; the tool answers `output`. */
  act(text: string, name: string, args: Record<string, unknown>, output: string): void {
    this.calls++;
    const id = `call_${String(this.calls).padStart(3, '0')}${this.random.code(9)}`;
    this.messages.push({ role: 'assistant', content: this.said(text), toolCalls: [{ id, name, args }] });
    this.messages.push({ role: 'tool', content: output, toolCallId: id, toolName: name });
  }

  /** The assistant's answer that ends a task. */
  say(text: string): void {
    this.messages.push({ role: 'assistant', content: this.said(text) });
  }

  /** Between `min` and `max` side steps. */
  detour(min: number, max: number): void {
    const count = this.random.int(min, max);
    for (let index = 0; index < count; index++) this.random.pick(this.sideSteps)(this);
  }

  /** Now and then (3 times in 10) the next step starts with a remark on a side step that quotes one of its values. */
  remarkLater(text: string): void {
    if (this.random.chance(0.3)) this.remark = text;
  }

  private said(text: string): string {
    const remark = this.remark;
    this.remark = '';
    return remark ? `${remark} ${text}` : text;
  }
}
