/**
 * The dates a question names (retrieval/dates.ts): stated ones (a day, a month, a year) and ones
 * said relative to the time of asking, read in the local calendar; and in a real memory on disk,
 * a date that lifts a turn its words alone rank below others (the rescore stage's dated boost,
 * the candidates stage's date windows).
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutMethods, withSettings } from '../src/bench/ablation.js';
import type { EpisodeInput } from '../src/core/model/events.js';
import { dateMentions, relativeDates } from '../src/core/retrieval/dates.js';
import { DEFAULT_RECIPE, KEYWORD_RECIPE } from '../src/core/retrieval/recipe.js';
import { keywordTexts, memoryWith } from './helpers.js';

// Wednesday 2 December 2026, 15:00 local time; the expected spans are local calendar days, written out.
const NOW = new Date(2026, 11, 2, 15).getTime();
const day = (m: number, d: number, y = 2026): number => new Date(y, m, d).getTime();
const read = (text: string): [number, number][] => relativeDates(text, NOW).map((d) => [d.start, d.end]);

test('date mentions: day, month and year, most precise first', () => {
  const [d] = dateMentions('What did Tim say about his injury on 16 November, 2023?');
  assert.equal(d!.unit, 'day');
  assert.equal(new Date(d!.start).toISOString(), '2023-11-16T00:00:00.000Z');
  assert.equal(d!.end - d!.start, 864e5);
  const ms = dateMentions('between November 9, 2022 and June 2023, or in 2021');
  assert.deepEqual(
    ms.map((m) => [m.unit, new Date(m.start).toISOString().slice(0, 10), new Date(m.end).toISOString().slice(0, 10)]),
    [
      ['day', '2022-11-09', '2022-11-10'],
      ['month', '2023-06-01', '2023-07-01'],
      ['year', '2021-01-01', '2022-01-01'],
    ],
  );
  assert.deepEqual(dateMentions('last week, at 10:30'), []);
  // A month without its year is that month of each year the memory spans (its latest five); none without the span.
  const months = (text: string, years?: { first: number; last: number }): string[] =>
    dateMentions(text, years && (() => years)).map((m) => `${m.unit} ${new Date(m.start).toISOString().slice(0, 7)}`);
  assert.deepEqual(months('When did Melanie go camping in June?', { first: 2022, last: 2023 }), ['month 2022-06', 'month 2023-06']);
  assert.deepEqual(
    months('in June', { first: 2015, last: 2023 }),
    ['2019', '2020', '2021', '2022', '2023'].map((y) => `month ${y}-06`),
  );
  assert.deepEqual(months('When did Melanie go camping in June?'), []);
  let asked = 0;
  dateMentions('What did Tim say on 16 November, 2023?', () => (asked++, { first: 2022, last: 2023 }));
  assert.equal(asked, 0, 'the span is asked for only when a month comes without its year');
  assert.deepEqual(months('in June 2023', { first: 2022, last: 2023 }), ['month 2023-06'], 'a year written is the one year');
  assert.deepEqual(months('You may go. The march went on.', { first: 2022, last: 2023 }), [], 'a word that is not a month');
  assert.deepEqual(months('What changed since June?', { first: 2022, last: 2023 }), [], 'a span from June on is not June');
});

test('relative dates: days, weeks, months and years before the time of asking, in the local calendar', () => {
  assert.deepEqual(read('what did we decide yesterday?'), [[day(11, 1), day(11, 2)]]);
  assert.deepEqual(read('what broke this morning'), [[day(11, 2), day(11, 3)]]);
  assert.deepEqual(read('the day before yesterday'), [[day(10, 30), day(11, 1)]], 'not also yesterday');
  assert.deepEqual(read('what broke in CI last week?'), [[day(10, 23), day(10, 30)]], 'Monday to Monday');
  assert.deepEqual(read('anything this week'), [[day(10, 30), day(11, 7)]]);
  assert.deepEqual(read('the bug from two weeks ago'), [[day(10, 16), day(10, 23)]]);
  assert.deepEqual(read('3 days ago'), [[day(10, 29), day(10, 30)]]);
  assert.deepEqual(read('a couple of days ago'), [[day(10, 30), day(11, 1)]]);
  assert.deepEqual(read('last month'), [[day(10, 1), day(11, 1)]]);
  assert.deepEqual(read('anything in the past week?'), [[day(10, 25), day(11, 3)]], 'the seven days up to now');
  assert.deepEqual(read('over the past month'), [[day(10, 2), day(11, 3)]]);
  assert.deepEqual(read('a month ago'), [[day(10, 1), day(11, 1)]]);
  assert.deepEqual(read('last year'), [[day(0, 1, 2025), day(0, 1)]]);
  assert.deepEqual(read('what did we say on Monday'), [[day(10, 30), day(11, 1)]]);
  assert.deepEqual(read('last Wednesday'), [[day(10, 25), day(10, 26)]], 'the same weekday as today: a week back');
  assert.deepEqual(read('When did Caroline go to the LGBTQ support group on 7 May 2023?'), [], 'no relative date');
  assert.ok(relativeDates('yesterday', NOW).every((d) => d.relative));
});

test("relative dates: a question about yesterday lifts yesterday's turn over an older one that matches its words better", async () => {
  const now = new Date();
  const at = (daysBack: number): string => new Date(now.getFullYear(), now.getMonth(), now.getDate() - daysBack, 12).toISOString();
  const older = 'CI broke: the CI runner ran out of disk and the CI cache was purged.';
  const recent = 'CI broke again on the flaky upload test.';
  const { memory } = await memoryWith([
    { session: 'old', speaker: 'dev', text: older, time: at(20) },
    { session: 'new', speaker: 'dev', text: recent, time: at(1) },
  ]);
  const first = (query: string, recipe = KEYWORD_RECIPE): string | undefined =>
    memory.query({ query, limit: 5, mode: 'keyword' }, recipe).episodes[0]?.text;
  assert.equal(first('what broke in CI?'), older, 'by words alone the older turn leads');
  assert.equal(first('what broke in CI yesterday?'), recent);
  assert.equal(
    first('what broke in CI yesterday?', withSettings(KEYWORD_RECIPE, { 'rescore.boosts.dated': 0 })),
    older,
    'the date does it',
  );
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
  assert.deepEqual(keywordTexts(memory, 'What did Nate do on 9 November, 2022?', DEFAULT_RECIPE, 1), [cooking]);
  assert.ok(!keywordTexts(memory, 'What did Nate do on 9 November, 2022?', withoutMethods(DEFAULT_RECIPE, ['boosts'])).includes(cooking));
});
