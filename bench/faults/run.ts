import { concurrencyRows } from './concurrency.js';
import { FAULT_TIMEOUTS, faults, runFault } from './scenarios.js';

/**
 * The fault table: each fault of a summarizer, a store, a listener, a counter or an embedder, injected into one
 * `generateText` call through `withContextCompression` (a 53-message chat at a 4k window, so the call must fold), and
 * what the user's call got: its outcome and time, what `onError` heard, and whether the prompt stayed clean, paired and
 * under the hard limit.
 */
const rows = [];
for (const fault of faults()) rows.push(await runFault(fault));
console.log(
  `timeouts: summarizer ${FAULT_TIMEOUTS.summarizerTimeoutMs} ms, store ${FAULT_TIMEOUTS.storeTimeoutMs} ms, embedder ${FAULT_TIMEOUTS.embedderTimeoutMs} ms (defaults 30,000 / 2,000 / 10,000)\n`,
);
console.log('| fault | call | ms | onError | fault text in prompt | pairs kept | under hard limit |');
console.log('|---|---|---:|---|---|---|---|');
for (const row of rows) {
  console.log(
    `| ${row.fault} | ${row.outcome} | ${Math.round(row.ms)} | ${row.onError} | ${row.faultTextInPrompt ? 'YES' : 'no'} | ${row.paired ? 'yes' : 'NO'} | ${row.underHardLimit ? 'yes' : 'NO'} |`,
  );
}
console.log('\nConcurrency: 20 parallel calls of one 51-message conversation (4k window), then two conversations that');
console.log('share their first message folded at once and looked up by a fresh engine on the same store.\n');
console.log('| store latency | parallel calls | summarizer calls | distinct prompts | shared-prefix records found |');
console.log('|---|---:|---:|---:|---:|');
const concurrency = await concurrencyRows();
for (const row of concurrency) {
  console.log(
    `| ${row.storeLatency} | ${row.parallelCalls} | ${row.summarizerCalls - 2} (+2 for the shared-prefix pair) | ${row.distinctPrompts} | ${row.sharedPrefixFound} of 2 |`,
  );
}
const bad = rows.filter(
  (row) => row.outcome !== 'answered' || row.faultTextInPrompt || !row.paired || !row.underHardLimit,
);
const torn = concurrency.filter(
  (row) => row.summarizerCalls !== 3 || row.distinctPrompts !== 1 || row.sharedPrefixFound !== 2,
);
process.exitCode = bad.length > 0 || torn.length > 0 ? 1 : 0;
