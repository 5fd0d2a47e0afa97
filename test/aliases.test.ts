/**
 * Speakers' aliases (ingest/aliases.ts): which greetings teach one, the alias kept on the entity
 * where a person can see and remove it, and a question that uses it finding the speaker's turns
 * (the analyse stage's `aliases` method), in a real memory on disk.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutMethods } from '../src/bench/ablation.js';
import { learnAliases, shortens } from '../src/core/ingest/aliases.js';
import { DEFAULT_RECIPE, type RetrievalRecipe } from '../src/core/retrieval/recipe.js';
import { conversation, keywordScores, keywordTexts, memoryWith } from './helpers.js';

test('aliases: a greeting by a nickname names the other speaker, and a question using it finds their turns', async () => {
  const { memory } = await memoryWith(
    conversation(
      [
        ['s1', 'Nate', 'Hey Jo! How was your weekend?'],
        ['s1', 'Joanna', 'Good! I went climbing at the new gym downtown.'],
        ['s2', 'Nate', 'Climbing is fun, I tried climbing once with my cousin, climbing walls everywhere.'],
        ['s2', 'Joanna', 'Nice, how did it go?'],
      ],
      false,
    ),
  );
  const joanna = memory.search({ query: 'Joanna' }).find((e) => e.name === 'Joanna');
  assert.deepEqual(joanna?.aliases, ['Jo'], 'the alias is kept on the entity, where a person can see it');
  assert.equal(memory.search({ query: 'Nate' }).find((e) => e.name === 'Nate')?.aliases.length ?? 0, 0, 'the greeter gets no alias');
  // A transcript whose turns do not mention their speaker: only the alias leads to her turns.
  const score = (recipe: RetrievalRecipe): number => keywordScores(memory, 'Where does Jo climb?', recipe).get('Nice, how did it go?') ?? 0;
  assert.ok(score(DEFAULT_RECIPE) > score(withoutMethods(DEFAULT_RECIPE, ['aliases'])), 'her reply, which says nothing of climbing, rises');
});

test('aliases: a nickname the extractor reads as a person is the speaker it names, not a new entity', async () => {
  // Worded as in LoCoMo conv-26 (snap-research/locomo), where "Thanks Mel!" used to make a person "Mel".
  const { memory } = await memoryWith(
    conversation([
      ['s1', 'Melanie', 'I just signed up for a pottery class yesterday.'],
      ['s1', 'Caroline', 'Thanks Mel! Your kind words mean a lot.'],
      ['s1', 'Melanie', 'Anytime. The kids made bowls with clay.'],
    ]),
  );
  const entities = memory.export().entities.map((e) => e.name);
  assert.ok(!entities.includes('Mel'), `no entity "Mel" beside Melanie: ${entities.join(', ')}`);
  const melanie = memory.search({ query: 'Melanie' }).find((e) => e.name === 'Melanie');
  assert.deepEqual(melanie?.aliases, ['Mel']);
  const top = keywordTexts(memory, 'What did Mel make with clay?', DEFAULT_RECIPE, 1);
  assert.deepEqual(top, ['Anytime. The kids made bowls with clay.']);
});

test('aliases: only names, only two-speaker sessions, and another name than a shortening only when used twice', () => {
  const speakers = new Map([
    ['a', ['Ann', 'Bob']],
    ['b', ['Ann', 'Bob', 'Cy']],
  ]);
  const learned = learnAliases(
    [
      { session: 'a', speaker: 'Ann', text: 'Hey there! how are you' },
      { session: 'a', speaker: 'Ann', text: 'Thanks, Wow!' },
      { session: 'a', speaker: 'Ann', text: 'hi Bo, long time' },
      { session: 'b', speaker: 'Ann', text: 'Hey Cyrus!' },
      { session: 'a', speaker: 'Bob', text: 'Hey Sunshine! 😀' },
      { session: 'a', speaker: 'Bob', text: 'Morning, Sunshine.' },
      { session: 'a', speaker: 'Bob', text: 'Hey Zed!' },
    ],
    (s) => speakers.get(s) ?? [],
  );
  assert.deepEqual([...(learned.get('Bob') ?? [])], ['Bo'], 'a shortening of the name counts at once; "there" and "Wow" are no names');
  assert.deepEqual([...(learned.get('Ann') ?? [])], ['Sunshine'], 'another name counts when used twice; "Zed" once does not');
  assert.equal(learned.get('Cy'), undefined, 'with three speakers, whom a greeting addresses is unknown');
  // A name closing a sentence after a comma addresses the other speaker too (worded as in LoCoMo conv-26).
  const closing = learnAliases(
    [
      { session: 'a', speaker: 'Ann', text: "That's awesome, Bo! Keep it up." },
      { session: 'a', speaker: 'Bob', text: 'A gift from my grandma in my home country, Sweden.' },
      { session: 'a', speaker: 'Bob', text: 'See you at the game, Annie, bring snacks.' },
      { session: 'a', speaker: 'Bob', text: 'Good one, Sunny! And thanks, Sunny.' },
    ],
    (s) => speakers.get(s) ?? [],
  );
  assert.deepEqual([...(closing.get('Bob') ?? [])], ['Bo']);
  assert.equal(closing.get('Ann'), undefined, 'a place named once, a name mid-sentence, and a name twice in one turn are not learned');
});

test('aliases: a pet form of the start of a name shortens it, so one greeting is enough', () => {
  for (const [name, called] of [
    ['Joanna', 'Jo'],
    ['Anna Smith', 'Annie'],
    ['Jonathan', 'Jonny'],
    ['Samantha', 'Sammy'],
    ['Joseph', 'Joey'],
    ['Katherine', 'Katie'],
    ['Bob', 'Bobby'],
  ])
    assert.ok(shortens(name, called), `${called} for ${name}`);
  for (const [name, called] of [
    ['Andrew', 'Annie'],
    ['Robert', 'Bobby'],
    ['Melanie', 'Sunny'],
    ['Anna', 'Amy'],
  ])
    assert.ok(!shortens(name, called), `${called} is not ${name}`);
  const learned = learnAliases([{ session: 'a', speaker: 'Anna', text: 'Hey Jonny! How was the trip?' }], () => ['Anna', 'Jonathan']);
  assert.deepEqual([...(learned.get('Jonathan') ?? [])], ['Jonny']);
});

test('aliases: a person removes a wrong alias, and it is not learned again', async () => {
  const { memory } = await memoryWith(
    conversation([
      ['s1', 'Nate', 'Hey Jo! How was your weekend?'],
      ['s1', 'Joanna', 'Good, thanks.'],
    ]),
  );
  // What a person said in a conversation ('user') is not a person's act on the memory ('human').
  assert.throws(() => memory.unalias({ entity: 'Joanna', alias: 'Jo' }, { authority: 'user' }), /Only a person/);
  assert.throws(() => memory.unalias({ entity: 'Nate', alias: 'Jo' }, { authority: 'human' }), /not an alias of "Nate"/);
  assert.deepEqual(memory.unalias({ entity: 'joanna', alias: 'jo' }, { authority: 'human' }).aliases, []);
  memory.ingest(
    [
      { session: 's2', speaker: 'Nate', text: 'Hi Jo, back again!', time: '2024-02-01T00:00:00.000Z' },
      { session: 's2', speaker: 'Joanna', text: 'Yes!', time: '2024-02-01T00:01:00.000Z' },
    ],
    { authority: 'user' },
  );
  assert.deepEqual(memory.search({ query: 'Joanna' }).find((e) => e.name === 'Joanna')?.aliases, []);
});
