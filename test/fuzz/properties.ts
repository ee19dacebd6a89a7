/** The fuzz properties of both adapters, shared by the vitest file and the standalone runner. */
import fc from 'fast-check';
import { aiSdkCase, aiSdkLoopCase, runAiSdkCase, runAiSdkLoopCase } from './ai-sdk-cases.js';
import * as arb from './arbitraries.js';
import type { CaseReport } from './harness.js';
import { langChainCase, langChainLoopCase, runLangChainCase, runLangChainLoopCase } from './langchain-cases.js';
import { newInstanceCase, runAiSdkNewInstance, runLangChainNewInstance } from './new-instance-cases.js';
import { replayCase, runAiSdkReplay, runLangChainReplay } from './replay-cases.js';
import { runAiSdkSequence, runLangChainSequence, sequenceCase } from './sequence-cases.js';

/** One property: cases of an adapter and how to run one. */
export interface FuzzProperty {
  readonly adapter: 'ai-sdk' | 'langchain';
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<unknown>;
  readonly run: (input: unknown) => Promise<CaseReport>;
  /** Relative time of a case; a property runs `runs / cost` cases in the vitest file. */
  readonly cost: number;
}

function property<T>(
  adapter: FuzzProperty['adapter'],
  name: string,
  arbitrary: fc.Arbitrary<T>,
  run: (input: T) => Promise<CaseReport>,
  cost = 1,
): FuzzProperty {
  return { adapter, name, arbitrary, run: (input) => run(input as T), cost };
}

/** Tool loops under the pressure options: folds, masks and recall blocks in the same steps. */
const pressureLoops = {
  conversation: arb.conversation({ maxTurns: 10 }),
  options: arb.pressureOptions,
  replies: arb.replies,
};

export const PROPERTIES: readonly FuzzProperty[] = [
  property('ai-sdk', 'one call (doGenerate, doStream, generateText)', aiSdkCase, runAiSdkCase),
  property('ai-sdk', 'multi-step generateText tool loops', aiSdkLoopCase, runAiSdkLoopCase),
  property('langchain', 'one call (invoke, stream, compressMessages)', langChainCase, runLangChainCase),
  property('langchain', 'multi-step agent loops', langChainLoopCase, runLangChainLoopCase),
  property('ai-sdk', 'whole conversations replayed call by call', replayCase, runAiSdkReplay, 4),
  property('langchain', 'whole conversations replayed call by call', replayCase, runLangChainReplay, 4),
  property('ai-sdk', 'tool loops under pressure (recall, large states)', fc.record(pressureLoops), runAiSdkLoopCase, 2),
  property(
    'langchain',
    'agent loops under pressure (recall, large states)',
    fc.record({ ...pressureLoops, tools: fc.boolean() }),
    runLangChainLoopCase,
    2,
  ),
  property('ai-sdk', 'a new instance after every call', newInstanceCase, runAiSdkNewInstance, 4),
  property('langchain', 'a new instance after every call', newInstanceCase, runLangChainNewInstance, 4),
  property(
    'ai-sdk',
    'call sequences: several messages at once, retries, edits, resends',
    sequenceCase,
    runAiSdkSequence,
    3,
  ),
  property(
    'langchain',
    'call sequences: several messages at once, retries, edits, resends',
    sequenceCase,
    runLangChainSequence,
    3,
  ),
];
