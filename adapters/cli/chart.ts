import type { ConversationReplay } from './replay.js';

/**
 * The replay's chart: prompt tokens per call, raw and compressed, the budget and the thresholds the calls were decided
 * against (compress at, fold to, hard limit), and a mark at every call that folded, masked or recalled, drawn with
 * Vega-Lite into SVG. `vega` and `vega-lite` are optional peer dependencies (about 12 MB together, too much for every
 * install of a middleware): without them the chart is left out and the reason returned.
 */
const ACTIONS = ['fold', 'mask', 'recall'];
const ACTION_COLORS = ['#d62728', '#9467bd', '#2ca02c'];

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
      missing: 'the chart needs vega and vega-lite: npm install vega vega-lite (or npx -p vega -p vega-lite ...)',
    };
  }
  const lines = replay.calls.flatMap((call) => [
    { call: call.call, tokens: call.rawTokens, prompt: 'raw history' },
    { call: call.call, tokens: call.sentTokens, prompt: 'compressed' },
  ]);
  const { limits } = replay;
  const thresholds = [
    { tokens: limits.budget, line: `budget ${limits.budget}` },
    { tokens: limits.hardLimit, line: `hard limit ${limits.hardLimit}` },
    { tokens: limits.compressAt, line: `compress at ${limits.compressAt}` },
    { tokens: limits.compressTo, line: `fold to ${limits.compressTo}` },
  ];
  const labelled = [...thresholds].sort((a, b) => b.tokens - a.tokens);
  // a mark on the compressed line at each call that folded, masked or recalled
  const marks = replay.calls.flatMap((call) => [
    ...(call.folded > 0 || call.dropped > 0 ? [{ call: call.call, tokens: call.sentTokens, action: 'fold' }] : []),
    ...(call.masked > 0 || call.redacted > 0 ? [{ call: call.call, tokens: call.sentTokens, action: 'mask' }] : []),
    ...(call.recalledChunks > 0 ? [{ call: call.call, tokens: call.sentTokens, action: 'recall' }] : []),
  ]);
  const x = { field: 'call', type: 'quantitative', title: 'model call' } as const;
  const y = { field: 'tokens', type: 'quantitative', title: 'prompt tokens' } as const;
  const { spec } = vegaLite.compile({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 760,
    height: 360,
    layer: [
      {
        data: { values: thresholds },
        mark: { type: 'rule', strokeDash: [4, 4], color: '#888' },
        encoding: { y },
      },
      // the labels alternate between the right and the left end, from the highest line down, so two lines close
      // together (the budget and the hard limit) never have their labels on top of each other
      {
        data: { values: labelled.filter((_, index) => index % 2 === 0) },
        mark: { type: 'text', align: 'right', dx: 756, dy: -5, fontSize: 10, color: '#555' },
        encoding: { y, x: { value: 0 }, text: { field: 'line' } },
      },
      {
        data: { values: labelled.filter((_, index) => index % 2 === 1) },
        mark: { type: 'text', align: 'left', dx: 4, dy: -5, fontSize: 10, color: '#555' },
        encoding: { y, x: { value: 0 }, text: { field: 'line' } },
      },
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
