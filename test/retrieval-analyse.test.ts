/**
 * Analysing a question (retrieval/analyse.ts): its words, and what they search besides themselves
 * (typing slips, irregular forms, British and American spellings), each in a real memory on disk
 * where the assertion fails with the method left out of the recipe (src/bench/ablation.ts).
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutMethods } from '../src/bench/ablation.js';
import { formTerms } from '../src/core/retrieval/forms.js';
import { DEFAULT_RECIPE, type RetrievalRecipe } from '../src/core/retrieval/recipe.js';
import { ftsOr, queryTerms } from '../src/core/retrieval/text.js';
import { oneSlipApart } from '../src/core/retrieval/typos.js';
import { conversation, keywordScores, keywordTexts, memoryWith } from './helpers.js';

test('query terms: stop words, possessives, lone letters, quoting', () => {
  assert.deepEqual(queryTerms("What did Caroline's sister say about the adoption agencies?"), [
    'caroline',
    'sister',
    'say',
    'adoption',
    'agencies',
  ]);
  assert.deepEqual(queryTerms('Which areas of the U.S. has John been to?'), ['areas', 'john']);
  assert.deepEqual(queryTerms('What is Joanna\u2019s dog called?'), ['joanna', 'dog', 'called']);
  assert.deepEqual(queryTerms('Would Melanie likely enjoy it?'), ['melanie', 'enjoy']);
  // "How long", "how often", "what kind of": the word belongs to the question word.
  assert.deepEqual(queryTerms('For how long has Nate had his turtles?'), ['nate', 'turtles']);
  assert.deepEqual(queryTerms('What kind of art does Caroline make?'), ['art', 'caroline', 'make']);
  assert.deepEqual(queryTerms('What types of pottery have they made?'), ['pottery', 'made']);
  assert.deepEqual(queryTerms('Was that kind of you? The type of a day'), ['kind', 'type', 'day']);
  assert.deepEqual(queryTerms('How often does John work out?'), ['john', 'work']);
  assert.deepEqual(queryTerms('Is the long weekend booked?'), ['long', 'weekend', 'booked']);
  // Nothing but stop words: keep them rather than search for nothing.
  assert.deepEqual(queryTerms('what is it'), ['what', 'is', 'it']);
  assert.deepEqual(queryTerms('What did she do in 2022?'), ['2022']);
  assert.deepEqual(queryTerms('the cat', { stopWords: false }), ['the', 'cat']);
  assert.equal(ftsOr(['red', 'say"s']), '"red" OR "says"');
});

test('typos: a slip is a letter missing, added, swapped with its neighbour, or changed into a key beside it', () => {
  assert.ok(oneSlipApart('raspberri', 'rasberri'), 'a letter missing');
  assert.ok(oneSlipApart('rasberri', 'raspberri'), 'a letter added');
  assert.ok(oneSlipApart('tournament', 'tournamnet'), 'two neighbours swapped');
  assert.ok(oneSlipApart('concert', 'concery'), 't and y are side by side');
  assert.ok(!oneSlipApart('concert', 'concern'), 't and n are not: two real words');
  assert.ok(!oneSlipApart('writer', 'wrote'), 'two changes');
  assert.ok(!oneSlipApart('photograph', 'photograph'), 'the same word is no slip');
});

test('typos: a question finds the turn that misspells its word, and a misspelt question finds the word', async () => {
  // Misspelt as in LoCoMo conv-42 (snap-research/locomo): "fresh rasberries".
  const misspelt = 'Made a chocolate tart with fresh rasberries for the party!';
  const { memory } = await memoryWith(
    conversation([
      ['s1', 'Joanna', 'The raspberries at the market were expensive this week.'],
      ['s1', 'Nate', 'Raspberries again? You really love them.'],
      ['s1', 'Joanna', 'The party was loud, the chocolate was gone by nine.'],
      ['s1', 'Nate', 'Our team won the tournament last night.'],
      ['s1', 'Joanna', 'What did you make for the party?'],
      // Far from the turns that spell it right: none of them lends it a score (spread).
      ['s1', 'Nate', misspelt],
    ]),
  );
  const off = withoutMethods(DEFAULT_RECIPE, ['typos']);
  assert.ok(keywordTexts(memory, 'raspberries', DEFAULT_RECIPE, 4).includes(misspelt), 'the misspelling of a word the memory holds');
  assert.ok(!keywordTexts(memory, 'raspberries', off, 4).includes(misspelt), 'not without the method');
  assert.deepEqual(keywordTexts(memory, 'who won the tournamnet?', DEFAULT_RECIPE, 1), ['Our team won the tournament last night.']);
  assert.ok(!keywordTexts(memory, 'tournamnet', off, 3).includes('Our team won the tournament last night.'));
  // A snapshot reopens the database (sql.js export): the index's word list is read again.
  memory.snapshot();
  memory.ingest([{ text: 'A tournamant next week too.', session: 's2', speaker: 'Nate' }], { authority: 'user', source: 'test' });
  assert.ok(keywordTexts(memory, 'tournament', DEFAULT_RECIPE, 5).includes('Our team won the tournament last night.'));
});

test('typos: a real word one key too far is no slip, and the question is searched as it was', async () => {
  // "concert" is the commoner word, so a slip of it would be searched too: "concern" is not one.
  const { memory } = await memoryWith(
    conversation([
      ['s1', 'Ann', 'The concert was great.'],
      ['s1', 'Bob', 'Another concert on Friday?'],
      ['s1', 'Ann', 'Lunch first.'],
      ['s1', 'Bob', 'Then the gym.'],
      ['s1', 'Ann', 'I have a concern about the budget.'],
    ]),
  );
  assert.deepEqual(
    [...keywordScores(memory, 'concert', DEFAULT_RECIPE, 5)],
    [...keywordScores(memory, 'concert', withoutMethods(DEFAULT_RECIPE, ['typos']), 5)],
  );
});

test('forms: a question finds the irregular forms of its words, which the stemmer does not join', async () => {
  // The museum turn as in LoCoMo conv-26 (snap-research/locomo): the question asks "take", the turn says "took".
  const museum = 'Yesterday I took the kids to the museum - it was so cool spending time with them and seeing their eyes light up!';
  const { memory } = await memoryWith(
    conversation([
      ['s1', 'Melanie', 'The kids are great, busy as ever.'],
      ['s1', 'Caroline', 'Glad to hear it.'],
      ['s2', 'Melanie', museum],
      ['s2', 'Caroline', 'That sounds like a lovely day.'],
      ['s3', 'Caroline', 'I want to give children a loving home.'],
      ['s3', 'Melanie', 'You will be a great mom.'],
      ['s4', 'Caroline', 'A child needs a home, not a label.'],
    ]),
  );
  const off = withoutMethods(DEFAULT_RECIPE, ['forms']);
  assert.deepEqual(keywordTexts(memory, 'Where did Melanie take the kids?', DEFAULT_RECIPE, 1), [museum]);
  assert.notDeepEqual(keywordTexts(memory, 'Where did Melanie take the kids?', off, 1), [museum], 'not without the method');
  // "children" finds "child" and back; each form at the recipe's weight, under the word's own.
  const children = keywordScores(memory, 'children', DEFAULT_RECIPE, 5);
  assert.ok(children.has('A child needs a home, not a label.'));
  assert.ok(children.get('I want to give children a loving home.')! > children.get('A child needs a home, not a label.')!);
  assert.ok(!keywordScores(memory, 'children', off, 5).has('A child needs a home, not a label.'));
});

test('forms: only forms the stemmer leaves apart, and no function words', () => {
  // A stand-in for the index's porter stemmer: it joins -ed, -ing and -s and undoubles, as porter does.
  const stem = (w: string): string => w.replace(/(ed|ing|s)$/, '').replace(/(.)\1$/, '$1');
  const forms = (word: string): string[] => formTerms([{ term: word, weight: 1 }], { forms: 0.5 }, stem).map((t) => t.term);
  assert.deepEqual(forms('go').sort(), ['gone', 'went']);
  assert.deepEqual(forms('went').sort(), ['go', 'gone']);
  assert.deepEqual(forms('buying'), ['bought'], 'the -ing form of a base');
  assert.deepEqual(forms('kidded'), [], 'a regular past the stemmer already joins');
  assert.deepEqual(forms('done'), [], '"do" and "did" are function words');
  assert.deepEqual(forms('people'), ['person']);
  assert.deepEqual(forms('turtle'), [], 'a regular noun');
  assert.deepEqual(formTerms([{ term: 'go', weight: 1 }], {}, stem), [], 'no weights: off');
  assert.deepEqual(
    formTerms([{ term: 'nate', weight: 1, column: 'speaker' }], { forms: 0.5, spellings: 1 }, stem),
    [],
    "a speaker's name has no forms",
  );
});

test('spellings: a British word searches its American spelling at full weight and back, with its forms', () => {
  // Porter keeps these apart: "favourit"/"favorit", "travell"/"travel".
  const porter = (w: string): string => ({ favourite: 'favourit', favorite: 'favorit', travelled: 'travell', traveled: 'travel' })[w] ?? w;
  const terms = (word: string, settings: { forms?: number; spellings?: number } = { forms: 0.5, spellings: 1 }): [string, number][] =>
    formTerms([{ term: word, weight: 1 }], settings, porter).map((t) => [t.term, t.weight]);
  assert.deepEqual(terms('favourite'), [['favorite', 1]]);
  assert.deepEqual(terms('favorite'), [['favourite', 1]]);
  assert.deepEqual(terms('travelled'), [['traveled', 1]]);
  assert.deepEqual(terms('colours'), [['colors', 1]]);
  assert.deepEqual(terms('grey', { forms: 0.5 }), [], 'spellings left out: off');
  assert.ok(terms('neighbour').some(([t]) => t === 'neighbor'));
});

test('spellings: in a real transcript that writes both, the British word finds the American turns and back', async () => {
  // aider/multi-session-slice (BeauCranston/car-game, origin in test/fixtures/real/SOURCES.md): the
  // person writes "normalised" and "initialisation", the model "normalized".
  const { memory, texts } = await memoryWith({ fixture: 'aider/multi-session-slice.aider.chat.history.md' });
  const off = withoutMethods(DEFAULT_RECIPE, ['spellings']);
  const found = (query: string, word: string, recipe: RetrievalRecipe): number => {
    const top = memory.query({ query, limit: 10, mode: 'keyword' }, recipe).episodes.map((e) => e.text);
    return texts.filter((t) => new RegExp(`\\b${word}\\b`, 'i').test(t) && top.includes(t)).length;
  };
  const holding = (word: string): number => texts.filter((t) => new RegExp(`\\b${word}\\b`, 'i').test(t)).length;
  assert.equal(holding('normalized'), 3);
  assert.equal(found('normalised', 'normalized', DEFAULT_RECIPE), 3);
  assert.ok(found('normalised', 'normalized', off) < 3, 'not all without the method');
  assert.equal(holding('initialisation'), 1);
  assert.equal(found('initialization', 'initialisation', DEFAULT_RECIPE), 1);
  assert.equal(found('initialization', 'initialisation', off), 0);
});
