/**
 * The retrieval methods a recipe switches (src/bench/ablation.ts METHODS), each on a small conversation
 * shaped like real talk, in a real memory on disk: each assertion fails with the method off.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Memory } from '../src/core/memory/memory.js';
import type { EpisodeInput } from '../src/core/model/events.js';
import { learnAliases, shortens } from '../src/core/ingest/aliases.js';
import { oneSlipApart } from '../src/core/retrieval/typos.js';
import { formTerms } from '../src/core/retrieval/forms.js';
import { DEFAULT_RECIPE, type RetrievalRecipe } from '../src/core/retrieval/recipe.js';
import { withSettings, withoutMethods } from '../src/bench/ablation.js';
import { runLocomoBench } from '../src/bench/locomo.js';
import { splitTurns } from '../src/bench/bursts.js';
import { memoryWith, minute } from './helpers.js';

const FIXTURE = path.join(__dirname, 'fixtures', 'locomo-mini.json');

/**
 * A memory on disk holding `turns` ([session, speaker, text], a minute apart) as a conversation
 * parser stores them: each turn mentions its speaker (ingest/locomo.ts), unless `mentions` is false.
 */
const memoryOf = (turns: [string, string, string][], mentions = true) =>
  memoryWith(
    turns.map(([session, speaker, text], i) => ({ session, speaker, text, entities: mentions ? [speaker] : undefined, time: minute(i) })),
  );

/** Each episode a keyword query finds, by its text, with its score (best first). */
const scores = (memory: Memory, query: string, recipe: RetrievalRecipe = DEFAULT_RECIPE, limit = 10): Map<string, number> =>
  new Map(
    memory
      .query({ query, limit, mode: 'keyword' }, { ...recipe, channels: { ...recipe.channels, vector: false } })
      .episodes.map((e) => [e.text, e.score ?? 0]),
  );

const ask = (memory: Memory, query: string, recipe: RetrievalRecipe = DEFAULT_RECIPE, limit = 10): string[] => [
  ...scores(memory, query, recipe, limit).keys(),
];

test('spread: a turn that asks lends more to the turn right after it, the reply', async () => {
  const { memory } = await memoryOf([
    ['s1', 'Ann', 'Any news on the adoption?'],
    ['s1', 'Bob', 'Passed the interview last Friday!'],
    ['s2', 'Ann', 'Adoption news soon, I hope.'],
    ['s2', 'Bob', 'Fingers crossed for you.'],
  ]);
  const scoreOf = (text: string, reply: number): number =>
    scores(memory, 'adoption news', withSettings(DEFAULT_RECIPE, { 'rescore.spread.reply': reply })).get(text) ?? 0;
  assert.ok(scoreOf('Passed the interview last Friday!', 1.5) > scoreOf('Passed the interview last Friday!', 1), 'the reply to a question');
  assert.equal(scoreOf('Fingers crossed for you.', 1.5), scoreOf('Fingers crossed for you.', 1), 'a turn after a statement');
  assert.ok(
    ask(memory, 'adoption news').indexOf('Passed the interview last Friday!') <
      ask(memory, 'adoption news').indexOf('Fingers crossed for you.'),
  );
});

test('spread: a thought sent as several messages is one run, and a hit lends along it', async () => {
  const { memory } = await memoryOf([
    ['s1', 'Ann', 'omg guess what'],
    ['s1', 'Ann', 'I got the museum job!!'],
    ['s1', 'Ann', 'starting in March'],
    ['s1', 'Ann', 'mornings only'],
    ['s1', 'Ann', 'in the gift shop'],
    ['s1', 'Bob', 'So proud of you'],
    ['s2', 'Ann', 'Museum tickets for Saturday?'],
    ['s2', 'Bob', 'sure'],
    ['s2', 'Ann', 'the blue ones'],
  ]);
  const off = withoutMethods(DEFAULT_RECIPE, ['runs']);
  const scoreOf = (text: string, recipe: RetrievalRecipe): number => scores(memory, 'museum job', recipe, 20).get(text) ?? 0;
  const on = DEFAULT_RECIPE;
  assert.equal(scoreOf('in the gift shop', off), 0, "three messages on, out of the neighbours' reach");
  assert.ok(scoreOf('in the gift shop', on) > 0, 'the same speaker, nobody in between: the run reaches it');
  assert.ok(scoreOf('starting in March', on) > scoreOf('starting in March', off), 'the next message of the run');
  assert.ok(scoreOf('omg guess what', on) > scoreOf('omg guess what', off), 'the run before the hit too');
  assert.equal(scoreOf('So proud of you', on), scoreOf('So proud of you', off), 'another speaker ends the run');
  assert.equal(scoreOf('the blue ones', on), scoreOf('the blue ones', off), 'a reply in between: no run');
});

test('aliases: a greeting by a nickname names the other speaker, and a question using it finds their turns', async () => {
  const { memory } = await memoryOf(
    [
      ['s1', 'Nate', 'Hey Jo! How was your weekend?'],
      ['s1', 'Joanna', 'Good! I went climbing at the new gym downtown.'],
      ['s2', 'Nate', 'Climbing is fun, I tried climbing once with my cousin, climbing walls everywhere.'],
      ['s2', 'Joanna', 'Nice, how did it go?'],
    ],
    false,
  );
  const joanna = memory.search({ query: 'Joanna' }).find((e) => e.name === 'Joanna');
  assert.deepEqual(joanna?.aliases, ['Jo'], 'the alias is kept on the entity, where a person can see it');
  assert.equal(memory.search({ query: 'Nate' }).find((e) => e.name === 'Nate')?.aliases.length ?? 0, 0, 'the greeter gets no alias');
  // A transcript whose turns do not mention their speaker: only the alias leads to her turns.
  const score = (recipe: RetrievalRecipe): number => scores(memory, 'Where does Jo climb?', recipe).get('Nice, how did it go?') ?? 0;
  assert.ok(score(DEFAULT_RECIPE) > score(withoutMethods(DEFAULT_RECIPE, ['aliases'])), 'her reply, which says nothing of climbing, rises');
});

test('aliases: a nickname the extractor reads as a person is the speaker it names, not a new entity', async () => {
  // Worded as in LoCoMo conv-26 (snap-research/locomo), where "Thanks Mel!" used to make a person "Mel".
  const { memory } = await memoryOf([
    ['s1', 'Melanie', 'I just signed up for a pottery class yesterday.'],
    ['s1', 'Caroline', 'Thanks Mel! Your kind words mean a lot.'],
    ['s1', 'Melanie', 'Anytime. The kids made bowls with clay.'],
  ]);
  const entities = memory.export().entities.map((e) => e.name);
  assert.ok(!entities.includes('Mel'), `no entity "Mel" beside Melanie: ${entities.join(', ')}`);
  const melanie = memory.search({ query: 'Melanie' }).find((e) => e.name === 'Melanie');
  assert.deepEqual(melanie?.aliases, ['Mel']);
  const top = ask(memory, 'What did Mel make with clay?', DEFAULT_RECIPE, 1);
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

test('locomo bench: one memory for every conversation asks the same questions, and methods can be switched off', async () => {
  const apart = await runLocomoBench({ dataFile: FIXTURE });
  const together = await runLocomoBench({ dataFile: FIXTURE, oneMemory: true, without: ['aliases'] });
  assert.equal(together.questions, apart.questions);
  assert.equal(together.one_memory, true);
  assert.deepEqual(together.without, ['aliases']);
  assert.deepEqual(Object.keys(together.by_conversation), Object.keys(apart.by_conversation));
  await assert.rejects(runLocomoBench({ dataFile: FIXTURE, settings: { 'rescore.spread.nope': 1 } }), /no recipe setting|takes a number/);
});

test('locomo bench --bursts: every other session sent by sentence, evidence on the messages that answer', () => {
  const turn = (session: string, ref: string, speaker: string, text: string): EpisodeInput => ({ session, ref, speaker, text });
  const conv = {
    id: 'c',
    speakers: ['Ann', 'Bob'],
    episodes: [
      turn('c:1', 'D1:1', 'Ann', 'Guess what! I got the job. It is at the science museum.'),
      turn('c:1', 'D1:2', 'Bob', 'So proud of you!'),
      turn('c:2', 'D2:1', 'Ann', 'First day today. Loved it.'),
    ],
    qa: [
      { question: 'Where does Ann work?', answer: 'the science museum', evidence: ['D1:1'], category: 4 },
      { question: 'How was it?', answer: 'wonderful', evidence: ['D1:1', 'D2:1'], category: 3 },
    ],
  };
  const split = splitTurns(conv);
  assert.deepEqual(
    split.episodes.map((e) => [e.ref, e.speaker, e.text]),
    [
      ['D1:1/1', 'Ann', 'Guess what!'],
      ['D1:1/2', 'Ann', 'I got the job.'],
      ['D1:1/3', 'Ann', 'It is at the science museum.'],
      ['D1:2', 'Bob', 'So proud of you!'],
      ['D2:1', 'Ann', 'First day today. Loved it.'],
    ],
    'the first session by sentence, a one-sentence turn whole, the second session as it was',
  );
  assert.deepEqual(split.qa[0]!.evidence, ['D1:1/3'], 'the message sharing a word with the answer');
  assert.deepEqual(split.qa[1]!.evidence, ['D1:1/1', 'D1:1/2', 'D1:1/3', 'D2:1'], 'none shares one: every message of the turn');
});

test('aliases: a person removes a wrong alias, and it is not learned again', async () => {
  const { memory } = await memoryOf([
    ['s1', 'Nate', 'Hey Jo! How was your weekend?'],
    ['s1', 'Joanna', 'Good, thanks.'],
  ]);
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
  const { memory } = await memoryOf([
    ['s1', 'Joanna', 'The raspberries at the market were expensive this week.'],
    ['s1', 'Nate', 'Raspberries again? You really love them.'],
    ['s1', 'Joanna', 'The party was loud, the chocolate was gone by nine.'],
    ['s1', 'Nate', 'Our team won the tournament last night.'],
    ['s1', 'Joanna', 'What did you make for the party?'],
    // Far from the turns that spell it right: none of them lends it a score (spread).
    ['s1', 'Nate', misspelt],
  ]);
  const off = withoutMethods(DEFAULT_RECIPE, ['typos']);
  assert.ok(ask(memory, 'raspberries', DEFAULT_RECIPE, 4).includes(misspelt), 'the misspelling of a word the memory holds');
  assert.ok(!ask(memory, 'raspberries', off, 4).includes(misspelt), 'not without the method');
  assert.deepEqual(ask(memory, 'who won the tournamnet?', DEFAULT_RECIPE, 1), ['Our team won the tournament last night.']);
  assert.ok(!ask(memory, 'tournamnet', off, 3).includes('Our team won the tournament last night.'));
  // A snapshot reopens the database (sql.js export): the index's word list is read again.
  memory.snapshot();
  memory.ingest([{ text: 'A tournamant next week too.', session: 's2', speaker: 'Nate' }], { authority: 'user', source: 'test' });
  assert.ok(ask(memory, 'tournament', DEFAULT_RECIPE, 5).includes('Our team won the tournament last night.'));
});

test('typos: a real word one key too far is no slip, and the question is searched as it was', async () => {
  // "concert" is the commoner word, so a slip of it would be searched too: "concern" is not one.
  const { memory } = await memoryOf([
    ['s1', 'Ann', 'The concert was great.'],
    ['s1', 'Bob', 'Another concert on Friday?'],
    ['s1', 'Ann', 'Lunch first.'],
    ['s1', 'Bob', 'Then the gym.'],
    ['s1', 'Ann', 'I have a concern about the budget.'],
  ]);
  assert.deepEqual(
    [...scores(memory, 'concert', DEFAULT_RECIPE, 5)],
    [...scores(memory, 'concert', withoutMethods(DEFAULT_RECIPE, ['typos']), 5)],
  );
});

test('forms: a question finds the irregular forms of its words, which the stemmer does not join', async () => {
  // The museum turn as in LoCoMo conv-26 (snap-research/locomo): the question asks "take", the turn says "took".
  const museum = 'Yesterday I took the kids to the museum - it was so cool spending time with them and seeing their eyes light up!';
  const { memory } = await memoryOf([
    ['s1', 'Melanie', 'The kids are great, busy as ever.'],
    ['s1', 'Caroline', 'Glad to hear it.'],
    ['s2', 'Melanie', museum],
    ['s2', 'Caroline', 'That sounds like a lovely day.'],
    ['s3', 'Caroline', 'I want to give children a loving home.'],
    ['s3', 'Melanie', 'You will be a great mom.'],
    ['s4', 'Caroline', 'A child needs a home, not a label.'],
  ]);
  const off = withoutMethods(DEFAULT_RECIPE, ['forms']);
  assert.deepEqual(ask(memory, 'Where did Melanie take the kids?', DEFAULT_RECIPE, 1), [museum]);
  assert.notDeepEqual(ask(memory, 'Where did Melanie take the kids?', off, 1), [museum], 'not without the method');
  // "children" finds "child" and back; each form at the recipe's weight, under the word's own.
  const children = scores(memory, 'children', DEFAULT_RECIPE, 5);
  assert.ok(children.has('A child needs a home, not a label.'));
  assert.ok(children.get('I want to give children a loving home.')! > children.get('A child needs a home, not a label.')!);
  assert.ok(!scores(memory, 'children', off, 5).has('A child needs a home, not a label.'));
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

test('boosts: a date the question names reaches a turn of that day that its words rank below every candidate', async () => {
  // 200 short turns by Nate through spring 2022: each matches "Nate" as well as the long one does, and ranks above it.
  const day = (d: number): string => new Date(Date.UTC(2022, 0, 1) + d * 864e5).toISOString();
  const filler: EpisodeInput[] = Array.from({ length: 200 }, (_, i) => ({
    session: `s${i}`,
    speaker: 'Nate',
    text: `Busy day, ${'abcdefghij'[i % 10]}${'klmnopqrst'[Math.floor(i / 10) % 10]}${'uvwxy'[Math.floor(i / 100)]}.`,
    time: day(i),
  }));
  // As in LoCoMo conv-42 (snap-research/locomo), session of 9 November 2022.
  const cooking =
    'Hey Joanna, what a wild week! My game tournament got pushed back, so I tried out some cooking. Look at this homemade coconut ice cream!';
  const { memory } = await memoryWith([...filler, { session: 'nov', speaker: 'Nate', text: cooking, time: '2022-11-09T14:00:00.000Z' }]);
  assert.deepEqual(ask(memory, 'What did Nate do on 9 November, 2022?', DEFAULT_RECIPE, 1), [cooking]);
  assert.ok(!ask(memory, 'What did Nate do on 9 November, 2022?', withoutMethods(DEFAULT_RECIPE, ['boosts'])).includes(cooking));
});
