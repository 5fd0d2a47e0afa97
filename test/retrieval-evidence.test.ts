/**
 * The graph's facts pull in their evidence turns (facts.ts evidenceEpisodes, the recipe's `facts.evidence`): in a real
 * memory on disk, a turn that shares no word with the question comes up because a fact about what
 * the question names cites it, and only then: not with the method off, not from another project,
 * not for a fact marked wrong unless history is asked for.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Memory } from '../src/core/memory/memory.js';
import type { EpisodeInput } from '../src/core/model/events.js';
import { withoutMethods, withSettings } from '../src/bench/ablation.js';
import { fuse, fuseEpisodes } from '../src/core/retrieval/fuse.js';
import { DEFAULT_RECIPE, type RetrievalRecipe } from '../src/core/retrieval/recipe.js';
import { memoryWith, minute } from './helpers.js';

const A = 'github.com/me/alpha';
const B = 'github.com/me/beta';
const person = (project?: string | null) => ({ authority: 'human' as const, source: 'cli', ...(project !== undefined ? { project } : {}) });

/** Twelve turns of Joanna's (so the keyword channel fills the top 10 with her), none about a pet. */
const JOANNA: string[] = [
  'I started a new painting class on Tuesdays.',
  'The museum downtown reopened its modern wing.',
  'My sister visited from Denver for a few days.',
  'Work has been busy with the quarterly reports.',
  'I tried baking sourdough bread for the first time.',
  'We watched a documentary about deep sea creatures.',
  'The garden finally has tomatoes growing.',
  'I signed up for a half marathon in the spring.',
  'Our book club is reading a mystery novel.',
  'The new cafe on the corner makes great espresso.',
  'I repainted the kitchen a pale yellow.',
  'My cousin is getting married in June.',
];

/** A memory on disk holding Joanna's turns (session s1) and `more` ([session, speaker, text, project?]), each stored on its own; the ids of `more`. */
async function joannaWith(more: [string, string, string, (string | null)?][]): Promise<{ memory: Memory; ids: string[] }> {
  const turn = (session: string, speaker: string, text: string, i: number, project?: string | null): EpisodeInput => ({
    session,
    speaker,
    text,
    entities: [speaker],
    time: minute(i),
    ...(project !== undefined ? { project } : {}),
  });
  const { memory } = await memoryWith(JOANNA.map((text, i) => turn('s1', 'Joanna', text, i, A)));
  const ids = more.map(
    ([session, speaker, text, project], i) =>
      memory.ingest([turn(session, speaker, text, 100 + i, project)], { authority: 'user', source: 'test' }).results[0]!.id,
  );
  return { memory, ids };
}

const keywordOnly = (recipe: RetrievalRecipe): RetrievalRecipe => ({ ...recipe, channels: { ...recipe.channels, vector: false } });

const QUESTION = 'What pet does Joanna have?';

const top = (memory: Memory, opts: { recipe?: RetrievalRecipe; project?: string; scope?: 'all'; history?: boolean } = {}): string[] =>
  memory
    .query(
      { query: QUESTION, limit: 10, mode: 'keyword', project: opts.project, scope: opts.scope, history: opts.history },
      keywordOnly(opts.recipe ?? DEFAULT_RECIPE),
    )
    .episodes.map((e) => e.id);

test('evidence: a turn sharing no word with the question is found through the fact it backs, and only with the method on', async () => {
  const { memory, ids } = await joannaWith([
    ['s2', 'Mel', 'How was your weekend?'],
    ['s2', 'Nate', 'Biscuit chewed my shoes again when I visited.'],
    ['s2', 'Mel', 'Ha, typical puppy.'],
  ]);
  const biscuit = ids[1]!;
  const off = withoutMethods(DEFAULT_RECIPE, ['evidence']);
  const before = top(memory);
  assert.equal(before.length, 10, 'the keyword channel alone fills the top 10 with Joanna');
  assert.ok(!before.includes(biscuit), 'no fact yet: the turn is not found');

  memory.relate({ subject: 'Joanna', predicate: 'has pet', object: 'Biscuit', evidence: [biscuit] }, person());
  const on = memory.query({ query: QUESTION, limit: 10, mode: 'keyword' }, keywordOnly(DEFAULT_RECIPE));
  assert.ok(
    on.facts.some((f) => f.object === 'Biscuit'),
    'the fact about Joanna is found',
  );
  assert.ok(
    on.episodes.some((e) => e.id === biscuit),
    'its evidence turn is in the top 10',
  );
  assert.ok(on.channels.includes('evidence'));
  const without = memory.query({ query: QUESTION, limit: 10, mode: 'keyword' }, keywordOnly(off));
  assert.ok(!without.episodes.some((e) => e.id === biscuit), 'with the method off it is not');
  assert.ok(!without.channels.includes('evidence'));
  assert.deepEqual(
    without.episodes.map((e) => e.id),
    before,
    'off, the episodes are what they were before the fact',
  );
  const noGraph = { ...DEFAULT_RECIPE, channels: { keyword: true, graph: false, vector: false } };
  assert.ok(!top(memory, { recipe: noGraph }).includes(biscuit), 'without the graph channel there are no facts to lead to it');
});

test("evidence: under a project scope, a fact's turn of another project is not pulled in", async () => {
  const { memory, ids } = await joannaWith([
    ['s2', 'Nate', 'Biscuit chewed my shoes again when I visited.', B],
    ['s3', 'Nate', 'Biscuit sleeps all day on the sofa.', null],
  ]);
  const [beta, global] = [ids[0]!, ids[1]!];
  // A global fact: every project sees it, but not every turn it cites.
  memory.relate({ subject: 'Joanna', predicate: 'has pet', object: 'Biscuit', evidence: [beta, global], project: null }, person(null));
  const inAlpha = top(memory, { project: A });
  assert.ok(inAlpha.includes(global), 'the global turn is pulled in');
  assert.ok(!inAlpha.includes(beta), "the other project's turn is not");
  assert.ok(top(memory, { project: A, scope: 'all' }).includes(beta), 'over every project it is');
});

test('evidence: a turn cited only by a fact marked wrong is pulled in only when history is asked for', async () => {
  const { memory, ids } = await joannaWith([['s2', 'Nate', 'Biscuit chewed my shoes again when I visited.']]);
  const biscuit = ids[0]!;
  const fact = memory.relate({ subject: 'Joanna', predicate: 'has pet', object: 'Biscuit', evidence: [biscuit] }, person()).id;
  assert.ok(top(memory).includes(biscuit), 'while the fact is current its turn comes up');
  memory.correct({ id: fact, verdict: 'wrong', reason: 'it is Nate’s dog' }, person());
  assert.ok(!top(memory).includes(biscuit), 'a wrong fact lends its turn nothing');
  assert.ok(top(memory, { history: true }).includes(biscuit), 'with history it does');
});

test('evidence: an empty list leaves the fused episodes as they were; a turn only the facts cite goes in about 8th', () => {
  const keyword = [
    { rowid: 1, score: 9 },
    { rowid: 2, score: 4 },
  ];
  const vector = [
    { rowid: 3, score: 0.9 },
    { rowid: 1, score: 0.8 },
  ];
  // With an empty evidence list the episodes are the keyword list as ranked, or it and the vector list fused.
  assert.deepEqual(fuseEpisodes({ keyword, evidence: [] }, DEFAULT_RECIPE, 5), keyword);
  assert.deepEqual(
    fuseEpisodes({ keyword, vector, evidence: [] }, DEFAULT_RECIPE, 5),
    fuse([keyword, vector], [1, 1], DEFAULT_RECIPE.fusion.k),
  );
  // A turn only the facts cite, against a single keyword list of twelve: it goes in at about the
  // 8th place (the recipe's facts.evidence.weight), below the keyword list's first seven.
  const twelve = Array.from({ length: 12 }, (_, i) => ({ rowid: i + 1, score: 12 - i }));
  const fused = fuseEpisodes({ keyword: twelve, evidence: [{ rowid: 99, score: 1 }] }, DEFAULT_RECIPE, 10).map((h) => h.rowid);
  assert.equal(fused.indexOf(99), 7);
  assert.deepEqual(
    fused.filter((r) => r !== 99),
    twelve.map((h) => h.rowid),
    'the keyword order is kept',
  );
});

test('evidence: a fact lends only its latest perFact turns, so a much-reinforced fact costs no more', async () => {
  const { memory, ids } = await joannaWith([
    ['s2', 'Nate', 'Biscuit chewed my shoes.'],
    ['s3', 'Nate', 'Biscuit dug up the garden.'],
    ['s4', 'Nate', 'Biscuit learned to sit.'],
  ]);
  memory.relate({ subject: 'Joanna', predicate: 'has pet', object: 'Biscuit', evidence: ids }, person());
  const withCap = (perFact: number): string[] =>
    top(memory, { recipe: withSettings(DEFAULT_RECIPE, { 'facts.evidence.perFact': perFact }) });
  assert.ok(withCap(3).includes(ids[0]!), 'the oldest of three turns, with three per fact');
  assert.deepEqual(
    ids.map((id) => withCap(1).includes(id)),
    [false, false, true],
    'only the latest evidence turn',
  );
});
