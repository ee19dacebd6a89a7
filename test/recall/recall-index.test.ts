import { describe, expect, it } from 'vitest';
import { hash53, hashChain } from '../../src/counting/hash.js';
import { RecallIndex } from '../../src/recall/recall-index.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';

const text = (role: Message['role'], body: string): Message => ({ role, parts: [{ type: 'text', text: body }] });
const hashesOf = (messages: readonly Message[]) => {
  const hashes = [hash53('')];
  for (const message of messages) hashes.push(hashChain(hashes.at(-1) as number, hash53(messageText(message))));
  return hashes;
};
const search = (index: RecallIndex, messages: Message[], query: string, through = messages.length) =>
  index
    .search({
      conversation: 'c',
      messages,
      prefixHashes: hashesOf(messages),
      through,
      query,
      keep: () => true,
    })
    .map((hit) => hit.chunk.text);

const history = [
  text('user', 'My sister lives in Lisbon and teaches violin.'),
  text('assistant', 'Lisbon is lovely in spring.'),
  text('user', 'I painted a sunset over the harbour last week.'),
  text('assistant', 'What colours did you use?'),
  text('user', 'Mostly orange and a deep blue.'),
];

describe('the recall index', () => {
  it('ranks first the chunk holding what the message names verbatim, a path or an identifier', () => {
    // look-alike reads: every one shares the words `module`, `lumen`, `amber` and small numbers
    const reads: Message[] = [text('user', 'Review the modules.')];
    for (let index = 1; index <= 20; index++) {
      reads.push(text('assistant', `Reading module ${index}.`));
      reads.push(
        text(
          'tool',
          [
            `// src/module_${index}.ts`,
            `import { lumen_amber_${(index % 20) + 1}_1 } from './module_${(index % 20) + 1}';`,
            ...Array.from({ length: 5 }, (_, k) => `export function lumen_amber_${index}_${k + 1}() {}`),
          ].join('\n'),
        ),
      );
    }
    for (const connect of [false, true]) {
      const first = (query: string) =>
        new RecallIndex().search({
          conversation: 'c',
          messages: reads,
          prefixHashes: hashesOf(reads),
          through: reads.length,
          query,
          keep: () => true,
          connect,
        })[0]?.chunk.text;
      expect(first('Now rename lumen_amber_3_5 please')).toContain('// src/module_3.ts');
      expect(first('What does src/module_2.ts export?')).toContain('// src/module_2.ts');
    }
  });

  it('ranks the message that shares the rare terms first; stop words and word forms do not matter', () => {
    const index = new RecallIndex();
    expect(search(index, history, 'What did I paint?')[0]).toBe('I painted a sunset over the harbour last week.');
    expect(search(index, history, 'Where does my sister live?')[0]).toBe(
      'My sister lives in Lisbon and teaches violin.',
    );
    // only stop words: nothing to match
    expect(search(index, history, 'what is it that they were')).toEqual([]);
  });

  it('finds an answer by the question before it, ranked below the turn that holds the words', () => {
    const hits = search(new RecallIndex(), history, 'Which colours did I use?');
    expect(hits[0]).toBe('What colours did you use?');
    expect(hits).toContain('Mostly orange and a deep blue.');
  });

  it('follows what its best match names to another turn about it (a second hop)', () => {
    const spread = [
      text('user', 'I moved here from my home country four years ago.'),
      text('assistant', 'That is a big change.'),
      text('user', 'This necklace is from my grandma, back in my home country, Sweden.'),
      text('assistant', 'It is beautiful.'),
      text('user', 'Thank you.'),
      text('assistant', 'You are welcome.'),
      text('user', 'The weather turned cold today.'),
    ];
    const hits = search(new RecallIndex(), spread, 'Where did I move from?');
    expect(hits[0]).toBe('I moved here from my home country four years ago.');
    expect(hits).toContain('This necklace is from my grandma, back in my home country, Sweden.');
    expect(hits).not.toContain('The weather turned cold today.');
  });

  it('ranks the turns of the person a question names above the same words from someone else', () => {
    const chat = [
      text('user', 'Caroline: The park by the river is my favourite park, the park cafe too.'),
      text('assistant', 'Melanie: We took the kids to the park on Sunday.'),
      text('user', 'Caroline: The weather turned cold today.'),
      text('assistant', 'Melanie: Note: bring coats.'),
    ];
    const melanie = 'Melanie: We took the kids to the park on Sunday.';
    const caroline = 'Caroline: The park by the river is my favourite park, the park cafe too.';
    const order = (query: string) => {
      const hits = search(new RecallIndex(), chat, query);
      return [hits.indexOf(melanie), hits.indexOf(caroline)];
    };
    const [melanieFirst, carolineSecond] = order('What did Melanie do at the park?');
    expect(melanieFirst).toBeLessThan(carolineSecond as number);
    const [melanieSecond, carolineFirst] = order('What did Caroline say about the park?');
    expect(carolineFirst).toBeLessThan(melanieSecond as number);
    // the asker's own label names no one: Bob asking about Caroline gets Caroline's turns first, not his own
    const three = [
      ...chat,
      text('user', 'Caroline: I walk in the park every day, the park is big.'),
      text('assistant', 'Bob: The park gate was closed.'),
      text('assistant', 'Bob: Nice.'),
    ];
    const hits = search(new RecallIndex(), three, 'Bob: What did Caroline say about the park?');
    expect(hits.slice(0, 2).sort()).toEqual(['Caroline: I walk in the park every day, the park is big.', caroline]);
  });

  it('knows the two people of a chat without labels by the names each calls the other', () => {
    const chat = [
      text('user', 'Hey Mel! How are you?'),
      text('assistant', 'Hi Caroline! We took the kids to the park on Sunday.'),
      text('user', 'Thanks, Mel! The park by the river is my favourite park, the park cafe too.'),
      text('assistant', 'Sounds lovely.'),
      text('user', 'It is.'),
      text('assistant', 'Bring coats, Caroline!'),
    ];
    const melanie = 'Hi Caroline! We took the kids to the park on Sunday.';
    const caroline = 'Thanks, Mel! The park by the river is my favourite park, the park cafe too.';
    const first = (messages: Message[], query: string) => search(new RecallIndex(), messages, query)[0];
    // "Mel" is what Caroline calls her: Melanie is the assistant's side, though Caroline's turn says "park" more
    expect(first(chat, 'What did Melanie do at the park?')).toBe(melanie);
    expect(first(chat, 'What did Caroline say about the park?')).toBe(caroline);
    // a name called once is no one's yet: the words alone decide
    const once = [text('user', 'How are you?'), chat[1] as Message, chat[2] as Message, text('assistant', 'Coats!')];
    expect(first(once, 'What did Melanie do at the park?')).toBe(caroline);
  });

  it('searches a chat question for what it asks, not for the names of the people who speak', () => {
    // short turns that only open with a name, or call someone by it, would outrank what was said about the pottery
    const chat = [
      text('user', 'Caroline: Thanks, Melanie!'),
      text('assistant', 'Melanie: Glad it helped, Caroline!'),
      text('user', 'Caroline: Caroline here, hi Melanie!'),
      text('assistant', 'Melanie: Hey Caroline!'),
      text(
        'user',
        'Caroline: I signed up for a pottery class, and the clay bowls I made came out of the kiln cracked.',
      ),
      text('assistant', 'Melanie: Oh no, cracked bowls! Mine cracked in the kiln too.'),
    ];
    const hits = search(new RecallIndex(), chat, "What did Caroline's pottery class teach her?");
    expect(hits[0]).toBe(chat[4]?.parts[0]?.type === 'text' ? chat[4].parts[0].text : '');
    // a greeting that shares nothing but a name is not found at all
    expect(hits).not.toContain('Caroline: Caroline here, hi Melanie!');
    expect(hits).not.toContain('Caroline: Thanks, Melanie!');
    // outside a chat question (no second hop: a tool loop's search) the words are searched as they are
    const plain = new RecallIndex()
      .search({
        conversation: 'c',
        messages: chat,
        prefixHashes: hashesOf(chat),
        through: chat.length,
        query: 'Caroline',
        keep: () => true,
        connect: false,
      })
      .map((hit) => hit.chunk.text);
    expect(plain).toContain('Caroline: Caroline here, hi Melanie!');
  });

  it('answers a question for a kind of thing with the turns that name one, though they share no word with it', () => {
    const chat = [
      text('user', 'Tim: I went to a castle in Edinburgh last spring, the architecture was unbelievable.'),
      text('assistant', 'John: Our team has been training hard for the season.'),
      text('user', 'Tim: I have been reading a lot about dragons lately.'),
      text('assistant', 'John: Thanks, Tim! Which one did you like best?'),
      text('user', 'Tim: Thanks, John! The weather has been great for walks.'),
      text('assistant', 'John: My coach says the games we play next are tough.'),
    ];
    const hits = search(new RecallIndex(), chat, 'Which cities has Tim been to?');
    // Edinburgh's turn shares no word with the question; it comes first among Tim's turns
    const tims = hits.filter((hit) => hit.startsWith('Tim:'));
    expect(tims[0]).toBe('Tim: I went to a castle in Edinburgh last spring, the architecture was unbelievable.');
  });

  it('finds a chat turn by the topic two turns before it, and a tool result only by its call', () => {
    const chat = [
      text('user', 'I will always remember the meteor shower on our camping trip.'),
      text('assistant', 'Wow! Tell me more?'),
      text('user', 'I felt tiny and in awe of the universe.'),
      text('assistant', 'The bakery on the corner opened again.'),
      text('user', 'Their bread is good.'),
    ];
    const answer = 'I felt tiny and in awe of the universe.';
    expect(search(new RecallIndex(), chat, 'What was the meteor shower like?')).toContain(answer);
    // two turns before a tool result is not what it answers: its call is
    const loop: Message[] = [
      text('user', 'Check the meteor shower forecast.'),
      {
        role: 'assistant',
        parts: [{ type: 'tool-call', id: 'c1', name: 'fetch', args: { url: 'https://example.com' } }],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 'c1', name: 'fetch', output: 'Clear skies after midnight.' }],
      },
    ];
    expect(search(new RecallIndex(), loop, 'What was the meteor shower like?')).not.toContain(
      'Clear skies after midnight.',
    );
  });

  it('finds a chat turn by its reply, for a question', () => {
    const chat = [
      text('user', 'We drove up to the lake cabin for the weekend.'),
      text('assistant', 'The telescope must have loved those dark skies!'),
      text('user', 'The bakery on the corner opened again.'),
      text('assistant', 'Their bread is good.'),
      text('user', 'Thanks.'),
      text('assistant', 'You are welcome.'),
    ];
    expect(search(new RecallIndex(), chat, 'Where did they take the telescope?')).toContain(
      'We drove up to the lake cabin for the weekend.',
    );
  });

  it('holds exactly the messages before `through`, extending and shrinking as calls go', () => {
    const index = new RecallIndex();
    expect(search(index, history, 'orange blue', 3)).toEqual([]);
    expect(search(index, history, 'orange blue')[0]).toBe('Mostly orange and a deep blue.');
    expect(search(index, history, 'orange blue', 3)).toEqual([]);
  });

  it('indexes a forked history again', () => {
    const index = new RecallIndex();
    expect(search(index, history, 'violin')[0]).toBe('My sister lives in Lisbon and teaches violin.');
    const forked = [text('user', 'My brother plays the cello.'), ...history.slice(1)];
    expect(search(index, forked, 'violin')).toEqual([]);
    expect(search(index, forked, 'cello')[0]).toBe('My brother plays the cello.');
  });
});
