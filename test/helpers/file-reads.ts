/**
 * A tool loop that reads files, shared by the retrieval tool's tests in each framework: a file's content (about 50
 * lines, each naming the file), the model's answers that read `READS` files in turn, and a result found in a prompt.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { textResult } from './mock-model.js';

/** Files the loop reads before the model asks for a hidden result. */
export const READS = 8;

/** The content of a file: 50 lines that each name it, so a result is told apart from another by any line. */
export const fileContent = (path: string) =>
  `// ${path}\n${Array.from({ length: 50 }, (_, line) => `export const value${line} = ${line * 7}; // ${path}`).join('\n')}`;

/** The model's answers reading `src/file0.ts` ... in turn, with call ids `read-0` .... */
export const fileReads = () =>
  Array.from({ length: READS }, (_, step) =>
    textResult(`Reading file ${step}.`, {
      toolCalls: [{ id: `read-${step}`, name: 'read_file', input: { path: `src/file${step}.ts` } }],
    }),
  );

/** The text of the result of `toolCallId` in a prompt, undefined when the prompt has none. */
export function resultText(prompt: LanguageModelV4Prompt, toolCallId: string): string | undefined {
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result' || part.toolCallId !== toolCallId) continue;
      return part.output.type === 'text' ? part.output.value : JSON.stringify(part.output);
    }
  }
  return undefined;
}

/**
 * One of `count` look-alike modules: it imports from two others and defines five functions named after itself
 * (`lumen_amber_<index>_<k>`), so every read of a module shares its words with the others; `notes` lines of comments
 * make it longer.
 */
export const lookAlikeModule = (index: number, count: number, notes = 0) =>
  [
    `import { lumen_amber_${(index % count) + 1}_1 } from './module_${(index % count) + 1}';`,
    `import { lumen_amber_${((index + 5) % count) + 1}_2 } from './module_${((index + 5) % count) + 1}';`,
    ...Array.from({ length: 5 }, (_, k) => `export function lumen_amber_${index}_${k + 1}() { return module(${k}); }`),
    ...Array.from({ length: notes }, (_, line) => `// ${'review notes for this module '.repeat(3)}${line}`),
  ].join('\n');
