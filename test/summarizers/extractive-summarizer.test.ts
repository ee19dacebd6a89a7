import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentWords, retained } from '../../bench/compare/metrics.js';
import { InvalidOptionError } from '../../src/errors.js';
import { sessionStateSize } from '../../src/session-state/merge-session-state.js';
import { type SessionState, SessionStateSchema } from '../../src/session-state/session-state.js';
import {
  DEFAULT_EXTRACTIVE_SUMMARIZER_OPTIONS,
  extractiveSummarizer,
} from '../../src/summarizers/extractive-summarizer.js';
import type { Message, Role } from '../../src/transcript/transcript.js';

const text = (role: Role, body: string): Message => ({ role, parts: [{ type: 'text', text: body }] });
const call = (id: string, name: string, args: unknown): Message => ({
  role: 'assistant',
  parts: [{ type: 'tool-call', id, name, args }],
});
const result = (callId: string, name: string, output: string, isError?: boolean): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId, name, output, ...(isError ? { isError } : {}) }],
});

function summarize(messages: readonly Message[], previous?: SessionState, options = {}): Promise<SessionState> {
  return extractiveSummarizer(options).summarize({ messages, previous, abortSignal: new AbortController().signal });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const chitChat = ['ok thanks', 'sounds good', 'Great!', 'Thanks, Bob!', 'Sure.', 'hello there'];

describe('extractiveSummarizer', () => {
  it('is named extractive', () => {
    expect(extractiveSummarizer().name).toBe('extractive');
  });

  it.each([
    ['a number', 'user', 'The table has 3 shards.'],
    ['an ISO date', 'user', 'The release is due on 2024-03-15.'],
    ['a written date', 'assistant', 'The contract ends on March 3 next year.'],
    ['a time', 'user', 'The standup moved to 9:30 for everyone.'],
    ['money', 'user', 'The budget for the pilot is $4,500 in total.'],
    ['a proper name', 'user', 'Please loop in Priya from the platform team.'],
    ['a snake_case identifier', 'assistant', 'The flag is called enable_dark_mode in settings.'],
    ['a camelCase identifier', 'assistant', 'Call getUserById before rendering the page.'],
    ['an id like ABC123', 'user', 'The ticket for this is ABC123 in the tracker.'],
    ['a UUID', 'user', 'Tenant 5f2b7c1e-8a9d-4c3b-9e21-0d4f6a7b8c9d is the broken one.'],
    ['a commit hash', 'user', 'It broke after commit 9fceb02d0ae598e95dc970b74767f19372d61af8 landed.'],
    ['a file path', 'user', 'The handler lives in src/api/routes.ts for now.'],
    ['a relative path', 'assistant', 'Run it from ./scripts with bash.'],
    ['a URL', 'user', 'Docs are at https://example.com/docs/v2 for reference.'],
    ['an email', 'user', 'Send the report to ops@example.org when done.'],
    ['a must constraint', 'user', 'The API must stay backwards compatible.'],
    ['a never constraint', 'user', 'never log the raw tokens anywhere.'],
    ["a don't constraint", 'user', "don't touch the generated files please."],
    ['a decision', 'assistant', 'We decided to drop support for the legacy client.'],
    ["a let's use decision", 'user', "let's use the queue instead of cron."],
    ['an error name', 'assistant', 'The import raised a ModuleNotFoundError on startup.'],
    ['a failure', 'user', 'The nightly build failed again on the runner.'],
  ] as const)('keeps a sentence with %s verbatim', async (_name, role, fact) => {
    const state = await summarize([
      text('user', 'hi'),
      text('assistant', 'ok thanks'),
      text(role, fact),
      text('user', 'cool'),
    ]);
    expect(state.logos).toContain(`${role}: ${fact}`);
  });

  it('drops chit-chat', async () => {
    const state = await summarize(chitChat.map((body, index) => text(index % 2 ? 'assistant' : 'user', body)));
    expect(state.logos).toEqual([]);
  });

  it('names each tool call with its command and output size, and keeps only high-signal lines', async () => {
    const fileLines = Array.from({ length: 120 }, (_, index) => `    total = total + ${index}`).join('\n');
    const testOutput = [
      'collected 4 items',
      'tests/test_auth.py ..F.',
      'FAILED tests/test_auth.py::test_login - AssertionError: expected 200, got 500',
      'some noise line',
      '========= 3 passed, 1 failed in 0.52s =========',
    ].join('\n');
    const state = await summarize([
      call('c1', 'bash', { command: 'cat src/auth.py' }),
      result('c1', 'bash', fileLines),
      call('c2', 'bash', { command: 'pytest tests/' }),
      result('c2', 'bash', testOutput),
    ]);
    expect(state.logos).toContain('tool bash(cat src/auth.py) -> 120 lines');
    expect(state.logos).toContain('tool bash(pytest tests/) -> 5 lines');
    expect(state.logos).toContain(
      'tool bash: FAILED tests/test_auth.py::test_login - AssertionError: expected 200, got 500',
    );
    expect(state.logos).toContain('tool bash: ========= 3 passed, 1 failed in 0.52s =========');
    expect(state.logos.join('\n')).not.toContain('some noise line');
    expect(state.logos.filter((entry) => entry.startsWith('tool bash:'))).toHaveLength(3);
  });

  it('inlines short tool outputs and marks errors', async () => {
    const state = await summarize([
      call('c1', 'get_weather', { city: 'Oslo' }),
      result('c1', 'get_weather', '4 degrees, light rain'),
      call('c2', 'read_file', { path: 'missing.txt' }),
      result('c2', 'read_file', 'ENOENT: no such file', true),
    ]);
    expect(state.logos).toContain('tool get_weather(Oslo) -> 4 degrees, light rain');
    expect(state.logos).toContain('tool read_file(missing.txt) -> error, ENOENT: no such file');
  });

  it('handles messages that hold only tool calls', async () => {
    const state = await summarize([
      call('c1', 'bash', { command: 'ls -la src/' }),
      call('c2', 'search', { q: 'x', n: 3 }),
    ]);
    expect(state.logos).toContain('assistant called bash(ls -la src/)');
    expect(state.logos).toContain('assistant called search({"n":3,"q":"x"})');
    expect(state.conversationSummary).toBe('The assistant called bash ls -la src/ and search q=x n=3.');
  });

  it('reads a 100k-character tool output and keeps a bounded amount', async () => {
    const huge = Array.from({ length: 5000 }, (_, index) => `row ${index}: value_${index} ok`).join('\n');
    const oneLine = `${'x'.repeat(50_000)}/${'a_b'.repeat(17_000)}`;
    const state = await summarize([
      call('c1', 'bash', { command: 'cat data.csv' }),
      result('c1', 'bash', huge),
      call('c2', 'bash', { command: 'cat blob' }),
      result('c2', 'bash', oneLine),
    ]);
    expect(huge.length).toBeGreaterThan(100_000);
    expect(state.logos).toContain('tool bash(cat data.csv) -> 5000 lines');
    expect(state.logos.length).toBeLessThanOrEqual(2 + 2 * DEFAULT_EXTRACTIVE_SUMMARIZER_OPTIONS.maxToolLines);
    for (const entry of state.logos) {
      expect(entry.length).toBeLessThanOrEqual(DEFAULT_EXTRACTIVE_SUMMARIZER_OPTIONS.maxSentenceChars + 20);
    }
  });

  it('treats <session_state> and special tokens as plain text', async () => {
    const body = 'Keep the literal </session_state> tag in template_v2 as is. <|endoftext|> appears in 2 fixtures.';
    const state = await summarize([text('user', body)]);
    expect(state.logos).toEqual([`user: ${body}`]);
  });

  it('returns the previous state for empty input, and an empty state without one', async () => {
    const previous: SessionState = { logos: ['user: a 1'], pathos: ['calm'], abstract: [], conversationSummary: 'A.' };
    expect(await summarize([], previous)).toEqual(previous);
    expect(await summarize([])).toEqual({ logos: [], pathos: [], abstract: [], conversationSummary: '' });
  });

  it('cuts long sentences with an ellipsis, at the end of a word', async () => {
    const long = `The config in src/app.ts sets ${'many options '.repeat(40)}today.`;
    const state = await summarize([text('user', long)], undefined, { maxSentenceChars: 80 });
    expect(state.logos).toEqual(['user: The config in src/app.ts sets many options many options many options many…']);
  });

  it('gives the expected state for a short exchange', async () => {
    const messages = [
      text('user', 'Deploy api_v2 to eu-west-1 by Friday.'),
      text('assistant', 'Decided: blue-green deploy.'),
    ];
    expect(await summarize(messages)).toMatchInlineSnapshot(`
      {
        "abstract": [],
        "conversationSummary": "The user and the assistant talked about deploy. First request: Deploy api_v2 to eu-west-1 by Friday. Latest: Decided: blue-green deploy.",
        "logos": [
          "user: Deploy api_v2 to eu-west-1 by Friday.",
          "assistant: Decided: blue-green deploy.",
        ],
        "pathos": [],
      }
    `);
  });

  it('stays bounded on 1,000 messages', async () => {
    const messages = Array.from({ length: 1000 }, (_, index) =>
      text(
        index % 2 ? 'assistant' : 'user',
        `Step ${index}: we must migrate table_${index} to /srv/db${index}. ok thanks`,
      ),
    );
    const options = { maxLogos: 25, maxChars: 3_000 };
    const state = await summarize(messages, undefined, options);
    expect(state.logos.length).toBeLessThanOrEqual(25);
    expect(sessionStateSize(state)).toBeLessThanOrEqual(3_000);
    const defaults = await summarize(messages);
    expect(defaults.logos.length).toBeLessThanOrEqual(DEFAULT_EXTRACTIVE_SUMMARIZER_OPTIONS.maxLogos);
    expect(sessionStateSize(defaults)).toBeLessThanOrEqual(DEFAULT_EXTRACTIVE_SUMMARIZER_OPTIONS.maxChars);
  });

  it('merges with the previous state without duplicating facts', async () => {
    const first = await summarize([text('user', 'The service runs on port 8080.')]);
    const second = await summarize(
      [text('user', 'the service runs on port 8080'), text('user', 'Use Redis 7.')],
      first,
    );
    expect(second.logos).toEqual(['user: the service runs on port 8080', 'user: Use Redis 7.']);
    expect(second.conversationSummary).toContain('First request: the service runs on port 8080.');
  });

  it('attributes sentences to repeated speaker labels and ignores participant names as facts', async () => {
    const state = await summarize([
      text('user', 'Caroline: Hey Mel! I went to a support group yesterday.'),
      text('assistant', 'Melanie: Thanks, Caroline! That sounds nice.'),
      text('user', 'Caroline: I moved from Sweden 4 years ago.'),
      text('assistant', 'Melanie: Wow, Caroline, great.'),
    ]);
    expect(state.logos).toEqual([
      'Caroline (user): I went to a support group yesterday.',
      'Caroline (user): I moved from Sweden 4 years ago.',
    ]);
  });

  it('skips engine-made messages', async () => {
    const synthetic: Message = {
      ...text('user', '<session_state>user: port 8080</session_state>'),
      synthetic: 'session-state',
    };
    const state = await summarize([synthetic, text('user', 'Use port 9090 for the API.')]);
    expect(state.logos).toEqual(['user: Use port 9090 for the API.']);
  });

  it.each([
    [
      'frustration',
      ['it is still not working', 'why??? again', 'fix it'],
      'User is frustrated that things do not work; be direct.',
    ],
    ['urgency', ['I need this asap, the deadline is today'], 'User is under time pressure.'],
    ['a request for brevity', ['please be concise'], 'User asks for brief, concise answers.'],
  ])('notes %s in pathos', async (_name, bodies, entry) => {
    const state = await summarize(bodies.map((body) => text('user', body)));
    expect(state.pathos).toContain(entry);
    expect(state.pathos.length).toBeLessThanOrEqual(3);
  });

  it('records terms the user defines in abstract', async () => {
    const state = await summarize([
      text('user', 'By "the vault" I mean our secrets store. SLO stands for service level objective.'),
    ]);
    expect(state.abstract).toEqual([
      'User\'s term "the vault": By "the vault" I mean our secrets store.',
      'User\'s term "SLO": SLO stands for service level objective.',
    ]);
  });

  it('builds a short summary from the tools used, the first request and the latest answer', async () => {
    const state = await summarize([
      text('user', 'Fix the login bug in src/auth.py'),
      call('c1', 'bash', { command: 'pytest' }),
      result('c1', 'bash', '1 failed'),
      text('assistant', 'Fixed the hash check; all tests pass now.'),
    ]);
    expect(state.conversationSummary).toBe(
      'The assistant called bash pytest. ' +
        'First request: Fix the login bug in src/auth.py. Latest: Fixed the hash check; all tests pass now.',
    );
  });

  it('names who talked and about what', async () => {
    const first = await summarize([
      text('user', 'Caroline: I joined a pottery class downtown.'),
      text('assistant', 'Melanie: Pottery! Is the class on weekends?'),
      text('user', 'Caroline: The class meets on Saturdays; the teacher fires everything in a kiln.'),
      text('assistant', 'Melanie: A kiln at a pottery class, how fun.'),
    ]);
    expect(first.conversationSummary).toMatch(
      /^Caroline spoke of class; Melanie of (class and pottery|pottery and class)\./,
    );
    expect(first.conversationSummary).toContain('First request: Caroline: I joined a pottery class downtown.');
    const second = await summarize(
      [
        text('user', 'Caroline: We adopted a beagle puppy named Biscuit.'),
        text('assistant', 'Melanie: Biscuit the beagle! Send photos of the puppy.'),
      ],
      first,
    );
    expect(second.conversationSummary).toContain('talked about beagle, biscuit and puppy');
  });

  it('does not mutate its input and returns a valid SessionState', async () => {
    const messages = deepFreeze([
      text('user', 'We must ship v1.2 by 2024-06-01.'),
      call('c1', 'bash', { command: 'git log -1' }),
      result('c1', 'bash', 'commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Ana'),
    ]);
    const previous = deepFreeze<SessionState>({
      logos: ['user: a 1'],
      pathos: [],
      abstract: [],
      conversationSummary: 'A.',
    });
    const snapshot = structuredClone({ messages, previous });
    const state = await summarize(messages, previous);
    expect({ messages, previous }).toEqual(snapshot);
    expect(SessionStateSchema.parse(state)).toEqual(state);
  });

  it('rejects when the abort signal has fired', async () => {
    const controller = new AbortController();
    controller.abort(new Error('timeout'));
    const summarizer = extractiveSummarizer();
    await expect(
      summarizer.summarize({ messages: [], previous: undefined, abortSignal: controller.signal }),
    ).rejects.toThrow('timeout');
  });

  it.each([
    ['maxLogos', { maxLogos: -1 }],
    ['maxSentenceChars', { maxSentenceChars: 1.5 }],
    ['maxChars', { maxChars: Number.NaN }],
    ['merge.similarity', { merge: { similarity: 2 } }],
  ])('rejects an invalid %s when created', (_name, options) => {
    expect(() => extractiveSummarizer(options)).toThrow(InvalidOptionError);
  });
});

interface FixtureConversation {
  id: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
  qa: { question: string; category: string; evidenceIdx?: number[] }[];
}

const conversationsPath = resolve(process.cwd(), '../shared/fixtures/conversations.jsonl');
const hasConversations = existsSync(conversationsPath);
if (!hasConversations)
  console.warn(`Skipping the real-data test of extractiveSummarizer: ${conversationsPath} is absent.`);

describe.skipIf(!hasConversations)('extractiveSummarizer on a real conversation (LoCoMo conv-26)', () => {
  it('keeps the evidence of most questions about the first 100 turns, far more than FIFO at the same size', async () => {
    const conversations = readFileSync(conversationsPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as FixtureConversation);
    const conversation = conversations.find((candidate) => candidate.id === 'locomo/conv-26');
    if (!conversation) throw new Error('locomo/conv-26 is missing from the fixture');
    const window = conversation.messages.slice(0, 100);
    const state = await summarize(window.map((message) => text(message.role, message.content)));
    const logos = state.logos.join('\n');
    const inputChars = window.reduce((total, message) => total + message.content.length, 0);

    // The same character budget spent FIFO-style: the most recent whole turns.
    let budget = logos.length;
    const recent: string[] = [];
    for (let index = window.length - 1; index >= 0; index--) {
      const content = (window[index] as { content: string }).content;
      if (content.length > budget) break;
      recent.push(content);
      budget -= content.length;
    }
    const fifo = recent.join('\n');

    // An answer survives when one sentence (20+ characters) of one of its evidence turns is kept verbatim.
    const sentencesOf = (index: number) =>
      (window[index] as { content: string }).content
        .replace(/^[A-Z][\w'’-]*:\s+/, '')
        .split(/(?<=[.!?]["'”’)\]]?)\s+/)
        .filter((sentence) => sentence.length >= 20);
    const questions = conversation.qa.filter(
      (qa) => qa.category !== 'adversarial' && qa.evidenceIdx?.length && qa.evidenceIdx.every((index) => index < 100),
    );
    const survivingIn = (kept: string, subset: typeof questions) =>
      subset.filter((qa) =>
        qa.evidenceIdx?.some((index) => sentencesOf(index).some((sentence) => kept.includes(sentence))),
      ).length / subset.length;
    const temporal = questions.filter((qa) => qa.category === 'temporal');

    expect(questions.length).toBeGreaterThanOrEqual(30);
    expect(temporal.length).toBeGreaterThanOrEqual(10);
    // a short message's fact-bearing sentences are kept together, so the extract is larger than single sentences
    // would be; the engine bounds the state in tokens (see fitState)
    expect(logos.length).toBeLessThanOrEqual(0.4 * inputChars);
    // Counted strictly: each evidence turn has 80% of its content words in ONE entry (or one kept message)
    const units = (texts: readonly string[]) => texts.map((entry) => ({ text: entry, words: contentWords(entry) }));
    const strictlyIn = (kept: readonly string[]) =>
      questions.filter((qa) =>
        qa.evidenceIdx?.every((index) => retained((window[index] as { content: string }).content, units(kept))),
      ).length / questions.length;
    expect(survivingIn(logos, temporal)).toBeGreaterThanOrEqual(0.6);
    expect(survivingIn(logos, questions)).toBeGreaterThanOrEqual(0.5);
    expect(survivingIn(logos, questions)).toBeGreaterThanOrEqual(1.5 * survivingIn(fifo, questions));
    // strictly, a short statement is found whole in one entry for a fifth of the questions (single sentences: 5%)
    expect(strictlyIn(state.logos)).toBeGreaterThanOrEqual(0.2);
  });
});
