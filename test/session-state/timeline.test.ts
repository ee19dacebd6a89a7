import { describe, expect, it } from 'vitest';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { fitState } from '../../src/session-state/fit-state.js';
import { renderSessionState } from '../../src/session-state/render-session-state.js';
import { EMPTY_SESSION_STATE, SummarizerOutputSchema } from '../../src/session-state/session-state.js';
import { appendToTimeline, fitTimeline, timelineEntry } from '../../src/session-state/timeline.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import type { Message } from '../../src/transcript/transcript.js';
import { chat, setup, text } from '../helpers/fixtures.js';

const meter = new MessageMeter(approximateCounter());

const trip: Message[] = [
  text('user', 'Caroline: On 8 May, 2023 I visited the adoption agency in Portland. The adoption interview went well.'),
  text('assistant', 'Melanie: That is wonderful! Adoption is such a big step. What did the agency ask?'),
  text('user', 'Caroline: They asked about my counseling job and the adoption timeline.'),
  text('assistant', 'Melanie: I hope the agency calls back by 12 May, 2023.'),
];
const pottery: Message[] = [
  text('user', 'Caroline: I signed up for a pottery class with glazing and a kiln.'),
  text('assistant', 'Melanie: Pottery sounds relaxing. Post a photo of your first bowl from the kiln.'),
];

describe('timelineEntry', () => {
  it('names the span, its dates, its speakers and its specific terms', () => {
    const messages = [...trip, ...pottery];
    const entry = timelineEntry({ messages, span: trip, from: 0, to: 4 });
    expect(entry).toMatch(/^#1-4 · 8 May, 2023 to 12 May, 2023 · Caroline, Melanie: /);
    const terms = entry.slice(entry.indexOf(': ') + 2).split(', ');
    expect(terms[0]).toBe('adoption'); // repeated in the span, rare elsewhere
    expect(terms).not.toContain('that'); // stop words never
    expect(terms).not.toContain('pottery'); // not in the span
  });

  it('names no speakers when the messages carry no names (roles say nothing new)', () => {
    const span = [text('user', 'Deploy the billing service to staging.'), text('assistant', 'Deployed billing.')];
    const entry = timelineEntry({ messages: span, span, from: 0, to: 2 });
    expect(entry).toMatch(/^#1-2: /);
    expect(entry).toContain('billing');
  });

  it('gives a span related to the conversation now more detail than an unrelated one', () => {
    const spanTerms = (recent: string) => {
      const messages = [...trip, text('user', recent)];
      const entry = timelineEntry({ messages, span: trip, from: 0, to: 4 });
      return entry.slice(entry.indexOf(': ') + 2).split(', ').length;
    };
    expect(spanTerms('Any news from the adoption agency about the interview and the counseling job?')).toBeGreaterThan(
      spanTerms('Which glaze should I use for pottery?'),
    );
  });
});

describe('timelineEntry in a tool loop', () => {
  const read = (index: number, body: string): Message[] => [
    {
      role: 'assistant',
      parts: [{ type: 'tool-call', id: `c${index}`, name: 'readFile', args: { path: `src/module-${index}.ts` } }],
    },
    { role: 'tool', parts: [{ type: 'tool-result', callId: `c${index}`, name: 'readFile', output: body }] },
  ];
  // each output is longer than the characters read of it, and a word spans the cut
  const body = (index: number) => `${'export const lumen_amber = 1;\n'.repeat(200)}// module ${index}`;

  it('says first what the calls did and on what, and never keeps a word cut at the end of what it read', () => {
    const span = [
      text('user', 'Review the modules.'),
      ...Array.from({ length: 8 }, (_, index) => read(index + 1, body(index + 1))).flat(),
    ];
    const entry = timelineEntry({ messages: span, span, from: 0, to: span.length });
    const terms = entry.slice(entry.indexOf(': ') + 2).split(', ');
    expect(terms[0]).toBe('readFile x8 (src/module-1.ts ... src/module-8.ts)');
    for (const term of terms.slice(1))
      expect(['export', 'const', 'lumen', 'amber', 'module', 'review']).toContain(term);
  });

  it('adds up the calls of two spans when it merges their entries', () => {
    const spans = [1, 2].map((part) => {
      const span = Array.from({ length: 3 }, (_, index) => read(part * 10 + index, 'ok')).flat();
      return timelineEntry({ messages: span, span, from: (part - 1) * 6, to: part * 6 });
    });
    let timeline: string[] = [];
    for (let index = 0; index < 8; index++) timeline = appendToTimeline(timeline, `#${index + 13}-${index + 13}: x`);
    timeline = appendToTimeline([...spans, ...timeline.slice(0, 6)], '#21-21: y');
    expect(timeline[0]).toMatch(/^#1-12: readFile x6 \(src\/module-10\.ts \.\.\. src\/module-22\.ts\)/);
  });
});

describe('appendToTimeline', () => {
  const entry = (index: number) =>
    `#${index * 10 + 1}-${index * 10 + 10} · Ann: a${index}, b${index}, c${index}, d${index}, e${index}`;

  it('keeps the newest three entries whole, shortens older ones, merges past eight, and loses no range', () => {
    let timeline: string[] = [];
    for (let index = 0; index < 20; index++) timeline = appendToTimeline(timeline, entry(index));
    expect(timeline).toHaveLength(8);
    expect(timeline.slice(-3)).toEqual([entry(17), entry(18), entry(19)]);
    expect(timeline.at(-4)).toBe('#161-170 · Ann: a16, b16, c16');
    expect(timeline[0]).toMatch(/^#1-\d+: /);
    const ranges = timeline.map((each) => /^#(\d+)-(\d+)/.exec(each)?.slice(1).map(Number) as number[]);
    for (let index = 1; index < ranges.length; index++) {
      expect(ranges[index]?.[0]).toBe((ranges[index - 1]?.[1] as number) + 1);
    }
    expect(ranges.at(-1)?.[1]).toBe(200);
  });
});

describe('fitTimeline', () => {
  const timeline = Array.from(
    { length: 30 },
    (_, index) =>
      `#${index * 10 + 1}-${index * 10 + 10} · Caroline, Melanie: term${index}a, term${index}b, term${index}c, term${index}d, term${index}e`,
  );

  it('shortens, then merges the oldest spans, and never loses a range', () => {
    const fitted = fitTimeline(timeline, 150, meter);
    expect(meter.countText(JSON.stringify(fitted))).toBeLessThanOrEqual(150);
    expect(fitted.length).toBeLessThan(timeline.length);
    const ranges = fitted.map((entry) => /^#(\d+)-(\d+)/.exec(entry)?.slice(1).map(Number) as [number, number]);
    expect(ranges[0]?.[0]).toBe(1);
    expect(ranges.at(-1)?.[1]).toBe(300);
    for (let index = 1; index < ranges.length; index++) {
      expect(ranges[index]?.[0]).toBe((ranges[index - 1]?.[1] as number) + 1);
    }
    expect(fitted.at(-1)).toBe(timeline.at(-1)); // the newest span keeps its detail longest
  });

  it('leaves a timeline that fits as it is', () => {
    expect(fitTimeline(timeline.slice(0, 2), 1_000, meter)).toEqual(timeline.slice(0, 2));
  });

  it('is kept by fitState, within its share, when everything else must go', () => {
    const state = {
      ...EMPTY_SESSION_STATE,
      logos: Array.from({ length: 200 }, (_, index) => `Fact number ${index} about the billing service.`),
      timeline,
    };
    const fitted = fitState(state, 400, meter);
    expect(meter.countText(renderSessionState(fitted))).toBeLessThanOrEqual(400);
    expect(fitted.timeline?.[0]).toMatch(/^#1-/);
    expect(fitted.timeline?.at(-1)).toMatch(/-300[: ]/);
  });
});

describe('the timeline in the engine', () => {
  it('adds one entry per fold, covering the folded messages in order, unseen by the summarizer', async () => {
    const { run, summarize, engine } = setup();
    const first = [...trip, ...chat(56)];
    await run(first);
    const second = [...first, ...pottery, ...chat(60)];
    const out = await run(second);
    expect(summarize.mock.calls.length).toBeGreaterThanOrEqual(2);
    for (const [input] of summarize.mock.calls as [SummarizeInput][]) {
      expect(input.previous?.timeline).toBeUndefined();
    }
    const state = out.messages.find((message) => message.synthetic === 'session-state');
    const rendered = state?.parts[0]?.type === 'text' ? state.parts[0].text : '';
    const json = JSON.parse(rendered.replace(/^<session_state>\n|\n<\/session_state>$/g, '')) as {
      timeline: string[];
    };
    expect(json.timeline.length).toBeGreaterThanOrEqual(2);
    expect(json.timeline[0]).toMatch(/^#1-\d+ · 8 May, 2023 to 12 May, 2023 · Caroline, Melanie/);
    const ranges = json.timeline.map((entry) => /^#(\d+)-(\d+)/.exec(entry)?.slice(1).map(Number) as number[]);
    for (let index = 1; index < ranges.length; index++) {
      expect(ranges[index]?.[0]).toBe((ranges[index - 1]?.[1] as number) + 1);
    }
    expect(engine).toBeDefined();
  });

  it('is not part of what a model summarizer is asked to return', () => {
    expect(Object.keys(SummarizerOutputSchema.shape)).not.toContain('timeline');
  });
});
