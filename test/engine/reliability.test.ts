import { describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { StoreError, ToolPairingError } from '../../src/errors.js';
import { eraseStoredState } from '../../src/persistence/erase.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';
import { chat, setup, text } from '../helpers/fixtures.js';

const call = (id: string, name = 'search'): Message => ({
  role: 'assistant',
  parts: [{ type: 'tool-call', id, name, args: { q: id } }],
});
const result = (id: string, output = `result of ${id}`): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: id, name: 'search', output }],
});
const stateText = (messages: readonly Message[]) =>
  messages
    .filter((message) => message.synthetic === 'session-state')
    .map(messageText)
    .join('\n');

/** A store that answers every get and set 1 to `maxDelayMs` milliseconds later, like a store across the network. */
function slowStore(maxDelayMs = 5): StateStore & { inner: ReturnType<typeof memoryStateStore> } {
  const inner = memoryStateStore();
  let turn = 0;
  const later = <T>(value: () => Promise<T>) =>
    new Promise<T>((resolve, reject) =>
      setTimeout(() => value().then(resolve, reject), 1 + ((turn++ * 7) % maxDelayMs)),
    );
  return {
    inner,
    get: (key) => later(() => inner.get(key)),
    set: (key, value, options) => later(() => inner.set(key, value, options)),
  };
}

describe('a failed summary never loses turns for good', () => {
  const failingOnce = () => {
    let calls = 0;
    return async ({ messages }: { messages: readonly Message[] }): Promise<SessionState> => {
      calls++;
      if (calls === 1) throw new Error('model overloaded');
      return { logos: [`summary of ${messages.length} messages`], pathos: [], abstract: [], conversationSummary: 'ok' };
    };
  };

  it('a drop forced by a failed summary is not stored: the next engine on the store summarizes those turns', async () => {
    const store = memoryStateStore();
    const messages = chat(53);
    const first = setup({ store, summarizer: failingOnce() });
    const dropped = await first.run(messages);
    expect(dropped.event?.messagesDropped).toBeGreaterThan(0);
    expect(first.errors.map((event) => event.fallback)).toEqual(['dropped-oldest-turns']);

    const second = setup({ store });
    const out = await second.run(messages);
    expect(second.summarize).toHaveBeenCalledTimes(1);
    expect(out.event?.messagesFolded).toBeGreaterThan(0);
    expect(stateText(out.messages)).not.toContain('could not be summarized');
    expect(stateText(out.messages)).toContain('folded');
  });

  it('the same engine summarizes them once the conversation grew past its back-off', async () => {
    const summarizer = failingOnce();
    let calls = 0;
    const { run } = setup({
      summarizer: (input) => {
        calls++;
        return summarizer(input);
      },
    });
    const messages = chat(53);
    await run(messages);
    expect(calls).toBe(1);
    const later = [...messages, text('assistant', 'Noted.'), ...chat(2).slice(0, 3), text('user', 'And then?')];
    const out = await run(later);
    expect(calls).toBe(2);
    expect(out.event?.messagesFolded).toBeGreaterThan(0);
    expect(stateText(out.messages)).not.toContain('could not be summarized');
  });

  it('until then the prompt goes on from the one the failed call sent: the dropped turns are not sent again', async () => {
    const store = memoryStateStore();
    let failing = true;
    const first = setup({
      store,
      summarizer: async ({ messages }) => {
        if (failing) throw new Error('model overloaded');
        return {
          logos: [`summary of ${messages.length} messages`],
          pathos: [],
          abstract: [],
          conversationSummary: 'ok',
        };
      },
    });
    const messages = chat(53);
    const dropped = await first.run(messages);
    expect(dropped.event?.messagesDropped).toBeGreaterThan(0);
    // the next step on this instance (resting after the failure, no summarizer call), then one on another instance
    // whose summarizer fails too: the same messages stay out, the prompt only grows at its end
    const step = [...messages, text('assistant', 'Noted.')];
    const next = await first.run(step);
    expect(JSON.stringify(next.messages.slice(0, dropped.messages.length))).toBe(JSON.stringify(dropped.messages));
    const second = setup({ store, summarizer: async () => Promise.reject(new Error('still overloaded')) });
    const other = await second.run(step);
    expect(JSON.stringify(other.messages)).toBe(JSON.stringify(next.messages));
    expect(second.errors.map((event) => event.fallback)).toContain('dropped-oldest-turns');
    // once a summarizer works (and this instance's rest after its failure is over), those turns are summarized
    failing = false;
    const out = await first.run([...step, text('user', 'And then?'), text('assistant', 'ok'), text('user', 'More?')]);
    expect(out.event?.messagesFolded).toBeGreaterThan(0);
    expect(stateText(out.messages)).not.toContain('could not be summarized');
  });

  it('sends the dropped turns again, reported, once the prompt fits below the threshold without dropping them', async () => {
    const store = memoryStateStore();
    const failing = setup({
      store,
      summarizer: async () => {
        throw new Error('model overloaded');
      },
    });
    const messages = chat(53);
    const dropped = await failing.run(messages);
    const scope = dropped.event?.decisions[0]?.scope;
    expect(scope?.kind).toBe('messages');
    const cut = scope?.kind === 'messages' ? scope.to : 0;
    // the user edits the message after the drop (a useChat edit): the history is short, nothing needs compressing
    const edited = [...messages.slice(0, cut), text('user', 'Start over: what is 2 + 2?')];
    const fresh = setup({ store });
    const out = await fresh.run(edited);
    expect(out.messages).toHaveLength(edited.length);
    expect(out.event?.decisions.map((decision) => decision.details).join(' ')).toMatch(/are sent again/);
    expect(fresh.events).toHaveLength(1);
    // decided once: the next call of that history reports nothing
    await fresh.run(edited);
    expect(fresh.events).toHaveLength(1);
  });

  it('with folding off, a drop is the design and is kept (the prompt prefix stays stable)', async () => {
    const { run, engine } = setup({ folding: false });
    const messages = chat(53);
    const first = await run(messages);
    expect(first.event?.messagesDropped).toBeGreaterThan(0);
    const next = await engine.compress({
      transcript: { system: [], tools: [], messages: [...messages, text('assistant', 'ok'), text('user', 'more?')] },
      modelId: 'test-model',
    });
    expect(next.event?.messagesDropped ?? 0).toBe(0);
  });
});

describe('stored records are checked before use', () => {
  it('a record whose fold point would split a call from its result is reported and not used', async () => {
    const keys = new Set<string>();
    const inner = memoryStateStore();
    const store: StateStore = {
      get: (key) => inner.get(key),
      set: async (key, value, options) => {
        keys.add(key);
        await inner.set(key, value, options);
      },
    };
    const { run, errors } = setup({ store });
    const messages = [text('user', 'Look it up.'), call('c1'), result('c1'), text('assistant', 'Found.'), ...chat(50)];
    const first = await run(messages);
    expect(first.event?.messagesFolded).toBeGreaterThan(2);
    // a record of another writer: the fold point on the tool result, between the call and its result
    for (const key of keys) {
      const record = (await inner.get(key)) as { coveredCount?: number } | undefined;
      if (key.includes(':state:') && record) await inner.set(key, { ...record, coveredCount: 2 });
    }
    const out = await run(messages);
    const invalid = errors.filter(
      (event) => StoreError.isInstance(event.error) && event.error.reason === 'invalid-record',
    );
    expect(invalid).toHaveLength(1);
    expect(invalid[0]?.error.message).toContain('would separate a tool call from its result');
    expect(findPairingProblems(out.messages)).toEqual([]);
    expect(out.messages.some((message) => message.synthetic === 'session-state')).toBe(true);
  });

  it('a value of another shape is reported as an invalid record and the call goes on', async () => {
    const values = new Map<string, unknown>();
    const store: StateStore = {
      get: async (key) => values.get(key),
      set: async (key, value) => {
        // a store that forgets to parse what it stringified
        values.set(key, JSON.stringify(value));
      },
    };
    const { run, errors } = setup({ store });
    const messages = chat(50);
    await run(messages);
    const out = await run(messages);
    expect(out.messages.some((message) => message.synthetic === 'session-state')).toBe(true);
    const invalid = errors.filter(
      (event) => StoreError.isInstance(event.error) && event.error.reason === 'invalid-record',
    );
    expect(invalid.length).toBeGreaterThan(0);
    expect(invalid[0]?.fallback).toBe('without-store');
    expect(invalid[0]?.error.message).toContain('returned a string');
  });
});

describe('unpaired tool calls and results in the caller history', () => {
  it('an orphan result, a result before its call and a call never answered are left out and reported', async () => {
    const { run, errors } = setup();
    const messages = [
      text('user', 'Start.'),
      result('ghost'),
      text('assistant', 'Hm.'),
      text('user', 'Go on.'),
      result('early'),
      call('early'),
      text('user', 'And?'),
      call('ok'),
      result('ok'),
      result('ok', 'again'),
      text('assistant', 'Done.'),
      text('user', 'Thanks.'),
    ];
    const frozen = JSON.stringify(messages);
    const out = await run(messages);
    expect(findPairingProblems(out.messages)).toEqual([]);
    expect(JSON.stringify(messages)).toBe(frozen);
    const pairing = errors.filter((event) => ToolPairingError.isInstance(event.error));
    expect(pairing).toHaveLength(1);
    expect(pairing[0]?.fallback).toBe('left-out-unpaired');
    expect((pairing[0]?.error as ToolPairingError | undefined)?.issues).toEqual([
      { kind: 'orphan-result', messageIndex: 1, toolCallId: 'ghost' },
      { kind: 'result-before-call', messageIndex: 4, toolCallId: 'early' },
      { kind: 'call-without-result', messageIndex: 5, toolCallId: 'early' },
      { kind: 'duplicate-result', messageIndex: 9, toolCallId: 'ok' },
    ]);
    // the paired call and its first result stay; messages left empty are left out
    expect(out.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
  });

  it('calls of the last message still waiting for their results stay, without a report', async () => {
    const { run, errors } = setup();
    const messages = [text('user', 'Search.'), call('a'), result('a'), { ...call('b') }];
    const out = await run(messages);
    expect(errors).toEqual([]);
    expect(out.messages.at(-1)).toBe(messages.at(-1));
  });

  it('a call never answered in the middle no longer blocks folding: the prompt gets under the hard limit', async () => {
    const { run } = setup();
    const messages = [text('user', 'Start.'), call('stuck'), ...chat(55)];
    const out = await run(messages);
    expect(out.estimatedTokens).toBeLessThanOrEqual(0.85 * 3_500);
    expect(out.event?.messagesFolded).toBeGreaterThan(0);
  });
});

describe('concurrent calls of one conversation', () => {
  it('20 parallel calls on a store that answers later make one summarizer call and send one prompt', async () => {
    const store = slowStore(5);
    let summaries = 0;
    const { run } = setup({
      store,
      summarizer: async ({ messages }) => {
        summaries++;
        // a different text every time: parallel prompts would differ if each call summarized
        return {
          logos: [`${messages.length} folded, ${Math.random()}`],
          pathos: [],
          abstract: [],
          conversationSummary: '',
        };
      },
    });
    const messages = chat(51);
    const outs = await Promise.all(Array.from({ length: 20 }, () => run(messages.map((message) => ({ ...message })))));
    expect(summaries).toBe(1);
    const prompts = new Set(outs.map((out) => JSON.stringify(out.messages.map(messageText))));
    expect(prompts.size).toBe(1);
    // and a later call finds the stored state, whole
    const later = await run(messages);
    expect(JSON.stringify(later.messages.map(messageText))).toBe([...prompts][0]);
    expect(summaries).toBe(1);
  });

  it('conversations sharing their first message, folding at once on a slow store, keep both index entries', async () => {
    const store = slowStore(3);
    const { run } = setup({ store });
    const a = chat(51);
    const b = [
      ...chat(1),
      ...chat(50)
        .slice(1)
        .map((message) => ({ ...message, parts: [{ type: 'text' as const, text: `other ${messageText(message)}` }] })),
    ];
    await Promise.all([run(a), run(b)]);
    const fresh = setup({ store });
    const [outA, outB] = await Promise.all([fresh.run(a), fresh.run(b)]);
    expect(fresh.summarize).not.toHaveBeenCalled();
    expect(outA.event?.reusedState ?? true).toBe(true);
    expect(outB.messages.some((message) => message.synthetic === 'session-state')).toBe(true);
  });
});

describe('tenants', () => {
  it('records of one namespace are never read by another, keys hold no text, and erasure deletes a namespace', async () => {
    const store = memoryStateStore();
    const written: string[] = [];
    const spying: StateStore = {
      get: (key) => store.get(key),
      set: async (key, value, options) => {
        written.push(key);
        await store.set(key, value, options);
      },
    };
    const acme = setup({ store: spying, namespace: 'acme' });
    const messages = chat(51);
    await acme.run(messages, { namespace: 'user-1' });
    await acme.run(messages, { namespace: 'user-2' });
    const other = setup({ store: spying, namespace: 'globex' });
    await other.run(messages, { namespace: 'user-1' });
    expect(other.summarize).toHaveBeenCalledTimes(1);
    for (const key of written) expect(key).toMatch(/^cc:\d+:[0-9a-z]+:[0-9a-z]+:(state|index|recall):[0-9a-z:]+$/);
    expect(written.join(' ')).not.toMatch(/Message|word|acme|user-1/);

    expect(await eraseStoredState(store, { namespace: 'acme', callNamespace: 'user-1' })).toBeGreaterThan(0);
    const again = setup({ store, namespace: 'acme' });
    await again.run(messages, { namespace: 'user-1' });
    expect(again.summarize).toHaveBeenCalledTimes(1);
    await again.run(messages, { namespace: 'user-2' });
    expect(again.summarize).toHaveBeenCalledTimes(1);

    const before = store.size;
    expect(await eraseStoredState(store, { namespace: 'acme' })).toBeGreaterThan(0);
    expect(store.size).toBeLessThan(before);
    const globex = setup({ store, namespace: 'globex' });
    await globex.run(messages, { namespace: 'user-1' });
    expect(globex.summarize).not.toHaveBeenCalled();
  });

  it('erasing needs a store that can delete by prefix', async () => {
    await expect(eraseStoredState({ get: async () => undefined, set: async () => {} })).rejects.toThrow(/deletePrefix/);
  });
});

describe('a fold never grows the prompt', () => {
  it('a turn whose only fold points pin its long user message is not folded at a loss', async () => {
    const engine = new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      triggers: { semantic: false, staleness: false },
      masking: false,
    });
    const messages: Message[] = [text('user', `Please review: ${'long request '.repeat(800)}`)];
    for (let step = 0; step < 6; step++) messages.push(call(`s${step}`), result(`s${step}`, 'small'));
    const out = await engine.compress({ transcript: { system: [], tools: [], messages }, modelId: 'test-model' });
    const before = await new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      folding: false,
      masking: false,
      triggers: { semantic: false, staleness: false },
    }).compress({ transcript: { system: [], tools: [], messages }, modelId: 'test-model' });
    expect(out.estimatedTokens).toBeLessThanOrEqual(before.estimatedTokens);
  });
});
