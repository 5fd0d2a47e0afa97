/**
 * Dates said relative to the time of asking (retrieval/dates.ts relativeDates): what each phrase reads
 * as in the local calendar, and a real memory on disk where "what broke in CI yesterday?" finds
 * yesterday's turn before an older one that matches its words better.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { withSettings } from '../src/bench/ablation.js';
import { relativeDates } from '../src/core/retrieval/dates.js';
import { KEYWORD_RECIPE } from '../src/core/retrieval/recipe.js';
import { memoryWith } from './helpers.js';

// Wednesday 2 December 2026, 15:00 local time; the expected spans are local calendar days, written out.
const NOW = new Date(2026, 11, 2, 15).getTime();
const day = (m: number, d: number, y = 2026): number => new Date(y, m, d).getTime();
const read = (text: string): [number, number][] => relativeDates(text, NOW).map((d) => [d.start, d.end]);

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
