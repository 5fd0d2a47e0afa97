/**
 * Long turns scored by passage (retrieval/passages.ts, the recipe's `candidates.passages`): the split itself, and a
 * real memory on disk where the one sentence of a long answer that answers the question lifts
 * that answer above short turns sharing a word or two with it, within the question's project,
 * whatever characters come before that sentence.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Memory } from '../src/core/memory/memory.js';
import type { EpisodeInput } from '../src/core/model/events.js';
import { passagesOf } from '../src/core/retrieval/passages.js';
import { memoryWith, minute } from './helpers.js';
import { withoutMethods } from '../src/bench/ablation.js';
import { KEYWORD_RECIPE, type RetrievalRecipe } from '../src/core/retrieval/recipe.js';

const words = (s: string): string[] => s.split(/\s+/).filter(Boolean);
const SHAPE = KEYWORD_RECIPE.candidates.passages;
const split = (text: string): string[] => passagesOf(text, SHAPE).map((p) => text.slice(p.start, p.end));

test('passagesOf: a short turn has none; a long one is cut at sentence ends, no passage over the bound, every word kept in order', () => {
  assert.deepEqual(split(Array.from({ length: SHAPE.minWords }, (_, i) => `w${i}`).join(' ')), []);
  // 30 sentences of 7 words (210 words), one sentence of 130 words in the middle.
  const sentences = Array.from({ length: 30 }, (_, i) => `Sentence ${i} has exactly seven words here.`);
  sentences.splice(15, 0, Array.from({ length: 130 }, (_, i) => `long${i}`).join(' ') + '.');
  const text = sentences.join(' ');
  const parts = split(text);
  assert.deepEqual(parts.flatMap(words), words(text));
  for (const p of parts) assert.ok(words(p).length <= SHAPE.maxWords, `${words(p).length} words: ${p}`);
  // Where sentences fit, a passage ends where a sentence does.
  for (const p of parts.filter((p) => p.startsWith('Sentence'))) assert.match(p, /here\.$|long\d+$/);
  // The 130-word sentence is cut into pieces of the bound.
  assert.ok(parts.some((p) => p === Array.from({ length: SHAPE.maxWords }, (_, i) => `long${i}`).join(' ')));
});

const FILLER = [
  'I went through the build output again this morning and nothing else looked off.',
  'The lint step still warns about unused imports in the old test helpers, which we can leave for now.',
  'Release notes are drafted in the wiki and need a second pair of eyes before Friday.',
  'The flaky integration test passed five times in a row after the retry change.',
  'Docs for the new settings page are half written; screenshots come next week.',
  'Nobody has touched the mobile client since the holidays, so it can wait.',
  'CPU usage on the build agents is back to normal after we cleaned the caches.',
  'We should also remember to rotate the service account keys at the end of the month.',
  'The design review moved to Thursday afternoon.',
];
/** A long answer (over SHAPE.minWords words) whose one sentence says where the staging proxy listens. */
const LONG = [...FILLER.slice(0, 5), 'The staging proxy listens on port 8443 behind the load balancer.', ...FILLER.slice(5)].join(' ');
const SHORT = [
  'The staging proxy restarted twice overnight.',
  'Staging proxy logs are noisy again, the port scan alerts.',
  'Which port did the old proxy use?',
  'Staging is slow today.',
];

/** A memory holding the short turns and `long` (an assistant's) in one session, and `extra`, as an agent sends them. */
function stagingMemory(extra: EpisodeInput[] = [], long = LONG) {
  const turn = (text: string, i: number, speaker = 'dev'): EpisodeInput => ({ session: 's1', speaker, text, time: minute(i) });
  return memoryWith([...SHORT.map((t, i) => turn(t, i)), turn(long, 10, 'assistant'), ...extra], {
    by: { authority: 'agent', source: 'test' },
  });
}

const ask = (memory: Memory, recipe: RetrievalRecipe = KEYWORD_RECIPE, extra: object = {}): string[] =>
  memory
    .query({ query: 'which port does the staging proxy listen on', limit: 10, mode: 'keyword', ...extra }, recipe)
    .episodes.map((e) => e.text);

test('passages: the long answer holding the sentence is found first, and not without the method', async () => {
  assert.ok(words(LONG).length > SHAPE.minWords);
  const { memory } = await stagingMemory();
  const on = ask(memory);
  assert.equal(on[0], LONG, on.join(' | '));
  const off = ask(memory, withoutMethods(KEYWORD_RECIPE, ['passages']));
  assert.ok(off.includes(LONG) && off[0] !== LONG, off.join(' | '));
});

test("passages: another project's long turn is not found through its passages", async () => {
  const other = LONG.replace('8443', '9443');
  const { memory } = await stagingMemory([
    { session: 's2', speaker: 'assistant', text: other, time: '2024-01-02T00:00:00Z', project: 'github.com/acme/other' },
  ]);
  assert.ok(ask(memory, KEYWORD_RECIPE, { scope: 'all' }).includes(other));
  const mine = ask(memory, KEYWORD_RECIPE, { project: null });
  assert.ok(!mine.includes(other), mine.join(' | '));
  assert.equal(mine[0], LONG);
});

test('passages: characters of several bytes before the sentence do not move where it is found', async () => {
  // offsets() counts UTF-8 bytes; the passages are cut in UTF-16 characters.
  // The answer closes the turn, after text of 2 to 4 bytes a character: counted in bytes, it would lie past the end.
  const accented = [
    `Zoë 👩‍💻 wrote the ünïcödé notes — ${Array.from({ length: 40 }, () => '日本語のメモ').join(' ')}.`,
    ...FILLER,
    'The staging proxy listens on port 8443 behind the load balancer.',
  ].join(' ');
  const { memory } = await stagingMemory([], accented);
  const on = ask(memory);
  assert.equal(on[0], accented, on.join(' | '));
  const off = ask(memory, withoutMethods(KEYWORD_RECIPE, ['passages']));
  assert.notEqual(off[0], accented, off.join(' | '));
});
