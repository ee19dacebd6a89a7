import { tool as aiTool, generateText, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { redactionTool as aiRedactionTool, retrievalTool as aiRetrievalTool } from '../../adapters/ai-sdk/index.js';
import {
  redactionTool as langChainRedactionTool,
  retrievalTool as langChainRetrievalTool,
} from '../../adapters/langchain/index.js';
import { toolDefinitions } from '../../adapters/langchain/to-transcript.js';
import { findOwnTools } from '../../src/strategies/own-tools.js';
import { renderRetrievalAnswer, retrievalAnswer } from '../../src/strategies/retrieval-tool.js';
import type { Message } from '../../src/transcript/transcript.js';
import { lookAlikeModule } from '../helpers/file-reads.js';
import { textResult } from '../helpers/mock-model.js';

const call = (id: string, name: string, args: unknown): Message => ({
  role: 'assistant',
  parts: [{ type: 'tool-call', id, name, args }],
});
const result = (id: string, name: string, output: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: id, name, output }],
});

const CONFIG = `{\n  "port": 8080,\n  "host": "db.internal"\n}`;
const LOG = Array.from({ length: 400 }, (_, line) => `line ${line}: request handled in ${line % 17} ms`).join('\n');
const history: Message[] = [
  { role: 'user', parts: [{ type: 'text', text: 'Why is the service slow?' }] },
  call('c1', 'read_file', { path: 'config.json' }),
  result('c1', 'read_file', CONFIG),
  call('c2', 'bash', { command: 'tail -n 400 service.log' }),
  result('c2', 'bash', LOG),
];

describe('retrievalAnswer', () => {
  it('gives back the named results verbatim, in the order asked, and says which ids name nothing', () => {
    const answer = retrievalAnswer(history, { toolCallIds: ['c1', 'zzz'] });
    expect(answer.results).toEqual([{ toolCallId: 'c1', toolName: 'read_file', output: CONFIG }]);
    expect(answer.missing).toEqual([{ toolCallId: 'zzz', reason: 'no earlier tool result has this id' }]);
    expect(answer.message).toMatch(/Retrieved 1 tool result \(c1\) verbatim\. Not found: zzz\./);
    const text = renderRetrievalAnswer(answer);
    expect(text).toContain(`<tool_result id="c1" tool="read_file">\n${CONFIG}\n</tool_result>`);
  });

  it('pages a long answer at line ends; the pages put together are the original', () => {
    const pages: string[] = [];
    let answer = retrievalAnswer(history, { toolCallIds: ['c2'] }, { pageChars: 3_000 });
    expect(answer.pages).toBeGreaterThan(3);
    for (let page = 1; page <= answer.pages; page++) {
      answer = retrievalAnswer(history, { toolCallIds: ['c2'], page }, { pageChars: 3_000 });
      expect(answer.page).toBe(page);
      for (const piece of answer.results) {
        expect(piece.output.length).toBeLessThanOrEqual(3_000);
        expect(piece.part).toBe(`${page}/${answer.pages}`);
        pages.push(piece.output);
      }
      if (page < answer.pages) expect(answer.message).toContain(`page: ${page + 1}`);
    }
    expect(pages.join('')).toBe(LOG);
    expect(pages.slice(0, -1).every((piece) => piece.endsWith('\n'))).toBe(true);
  });

  it('finds results by a query when the model does not know their ids', () => {
    const answer = retrievalAnswer(history, { toolCallIds: [], query: 'db.internal port' });
    expect(answer.results[0]?.toolCallId).toBe('c1');
    expect(retrievalAnswer(history, { toolCallIds: [], query: 'kubernetes' }).message).toMatch(
      /No earlier tool result/,
    );
  });

  it('explains what is wrong with a bad request instead of throwing', () => {
    expect(retrievalAnswer(history, { toolCallIds: [] }).message).toMatch(
      /Name 1 or more tool call ids, or give a query/,
    );
    expect(retrievalAnswer(history, { toolCallIds: 'c1' }).message).toMatch(/The request is invalid: toolCallIds/);
    expect(retrievalAnswer(history, { toolCallIds: Array.from({ length: 30 }, (_, i) => `c${i}`) }).message).toMatch(
      /at most 20 tool call ids at once \(got 30\)/,
    );
    expect(retrievalAnswer(history, { toolCallIds: ['c1'], page: 9 }).message).toMatch(/There is no page 9/);
  });
});

describe('retrieval tool options and queries', () => {
  it('rejects a page smaller than 200 characters when the tool is made', () => {
    expect(() => aiRetrievalTool({ pageChars: 1 })).toThrow(/Invalid option `pageChars`: must be a whole number/);
    expect(() => langChainRetrievalTool({ pageChars: 10.5 })).toThrow(/at least 200 \(got 10.5\)/);
  });

  it('finds first the result that holds what the query names: a path, a file name, an identifier', () => {
    // twenty reads of look-alike modules, each importing from others: their words are all shared
    const module = (index: number) => lookAlikeModule(index, 20);
    const reads: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Review the modules.' }] },
      ...Array.from({ length: 20 }, (_, index) => [
        call(`r${index + 1}`, 'readFile', { path: `src/module_${index + 1}.ts` }),
        result(`r${index + 1}`, 'readFile', module(index + 1)),
      ]).flat(),
    ];
    const first = (query: string) => retrievalAnswer(reads, { toolCallIds: [], query }).results[0]?.toolCallId;

    expect(first('src/module_2.ts')).toBe('r2');
    expect(first('module_2.ts')).toBe('r2');
    expect(first('/work/repo/src/module_12.ts')).toBe('r12');
    expect(first('lumen_amber_3_5')).toBe('r3');
    expect(first('where is LUMEN_AMBER_16_4 defined')).toBe('r16');
    // a name inside a longer one is not the name: module_1 is not in module_11
    expect(first('src/module_1.ts')).toBe('r1');
  });

  it('finds the original result by a query, not an earlier retrieval answer that quotes it', () => {
    const earlier = renderRetrievalAnswer(retrievalAnswer(history, { toolCallIds: ['c1'] }));
    const withAnswer: Message[] = [
      ...history,
      call('r1', 'get_back', { toolCallIds: ['c1'] }),
      result('r1', 'get_back', earlier),
    ];
    const answer = retrievalAnswer(withAnswer, { toolCallIds: [], query: 'db.internal port' });
    expect(answer.results.map((entry) => entry.toolCallId)).toEqual(['c1']);
  });
});

describe('findOwnTools', () => {
  it('recognizes the AI SDK tools under any name, by their schemas', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: async () => textResult('ok') });
    const tools: ToolSet = {
      get_back: aiRetrievalTool(),
      forget: aiRedactionTool({ description: 'My own words.' }),
      read_file: aiTool({ description: 'Reads', inputSchema: z.object({ toolCallIds: z.array(z.string()) }) }),
    };
    await generateText({ model: mock, prompt: 'Go.', tools });
    expect(findOwnTools(mock.doGenerateCalls[0]?.tools ?? [])).toEqual({ retrieval: 'get_back', redaction: 'forget' });
  });

  it('recognizes the LangChain tools under any name, by their schemas', () => {
    const definitions = toolDefinitions([
      langChainRetrievalTool({ name: 'fetch_hidden' }),
      langChainRedactionTool({ name: 'drop_results' }),
    ]);
    expect(findOwnTools(definitions)).toEqual({ retrieval: 'fetch_hidden', redaction: 'drop_results' });
    expect(findOwnTools([])).toEqual({});
  });
});
