import { parseArgs } from 'node:util';
import { closest } from '../../src/options/option-issue-error.js';

export const USAGE = `usage: context-compression replay <file> [options]

  <file>                 a transcript: AI SDK ModelMessage[] or UIMessage[], LangChain messages, OpenAI chat
                         messages or a request body { messages }, as JSON or JSON lines (one message or one
                         conversation per line)
  --window <tokens>      the model's context window (default 128000)
  --reserve <tokens>     tokens kept for the answer (default: the engine's)
  --summarizer offline   the summarizer (offline: the extractive one, no model; the only one here)
  --out <dir>            write figures.json and chart.svg (one chart per conversation) there
  --explain              print every call: its tokens against the thresholds, and why it did what it did
  --quiet                no progress bar
`;

const OPTIONS = {
  window: { type: 'string', default: '128000' },
  reserve: { type: 'string' },
  summarizer: { type: 'string', default: 'offline' },
  out: { type: 'string' },
  quiet: { type: 'boolean', default: false },
  explain: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The command line read by `parseArgs`; an unknown option's error names the option it was likely meant to be. */
function parsedArgs(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS });
  } catch (error) {
    const unknown = /Unknown option '(-{1,2})([^']+)'/.exec(error instanceof Error ? error.message : '');
    if (!unknown) throw error;
    const guess = closest(unknown[2] ?? '', Object.keys(OPTIONS));
    const known = Object.keys(OPTIONS).map((name) => `--${name}`);
    throw new Error(
      `unknown option ${unknown[1]}${unknown[2]}: ${guess ? `did you mean --${guess}?` : `the options are ${known.join(', ')}`}`,
    );
  }
}

/** The command line checked: the replay's file and settings, or a request for the usage; an Error saying what is wrong. */
export function parse(argv: readonly string[]) {
  const { values, positionals } = parsedArgs(argv);
  if (values.help) return { help: true as const };
  const [command, file, ...rest] = positionals;
  if (command !== 'replay') throw new Error(command ? `unknown command: ${command}` : 'no command given');
  if (!file) throw new Error('replay: no file given');
  if (rest.length > 0) throw new Error(`replay: one file at a time (also given: ${rest.join(' ')})`);
  const whole = (name: string, text: string, min: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min)
      throw new Error(`--${name} must be a whole number >= ${min}, got ${text}`);
    return value;
  };
  if (values.summarizer !== 'offline') {
    throw new Error(`--summarizer ${values.summarizer}: only "offline" (the extractive summarizer, no model) is here`);
  }
  const window = whole('window', values.window, 1_024);
  const reserve = values.reserve === undefined ? undefined : whole('reserve', values.reserve, 0);
  if (reserve !== undefined && reserve >= window / 2) {
    throw new Error(`--reserve ${reserve} leaves too little of the ${window}-token window: keep it under half of it`);
  }
  return {
    help: false as const,
    file,
    window,
    reserve,
    out: values.out,
    quiet: values.quiet,
    explain: values.explain,
  };
}
