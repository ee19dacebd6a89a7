/** The chart of bench/RESULTS.md: prompt tokens per call of each system on one long trajectory, drawn with Vega-Lite. */
import * as vega from 'vega';
import { compile } from 'vega-lite';

/** A horizontal line of the chart: a limit every system works against, labelled. */
export interface ChartLine {
  readonly tokens: number;
  readonly label: string;
}

/**
 * An SVG line chart of prompt tokens per call, one line per system, with the window and this package's budget and
 * thresholds as dashed lines.
 */
export async function promptChart(
  values: readonly { system: string; step: number; tokens: number }[],
  session: string,
  lines: readonly ChartLine[],
): Promise<string> {
  const y = { field: 'tokens', type: 'quantitative', title: 'prompt tokens' } as const;
  const { spec } = compile({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Prompt tokens per call: ${session}, 16k window`,
    width: 760,
    height: 380,
    layer: [
      { data: { values: [...lines] }, mark: { type: 'rule', strokeDash: [4, 4], color: '#888' }, encoding: { y } },
      {
        data: { values: [...lines] },
        mark: { type: 'text', align: 'right', dx: 756, dy: -5, fontSize: 10, color: '#555' },
        encoding: { y, x: { value: 0 }, text: { field: 'label' } },
      },
      {
        data: { values: [...values] },
        mark: { type: 'line', strokeWidth: 1.5 },
        encoding: {
          x: { field: 'step', type: 'quantitative', title: 'model call' },
          y,
          color: {
            field: 'system',
            type: 'nominal',
            title: 'system',
            legend: { orient: 'bottom', columns: 2, labelLimit: 320 },
          },
        },
      },
    ],
  });
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  return view.toSVG();
}
