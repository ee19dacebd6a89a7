import { describe, expect, it } from 'vitest';
import { askedKinds, entitiesOf } from '../../src/recall/recall-entities.js';

const keys = (text: string) => entitiesOf(text).map(({ key, kind }) => `${kind}:${key}`);

describe('named things in a message', () => {
  it('finds quoted titles and runs of capitalized words, typed by the words before them', () => {
    expect(keys('Tim: I went to a place in London a few years ago, like walking into a Harry Potter movie!')).toEqual([
      'place:london',
      'name:harry potter',
    ]);
    expect(keys('Thanks! "The Name of the Wind" is great, a fantasy novel.')).toEqual(['title:name of the wind']);
    expect(keys('I snapped that pic on my trip to the Smoky Mountains last year.')).toEqual(['place:smoky mountains']);
    expect(keys('Lately I have been reading Dune at night.')).toEqual(['title:dune']);
    expect(keys('It is a book by Patrick Rothfuss, and it is awesome!')).toEqual(['name:patrick rothfuss']);
  });

  it('skips what only opens a sentence, pronouns, greetings, days and months', () => {
    expect(
      keys('Wow, that is great! I just signed up for a pottery class. Hey, are you coming on Monday in June?'),
    ).toEqual([]);
    expect(keys("Yeah, I'm in. Sounds good!")).toEqual([]);
    // a sentence's first word is taken only with the capitalized words after it, unless it is a common word
    expect(keys('Seattle is one of my favourite cities.')).toEqual([]);
    expect(keys('Visiting Seattle was fun.')).toEqual(['place:seattle']);
    expect(keys('Lately I have been busy.')).toEqual([]);
  });

  it('reads the kinds of thing a question asks for', () => {
    expect([...askedKinds('Which cities has John been to?')]).toEqual(['place']);
    expect([...askedKinds('Where did Caroline move from?')]).toEqual(['place']);
    expect([...askedKinds('What books has Tim read?')]).toEqual(['title']);
    expect([...askedKinds('Who is their favourite player?')]).toEqual(['name']);
    expect([...askedKinds('What does Melanie do to destress?')]).toEqual([]);
  });
});
