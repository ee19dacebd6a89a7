import type { ConversationReplay } from './replay.js';

/**
 * The replay's chart: prompt tokens per call, raw and compressed, with a rule at every call that folded, drawn with
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
      missing: 'the chart needs vega and vega-lite: npm install vega vega-lite (or npx -p vega -p vega-lite ...)',
    };
  }
  const lines = replay.calls.flatMap((call) => [
    { call: call.call, tokens: call.rawTokens, prompt: 'raw history' },
    { call: call.call, tokens: call.sentTokens, prompt: 'compressed' },
  ]);
  const folds = replay.calls.filter((call) => call.folded > 0).map((call) => ({ call: call.call }));
  const { spec } = vegaLite.compile({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 760,
    height: 360,
    layer: [
      {
        data: { values: folds },
        mark: { type: 'rule', strokeDash: [3, 3], color: '#999' },
        encoding: { x: { field: 'call', type: 'quantitative' } },
      },
      {
        data: { values: lines },
        mark: { type: 'line', strokeWidth: 1.5 },
        encoding: {
          x: { field: 'call', type: 'quantitative', title: 'model call (dashed: a fold)' },
          y: { field: 'tokens', type: 'quantitative', title: 'prompt tokens' },
          color: { field: 'prompt', type: 'nominal', title: null, legend: { orient: 'bottom' } },
        },
      },
    ],
  });
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  return { svg: await view.toSVG() };
}
