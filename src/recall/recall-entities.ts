import { SPEAKER_LABEL } from '../summarizers/fact-signals.js';

/** What a named thing is, as far as the words around it tell: a place, a title (of a book, show, song), or a name. */
export type EntityKind = 'place' | 'title' | 'name';

/** A named thing a text mentions: its key (lowercased words) and kind. */
export interface Entity {
  readonly key: string;
  readonly kind: EntityKind;
}

/** A title in quotes: "The Name of the Wind", “Becoming Nicole”. */
const QUOTED = /["“]([^"“”\n]{2,60}?)["”]/gu;
/** A run of capitalized words, joined by the small words titles and places hold ("Lord of the Rings", "Bay of Fundy"). */
const CAPITALIZED =
  /(?<![\p{L}\p{N}'’])\p{Lu}[\p{L}\p{N}'’.-]*(?:\s+(?:(?:of|the|and|de|la|du|von|van)\s+)*\p{Lu}[\p{L}\p{N}'’.-]*)*/gu;
/** Words before a place: "in London", "to the UK", "trip to the Smoky Mountains". */
const BEFORE_PLACE = /\b(?:in|to|from|at|near|around|across|visit(?:ed|ing)?|toward|towards)\s+(?:the\s+)?$/i;
/** Words before a title: "read Dune", "watching The Office". */
const BEFORE_TITLE = /\b(?:read|reading|watch|watched|watching|called|titled|named)\s+$/i;
/** Capitalized words that name nothing: openers, pronouns, days and months (dates are searched as words). */
const NOT_ENTITIES = new Set(
  (
    'i im ive ill id me my we our you your he she they it its this that these those there here what when where who why how ' +
    'yes yeah yep no nope oh wow hey hi hello thanks thank congrats congratulations sure ok okay great awesome cool nice ' +
    'sounds glad sorry well so and but or also just really totally definitely absolutely aww aw haha lol omg btw ' +
    'monday tuesday wednesday thursday friday saturday sunday january february march april may june july august ' +
    'september october november december mom dad'
  ).split(' '),
);

const keyOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/['’](?:m|ve|ll|d|re)$/u, '')
    .replace(/['’]s$/u, '')
    .replace(/^the\s+/, '')
    .replace(/[.!?,;:]+$/u, '')
    .trim();

/**
 * The named things a message mentions, found by their form alone (no gazetteer): quoted titles, and runs of
 * capitalized words that do not open a sentence (a single word opening one is as often "Wow" as "Paris"), typed by the
 * words before them.
 */
export function entitiesOf(text: string): Entity[] {
  const body = text.replace(SPEAKER_LABEL, '');
  const found = new Map<string, EntityKind>();
  for (const match of body.matchAll(QUOTED)) {
    const key = keyOf(match[1] as string);
    if (key.length >= 2) found.set(key, 'title');
  }
  for (const match of body.matchAll(CAPITALIZED)) {
    const words = (match[0] as string).split(/\s+/);
    const at = match.index ?? 0;
    const before = body.slice(Math.max(0, at - 40), at);
    // the word opening a sentence is capitalized anyway: it goes when it is a common word ("Wow", "Visiting", "Lately")
    const opensSentence = before.trim() === '' || /[.!?…:]["'”’)]?\s+$|^\s*["“]$/u.test(before);
    let from = 0;
    if (opensSentence && (NOT_ENTITIES.has(keyOf(words[0] as string)) || /(?:ing|ed|ly)$/.test(words[0] as string)))
      from = 1;
    // "I" and the like end a run ("Lately I ...")
    let to = from;
    while (to < words.length && !NOT_ENTITIES.has(keyOf(words[to] as string))) to++;
    const kept = words.slice(from, to);
    // a single word opening a sentence is as often "Great" as "Paris": not taken
    if (kept.length === 0 || (opensSentence && from === 0 && kept.length === 1)) continue;
    const key = keyOf(kept.join(' '));
    if (key.length < 2 || NOT_ENTITIES.has(key) || found.has(key)) continue;
    const lead = from === 0 ? before : `${before}${words[0]} `;
    found.set(key, BEFORE_PLACE.test(lead) ? 'place' : BEFORE_TITLE.test(lead) ? 'title' : 'name');
  }
  return [...found].map(([key, kind]) => ({ key, kind }));
}

/**
 * The kinds of thing a question asks for, by its words: "Which cities...", "What books...", "Who...". A list question
 * of this kind is answered by turns that name such things and share no other word with it ("Which cities has John
 * been to?": "I was in Chicago, it was awesome!"); the recall index ranks them (see `RecallIndex.search`). On the
 * fixture conversations: 71.2% / 79.5% -> 72.6% / 80.4% of the questions keep their evidence (25% / 50% windows),
 * multi-hop 29.6% / 45.8% -> 32.4% / 49.3%; without speaker labels 71.1% / 79.2% -> 70.7% / 80.0%, multi-hop
 * 31.7% / 46.5% -> 33.1% / 50.0%.
 */
export function askedKinds(question: string): ReadonlySet<EntityKind> {
  const kinds = new Set<EntityKind>();
  const q = question.toLowerCase();
  if (/\b(?:where|cit(?:y|ies)|countr(?:y|ies)|places?|locations?|states?|towns?|destinations?)\b/.test(q))
    kinds.add('place');
  if (/\b(?:books?|novels?|series|shows?|movies?|films?|songs?|albums?|titles?)\b/.test(q)) kinds.add('title');
  if (/\b(?:who|whom|whose|authors?|artists?|bands?|singers?|players?|musicians?|writers?)\b/.test(q))
    kinds.add('name');
  return kinds;
}
