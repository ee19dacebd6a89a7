import { resolve } from 'node:path';
import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import type { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { slidingWindowMasking } from '../../bench/baselines/sliding-window-masking.js';
import { distinctiveTokens, neededLater, replayPrompts } from '../../bench/needed-later.js';
import {
  fixturesDir,
  readSessions,
  type SessionFile,
  type SessionFileMessage,
} from '../../examples/lib/session-file.js';

type Hide = (call: number, result: { toolCallId: string; text: string }) => 'mask' | 'drop' | undefined;

/** A system that masks or drops the tool results `hide` picks at each call (calls counted from 0). */
function hiding(hide: Hide): (model: MockLanguageModelV4) => LanguageModelV4 {
  let call = -1;
  return (model) =>
    wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v4',
        transformParams: async ({ params }) => {
          call++;
          const prompt = params.prompt
            .map((message) => {
              if (message.role !== 'tool') return message;
              const content = message.content.flatMap((part) => {
                if (part.type !== 'tool-result' || part.output.type !== 'text') return [part];
                const how = hide(call, { toolCallId: part.toolCallId, text: part.output.value });
                if (how === 'drop') return [];
                if (how === 'mask')
                  return [{ ...part, output: { type: 'text' as const, value: '[cleared to save context]' } }];
                return [part];
              });
              return { ...message, content };
            })
            .filter((message) => message.role !== 'tool' || message.content.length > 0) as LanguageModelV4Prompt;
          return { ...params, prompt };
        },
      },
    });
}

function assistant(content: string, id?: string, command?: string): SessionFileMessage {
  return id
    ? { role: 'assistant', content, toolCalls: [{ id, name: 'bash', args: { command } }] }
    : { role: 'assistant', content };
}

function tool(id: string, content: string): SessionFileMessage {
  return { role: 'tool', content, toolCallId: id, toolName: 'bash' };
}

/**
 * Calls (prompt = history before each assistant turn): call 0 sees the task, call 1 also c1's result, call 2 also c2's,
 * call 3 also c3's, call 4 also c4's. The answer to call 3 edits c1's file; the answer to call 4 names c3's error.
 */
const session: SessionFile = {
  id: 'hand/parser',
  messages: [
    { role: 'system', content: 'You are a coding agent. Run one command per turn.' },
    { role: 'user', content: 'Fix the crash when the server parses a malformed request line.' },
    assistant('Let me find the parser.', 'c1', 'grep -rn parse_header src'),
    tool(
      'c1',
      'src/net/header_parser.py:42: def parse_header(raw):\nsrc/net/header_parser.py:57:     return decode_line(raw)',
    ),
    assistant('Let me read the configuration.', 'c2', 'cat config.yaml'),
    tool('c2', 'timeout: 30\nretries: 5\nlog_level: debug\nmax_line_bytes: 8190'),
    assistant('Let me run the tests.', 'c3', 'python -m pytest tests'),
    tool('c3', 'FAILED tests/test_request.py::test_bad_line - HeaderDecodeError: bad byte 0xff at offset 1187'),
    assistant('The decoder is too strict; fix it.', 'c4', "sed -i 's/strict/replace/' src/net/header_parser.py"),
    tool('c4', ''),
    assistant('Done: the parser no longer raises HeaderDecodeError on malformed request lines.'),
  ],
};

async function measure(target: SessionFile, hide: Hide) {
  return neededLater(target, await replayPrompts(target, hiding(hide)));
}

describe('distinctiveTokens', () => {
  it('keeps paths, identifiers, error names and long numbers, and drops plain words and short numbers', () => {
    const tokens = distinctiveTokens(
      'Traceback in astropy/table/table.py:1234: FutureWarning from data_is_mixin via np.ndarray; ValueError, ' +
        'FooException, HAT023 on 2024-05-26 costs 1.25 for 200 rows, 0 or 1 of them. The Column table THOUGHT non-test',
    );
    for (const token of [
      'astropy/table/table.py',
      'table.py',
      '1234',
      'FutureWarning',
      'data_is_mixin',
      'np.ndarray',
      'ValueError',
      'FooException',
      'HAT023',
      '2024-05-26',
      '1.25',
    ]) {
      expect(tokens).toContain(token);
    }
    for (const token of ['Traceback', 'table', 'Column', 'THOUGHT', 'non-test', 'the', '200', '0', '1', 'py']) {
      expect(tokens).not.toContain(token);
    }
  });

  it('reads tokens out of JSON outputs', () => {
    const tokens = distinctiveTokens('{"reservation_id": "K1NW8N", "email": "mohamed.silva9198@example.com"}');
    expect(tokens).toContain('K1NW8N');
    expect(tokens).toContain('mohamed.silva9198@example.com');
  });
});

describe('neededLater', () => {
  it('counts a hidden observation whose rare path the agent uses later, and not one never referenced', async () => {
    // c1 masked from call 2 on: the answer to call 3 edits src/net/header_parser.py. c2 masked from call 3 on: its
    // log_level / max_line_bytes never come back. c3 and c4 stay visible.
    const result = await measure(session, (call, { toolCallId }) =>
      (toolCallId === 'c1' && call >= 2) || (toolCallId === 'c2' && call >= 3) ? 'mask' : undefined,
    );
    expect(result).toEqual({ hidden: 2, neededLater: 1, rate: 0.5 });
  });

  it('does not count an observation that is never hidden', async () => {
    expect(await measure(session, () => undefined)).toEqual({ hidden: 0, neededLater: 0, rate: 0 });
    const onlyC2 = await measure(session, (call, { toolCallId }) =>
      toolCallId === 'c2' && call >= 2 ? 'mask' : undefined,
    );
    expect(onlyC2).toEqual({ hidden: 1, neededLater: 0, rate: 0 });
  });

  it('counts uses from the answer to the first hiding call on, not before', async () => {
    // c1 hidden only at the last call: its path was used by the answer to call 3, before it was hidden.
    expect(
      await measure(session, (call, { toolCallId }) => (toolCallId === 'c1' && call === 4 ? 'mask' : undefined)),
    ).toEqual({ hidden: 1, neededLater: 0, rate: 0 });
    // c3 hidden at the last call: the answer to that very call names HeaderDecodeError.
    expect(
      await measure(session, (call, { toolCallId }) => (toolCallId === 'c3' && call === 4 ? 'mask' : undefined)),
    ).toEqual({ hidden: 1, neededLater: 1, rate: 1 });
  });

  it('detects an observation hidden by folding (absent from the prompt)', async () => {
    const result = await measure(session, (call, { toolCallId }) =>
      toolCallId === 'c1' && call >= 2 ? 'drop' : undefined,
    );
    expect(result).toEqual({ hidden: 1, neededLater: 1, rate: 1 });
  });

  it('ignores common words, short numbers, task names, tokens the agent already wrote and tokens of many outputs', async () => {
    const common: SessionFile = {
      id: 'hand/common',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Make request_handler in src/app/server.py return status 200.' },
        assistant('Check the handler.', 'a', 'grep -n request_handler src/app/server.py'),
        tool('a', 'src/app/server.py:10: def request_handler(req): the handler returns status 500 with shared_helper'),
        assistant('Look at the helper.', 'b', 'grep -n helper src/app/util.py'),
        tool('b', 'src/app/util.py:3: shared_helper is defined here'),
        assistant('Look at its callers.', 'c', 'grep -rn called src'),
        tool('c', 'src/app/jobs.py:8: shared_helper called'),
        assistant('Run it.', 'd', 'python -m app'),
        tool('d', 'ok'),
        // Reuses only plain words, a short number, task names (request_handler, src/app/server.py), a token it wrote
        // before (src/app/util.py) and shared_helper, which is in 3 outputs.
        assistant(
          'The handler returns status 500; shared_helper and request_handler in src/app/server.py.',
          'e',
          'sed -i s/500/200/ src/app/server.py src/app/util.py',
        ),
        tool('e', ''),
      ],
    };
    const result = await measure(common, (call, { toolCallId }) =>
      ['a', 'b', 'c'].includes(toolCallId) && call >= 4 ? 'mask' : undefined,
    );
    expect(result).toEqual({ hidden: 3, neededLater: 0, rate: 0 });
  });

  it('counts an observation without distinctive tokens as hidden, never needed later', async () => {
    const result = await measure(session, (_call, { toolCallId }) => (toolCallId === 'c4' ? 'mask' : undefined));
    // c4's output is empty: masking it changes the text, so it is hidden, with nothing to need.
    expect(result).toEqual({ hidden: 1, neededLater: 0, rate: 0 });
  });

  it('identifies observations by position when tool call ids are reused', async () => {
    const reused: SessionFile = {
      id: 'hand/reused',
      messages: [
        { role: 'user', content: 'Book the cheapest flight.' },
        assistant('', 'call_1', 'search JFK SFO'),
        tool('call_1', '{"flight_number": "HAT023", "price": 1210}'),
        assistant('', 'call_1', 'search JFK SEA'),
        tool('call_1', '{"flight_number": "HAT777", "price": 1650}'),
        assistant('', 'book', 'book HAT023'),
        tool('book', '{"status": "booked"}'),
        assistant('Booked.'),
      ],
    };
    // Only the second result with the reused id is masked; the first stays verbatim.
    const second = await measure(reused, (call, { text }) =>
      text.includes('HAT777') && call >= 2 ? 'mask' : undefined,
    );
    expect(second).toEqual({ hidden: 1, neededLater: 0, rate: 0 });
    const first = await measure(reused, (call, { text }) =>
      text.includes('HAT023') && call >= 2 ? 'mask' : undefined,
    );
    expect(first).toEqual({ hidden: 1, neededLater: 1, rate: 1 });
  });

  it('gives the expected counts and tokens for a fixed hiding rule', async () => {
    const hide: Hide = (call, { toolCallId }) => (call >= 3 && toolCallId !== 'c4' ? 'mask' : undefined);
    const prompts = await replayPrompts(session, hiding(hide));
    expect(neededLater(session, prompts)).toMatchInlineSnapshot(`
      {
        "hidden": 3,
        "neededLater": 2,
        "rate": 0.6666666666666666,
      }
    `);
    expect(await measure(session, hide)).toMatchInlineSnapshot(`
      {
        "hidden": 3,
        "neededLater": 2,
        "rate": 0.6666666666666666,
      }
    `);
    expect([...distinctiveTokens(session.messages[3]?.content ?? '')]).toMatchInlineSnapshot(`
      [
        "src/net/header_parser.py:42",
        "src/net/header_parser.py",
        "header_parser.py",
        "header_parser",
        "parse_header",
        "src/net/header_parser.py:57",
        "decode_line",
      ]
    `);
  });

  it('rejects more prompts than assistant turns', () => {
    expect(() =>
      neededLater(
        session,
        Array.from({ length: 6 }, () => []),
      ),
    ).toThrow(/6 prompts for 5 assistant turns/);
  });
});

describe('neededLater on the fixture trajectories', () => {
  const dir = fixturesDir();
  if (!dir)
    console.log('skipped: no shared fixtures folder (../shared/fixtures/trajectories.jsonl) beside the checkout');

  it.skipIf(!dir)(
    'sliding-window masking hides observations the agent needs later; no compression hides none',
    async () => {
      const sessions = readSessions(resolve(dir ?? '.', 'trajectories.jsonl'));
      let hidden = 0;
      let needed = 0;
      for (const target of sessions) {
        const masked = neededLater(
          target,
          await replayPrompts(target, (model) => wrapLanguageModel({ model, middleware: slidingWindowMasking() })),
        );
        hidden += masked.hidden;
        needed += masked.neededLater;
        expect(neededLater(target, await replayPrompts(target, (model) => model)).hidden).toBe(0);
      }
      const rate = needed / hidden;
      console.log(
        `needed-later rate of sliding-window masking (keep 10) over ${sessions.length} trajectories: ` +
          `${needed}/${hidden} = ${rate.toFixed(3)}`,
      );
      expect(rate).toBeGreaterThan(0);
      expect(rate).toBeLessThan(1);
    },
  );
});
