import { resolve } from 'node:path';
import { generateText } from 'ai';
import { withContextCompression } from '../adapters/ai-sdk/index.js';
import { assistantTurns, fixturesDir, readSessions, toModelMessages } from '../examples/lib/session-file.js';
import { providerCount, strictModel } from '../test/helpers/strict-provider.js';
import { toTranscript } from '../adapters/ai-sdk/to-transcript.js';

const sessions = readSessions(resolve(fixturesDir()!, 'trajectories.jsonl')).filter((s) => String(s.source).startsWith(process.argv[2] ?? 'mini'));
const factor = Number(process.argv[3] ?? 3);
for (const session of sessions.slice(0, Number(process.argv[4] ?? 3))) {
  const { instructions, messages } = toModelMessages(session);
  const ends = assistantTurns(messages);
  const { model: provider, rejected } = strictModel({ window: 16000, factor });
  const model = withContextCompression(provider, {
    contextWindow: 16000,
    onError: ({ error, fallback }) => console.log('  onError', error.name, fallback, error.message.slice(0, 160)),
  });
  let lastPrompt: any;
  const orig = provider.doGenerate.bind(provider);
  for (const end of ends.slice(0, 60)) {
    const before = rejected.length;
    try {
      await generateText({ model, instructions, messages: messages.slice(0, end), maxRetries: 0 });
    } catch (e) {
      const p = provider.doGenerateCalls.at(-1)!.prompt;
      const roles = p.map((m: any) => m.role[0]).join('');
      const sizes = p.map((m: any) => providerCount([m], factor));
      console.log(`  call end=${end} FAILED; prompt ${p.length} msgs provider=${providerCount(p, factor)} roles=${roles.slice(0,80)} top sizes=${[...sizes].sort((a,b)=>b-a).slice(0,5)}`);
    }
    if (rejected.length > before) console.log(`  end=${end} rejections ${rejected.slice(before)}`);
  }
  console.log(session.id, 'rejections', rejected.length);
}
