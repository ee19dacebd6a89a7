/** The chart of bench/RESULTS.md: prompt tokens per call of each system on one long trajectory, drawn with Vega-Lite. */
import * as vega from 'vega';
import { compile } from 'vega-lite';

/** An SVG line chart of prompt tokens per call, one line per system. */
export async function promptChart(
  values: readonly { system: string; step: number; tokens: number }[],
  session: string,
): Promise<string> {
  const { spec } = compile({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Prompt tokens per call: ${session}, 16k window`,
    width: 760,
    height: 380,
    data: { values: [...values] },
    mark: { type: 'line', strokeWidth: 1.5 },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: 'model call' },
      y: { field: 'tokens', type: 'quantitative', title: 'prompt tokens' },
      color: {
        field: 'system',
        type: 'nominal',
        title: 'system',
        legend: { orient: 'bottom', columns: 2, labelLimit: 320 },
      },
    },
  });
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  return view.toSVG();
}
