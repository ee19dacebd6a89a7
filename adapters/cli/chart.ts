import type { ConversationReplay } from './replay.js';

const ACTIONS = ['fold', 'mask', 'recall'];
const ACTION_COLORS = ['#d62728', '#9467bd', '#2ca02c'];
const y = { field: 'tokens', type: 'quantitative', title: 'prompt tokens' } as const;

/**
 * The replay's chart: prompt tokens per call, raw and compressed, the budget and the thresholds the calls were decided
 * against (compress at, fold to, hard limit), and a mark at every call that folded, masked or recalled, drawn with
 * Vega-Lite into SVG. `vega` and `vega-lite` are optional peer dependencies (about 12 MB together, too much for every
 * install of a middleware): without them the chart is left out and the reason returned.
 */
export async function replayChart(
  replay: ConversationReplay,
  title: string,
): Promise<{ svg?: string; missing?: string }> {
  let vega: typeof import('vega');
  let vegaLite: typeof import('vega-lite');
  try {
    [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  } catch {
    return {
      missing: 'the chart needs vega and vega-lite: npm install vega vega-lite, then run the command again',
    };
  }
  const lines = replay.calls.flatMap((call) => [
    { call: call.call, tokens: call.rawTokens, prompt: 'raw history' },
    { call: call.call, tokens: call.sentTokens, prompt: 'compressed' },
  ]);
  // a mark on the compressed line at each call that folded, masked or recalled
  const marks = replay.calls.flatMap((call) => [
    ...(call.folded > 0 || call.dropped > 0 ? [{ call: call.call, tokens: call.sentTokens, action: 'fold' }] : []),
    ...(call.masked > 0 || call.redacted > 0 ? [{ call: call.call, tokens: call.sentTokens, action: 'mask' }] : []),
    ...(call.recalledChunks > 0 ? [{ call: call.call, tokens: call.sentTokens, action: 'recall' }] : []),
  ]);
  const x = { field: 'call', type: 'quantitative', title: 'model call' } as const;
  const { spec } = vegaLite.compile({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 760,
    height: 360,
    layer: [
      ...thresholdLayers(replay.limits, y),
      {
        data: { values: lines },
        mark: { type: 'line', strokeWidth: 1.5 },
        encoding: { x, y, color: { field: 'prompt', type: 'nominal', title: null, legend: { orient: 'bottom' } } },
      },
      {
        data: { values: marks },
        mark: { type: 'point', filled: true, size: 45 },
        encoding: {
          x,
          y,
          color: {
            field: 'action',
            type: 'nominal',
            title: null,
            scale: { domain: ACTIONS, range: ACTION_COLORS },
            legend: { orient: 'bottom' },
          },
        },
      },
    ],
    resolve: { scale: { color: 'independent' } },
  });
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  return { svg: await view.toSVG() };
}

/**
 * The budget and the thresholds as dashed lines, each labelled. The labels alternate between the right and the left
 * end, from the highest line down, so two lines close together (the budget and the hard limit) never have their
 * labels on top of each other.
 */
function thresholdLayers(limits: ConversationReplay['limits'], encoding: typeof y) {
  const thresholds = [
    { tokens: limits.budget, line: `budget ${limits.budget}` },
    { tokens: limits.hardLimit, line: `hard limit ${limits.hardLimit}` },
    { tokens: limits.compressAt, line: `compress at ${limits.compressAt}` },
    { tokens: limits.compressTo, line: `fold to ${limits.compressTo}` },
  ].sort((a, b) => b.tokens - a.tokens);
  const label = (values: typeof thresholds, align: 'left' | 'right', dx: number) => ({
    data: { values },
    mark: { type: 'text' as const, align, dx, dy: -5, fontSize: 10, color: '#555' },
    encoding: { y: encoding, x: { value: 0 }, text: { field: 'line' } },
  });
  return [
    {
      data: { values: thresholds },
      mark: { type: 'rule' as const, strokeDash: [4, 4], color: '#888' },
      encoding: { y: encoding },
    },
    label(
      thresholds.filter((_, index) => index % 2 === 0),
      'right',
      756,
    ),
    label(
      thresholds.filter((_, index) => index % 2 === 1),
      'left',
      4,
    ),
  ];
}
