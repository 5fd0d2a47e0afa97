/**
 * Retrieval: the BM25 arithmetic, query analysis, the keyword index of a conversation, recipes
 * passed per query and the fusion of channels, the LoCoMo parser, and the LoCoMo bench (on a
 * hand-written fixture always, on the real data when it is present; vector and hybrid modes and
 * `recall bench` through the built bundles).
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { replaceSection } from '../src/bench/docs.js';
import { runLocomoBench } from '../src/bench/locomo.js';
import { resolveConfig } from '../src/core/model/config.js';
import type { EpisodeRecord } from '../src/core/model/events.js';
import { Graph } from '../src/core/store/graph.js';
import { all } from '../src/core/store/sqlite.js';
import { isLocomo, parseLocomo, parseLocomoDate } from '../src/core/ingest/locomo.js';
import { withoutMethods, withSettings } from '../src/bench/ablation.js';
import { analyseQuery } from '../src/core/retrieval/analyse.js';
import { episodeCandidates, searchTurns } from '../src/core/retrieval/candidates.js';
import { dateMentions } from '../src/core/retrieval/dates.js';
import { fuseEntities, fuseEpisodes } from '../src/core/retrieval/fuse.js';
import {
  DEFAULT_RECIPE,
  HYBRID_RECIPE,
  KEYWORD_RECIPE,
  recipeFor,
  VECTOR_RECIPE,
  type RetrievalRecipe,
} from '../src/core/retrieval/recipe.js';
import { rescoreEpisodes } from '../src/core/retrieval/rescore.js';
import { ftsOr, queryTerms } from '../src/core/retrieval/text.js';
import type { Hit } from '../src/core/retrieval/types.js';
import { unindexEpisode } from '../src/core/store/fts.js';
import type { SearchIndex } from '../src/core/store/search-index.js';
import { bm25, registerRanking, weightsHandle } from '../src/core/store/ranking.js';
import { loadSqlJs } from '../src/core/store/sqlite.js';
import { memoryWith, minute, tmpFolder } from './helpers.js';

const ROOT = path.resolve(__dirname, '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'locomo-mini.json');
const REAL_DATA = path.resolve(ROOT, '..', 'shared', 'data', 'locomo-dev.json');
const BENCH = path.join(ROOT, 'dist', 'bench.js');
const CLI = path.join(ROOT, 'dist', 'cli.js');

/** Runs a built bundle; its last stdout line is the JSON result. */
function runBundle(script: string, args: string[], cwd = ROOT): { code: number | null; stdout: string; stderr: string; result: any } {
  const r = spawnSync(process.execPath, [script, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, result: last.startsWith('{') ? JSON.parse(last) : undefined };
}

/** A matchinfo 'pcnalx' blob from its parts, as FTS4 lays it out (native-endian uint32). */
function matchinfo(p: number, c: number, n: number, avg: number[], len: number[], x: number[]): Uint8Array {
  return new Uint8Array(new Uint32Array([p, c, n, ...avg, ...len, ...x]).buffer);
}

/** The keyword half of a question's episodes: its analysis, the candidates, rescored (retrieve.ts prepare, without the scope and entities). */
function keywordHalf(index: SearchIndex, text: string, limit: number, recipe: RetrievalRecipe): Hit[] {
  const q = analyseQuery(index, text, recipe);
  return rescoreEpisodes(index, episodeCandidates(index, q, limit, recipe, {}), q, limit, recipe);
}

test('bm25: one term, one column, average-length row (hand computed)', () => {
  // n = 4 rows, the term is in 2 of them, twice in this row, which has the average length.
  // idf = ln(1 + (4 - 2 + 0.5) / (2 + 0.5)) = ln 2; tf part = 2 * 2.2 / (2 + 1.2 * 1) = 1.375
  const score = bm25(matchinfo(1, 1, 4, [5], [5], [2, 3, 2]), { k1: 1.2, b: 0.75, columnWeights: [1] });
  assert.ok(Math.abs(score - Math.LN2 * 1.375) < 1e-12, `got ${score}`);
});

test('bm25: column and term weights, length normalisation', () => {
  // Two columns; the term is once in column 0 of a row twice the average length, absent from column 1.
  // norm = 0.25 + 0.75 * 2 = 1.75; tf part = 2.2 / (1 + 1.2 * 1.75) = 0.70968; idf = ln(1 + 10.5 / 1.5) = ln 8
  const mi = matchinfo(1, 2, 11, [10, 3], [20, 3], [1, 1, 1, 0, 4, 3]);
  const expected = 0.5 * 2 * Math.log(8) * (2.2 / (1 + 1.2 * 1.75));
  const score = bm25(mi, { k1: 1.2, b: 0.75, columnWeights: [2, 1], termWeights: [0.5] });
  assert.ok(Math.abs(score - expected) < 1e-12, `got ${score}, expected ${expected}`);
  assert.equal(bm25(mi, { k1: 1.2, b: 0.75, columnWeights: [2, 1], termWeights: [0] }), 0);
});

test('bm25 in SQL agrees with the hand computation over a real FTS4 table', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    db.exec('CREATE VIRTUAL TABLE t USING fts4(text, context, tokenize=porter)');
    // 12 tokens in 4 rows: average length 3 (FTS4 reports it rounded to a whole number).
    const docs = ['bicycle', 'blue car', 'green bicycle lane is long', 'old tram car stop'];
    docs.forEach((d, i) => db.run('INSERT INTO t(docid, text, context) VALUES (?, ?, ?)', [i + 1, d, 'ignored words']));
    registerRanking(db);
    const rows = all(db, "SELECT docid, recall_bm25(matchinfo(t, 'pcnalx'), ?) AS s FROM t WHERE t MATCH 'bicycle' ORDER BY s DESC", [
      weightsHandle({ k1: 1.2, b: 0.75, columnWeights: [1, 0] }),
    ]);
    // df 2 of 4: idf = ln 2. Row 1 (length 1): norm 0.5, tf part 2.2 / 1.6; row 3 (length 5): norm 1.5, tf part 2.2 / 2.8.
    assert.deepEqual(
      rows.map((r) => Number(r.docid)),
      [1, 3],
    );
    assert.ok(Math.abs(Number(rows[0]!.s) - Math.LN2 * (2.2 / 1.6)) < 1e-9, `got ${String(rows[0]!.s)}`);
    assert.ok(Math.abs(Number(rows[1]!.s) - Math.LN2 * (2.2 / 2.8)) < 1e-9, `got ${String(rows[1]!.s)}`);
  } finally {
    db.close();
  }
});

test("bm25 from 'pcnaly' with the rows holding each phrase scores as from 'pcnalx'", async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    db.exec('CREATE VIRTUAL TABLE t USING fts4(text, speaker, tokenize=porter)');
    const docs = [
      ['the bicycle lane is long', 'mel'],
      ['a blue car and a bicycle bicycle', 'caroline'],
      ['green car', 'mel'],
      ['old tram stop', 'car'],
    ];
    docs.forEach(([text, speaker], i) => db.run('INSERT INTO t(docid, text, speaker) VALUES (?, ?, ?)', [i + 1, text, speaker]));
    const match = '"bicycle" OR "car" OR speaker:mel';
    const mi = all(db, "SELECT matchinfo(t, 'pcx') AS mi FROM t WHERE t MATCH ? LIMIT 1", [match])[0]!.mi as Uint8Array;
    const x = new Uint32Array(mi.buffer, mi.byteOffset, mi.byteLength / 4);
    const rowsWithHits = Array.from({ length: 3 * 2 }, (_, k) => x[2 + 3 * k + 2]!);
    const params = { k1: 1.2, b: 0.5, columnWeights: [1, 0.5], termWeights: [1, 0.5, 1] };
    const rows = all(db, "SELECT matchinfo(t, 'pcnalx') AS x, matchinfo(t, 'pcnaly') AS y FROM t WHERE t MATCH ? AND docid >= 2", [match]);
    assert.equal(rows.length, 3);
    for (const r of rows) {
      const expected = bm25(r.x as Uint8Array, params);
      assert.ok(expected > 0);
      assert.equal(bm25(r.y as Uint8Array, { ...params, rowsWithHits }), expected);
    }
  } finally {
    db.close();
  }
});

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

test('a reply is found through the turn it answers, and a removed turn leaves no trace', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    Graph.createSchema(db);
    const graph = new Graph(db, resolveConfig());
    const turns = ['Where did you go last weekend?', 'To the aquarium with my nephew.', 'Did he like the octopus?', 'He loved it.'];
    const episodes: EpisodeRecord[] = turns.map((text, i) => ({
      id: `ep_${i + 1}`,
      hash: `h${i}`,
      authority: 'user',
      text,
      speaker: i % 2 ? 'Bea' : 'Al',
      session: 's1',
      time: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
    }));
    graph.apply({ type: 'episodes.add', episodes, seq: 1, at: '2024-01-01T00:00:00.000Z', by: { authority: 'user' } });
    const q = (text: string) => keywordHalf(graph.index, text, 10, DEFAULT_RECIPE).map((h) => h.rowid);
    // The answer turn (2) holds neither "weekend" nor "go": its question (1) does, and lends it score.
    assert.deepEqual(q('where did they go last weekend').slice(0, 2), [1, 2]);
    // Only the keyword index holds the text's words; the speaker column matches names.
    assert.deepEqual(
      searchTurns(graph.index, [{ term: 'bea', weight: 1 }], 10, DEFAULT_RECIPE)
        .map((h) => h.rowid)
        .sort(),
      [2, 4],
    );
    unindexEpisode(db, 3);
    db.run('DELETE FROM episodes WHERE rowid = 3');
    assert.deepEqual(searchTurns(graph.index, [{ term: 'octopus', weight: 1 }], 10, DEFAULT_RECIPE), []);
    assert.deepEqual(q('octopus'), [], "nothing lends the removed turn's words to its neighbours");
  } finally {
    db.close();
  }
});

test('a turn asking with the full-width question mark of Chinese and Japanese lends its reply more than its other neighbours', async () => {
  const { memory: m } = await memoryWith([
    { text: '今日は晴れ', session: 's', time: minute(0) },
    { text: '好きな料理は何ですか？', session: 's', time: minute(1) },
    { text: 'ラーメンです', session: 's', time: minute(2) },
  ]);
  const score = new Map(m.query({ query: '料理', limit: 3, mode: 'keyword' }).episodes.map((e) => [e.text, e.score]));
  assert.ok(score.get('ラーメンです')! > score.get('今日は晴れ')!, JSON.stringify([...score]));
});

test('a question of only common words scores the newest matching rows, and still fills its limit', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    Graph.createSchema(db);
    const graph = new Graph(db, resolveConfig());
    // 400 turns say "build"; every fourth also says "cache". With the bound at 40 both words are common.
    const episodes: EpisodeRecord[] = Array.from({ length: 400 }, (_, i) => ({
      id: `ep_${i + 1}`,
      hash: `h${i}`,
      authority: 'user',
      text: i % 4 === 0 ? `the build cache step ${i}` : `the build ran step ${i}`,
      time: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
    }));
    graph.apply({ type: 'episodes.add', episodes, seq: 1, at: '2024-01-01T00:00:00.000Z', by: { authority: 'user' } });
    const bound = withSettings(DEFAULT_RECIPE, { 'candidates.maxScoredRows': 40 });
    const build = searchTurns(graph.index, [{ term: 'build', weight: 1 }], 10, bound).map((h) => h.rowid);
    assert.equal(build.length, 10);
    // 400 matches, bound 40: the window starts 40 rowids from the newest (400).
    assert.ok(
      build.every((r) => r >= 360),
      `scored outside the newest window: ${build.join(', ')}`,
    );
    const both = searchTurns(
      graph.index,
      [
        { term: 'build', weight: 1 },
        { term: 'cache', weight: 1 },
      ],
      10,
      bound,
    ).map((h) => h.rowid);
    assert.equal(both.length, 10);
    // The rarer word sets the window (100 matches: the newest 40 x 400 / 100 = 160 rowids); rows
    // holding both words come first.
    assert.ok(
      both.every((r) => r >= 240 && (r - 1) % 4 === 0),
      `expected newest rows with both words: ${both.join(', ')}`,
    );
    // A limit the window cannot fill widens to every row.
    assert.equal(searchTurns(graph.index, [{ term: 'cache', weight: 1 }], 100, bound).length, 100);
    assert.ok(
      searchTurns(graph.index, [{ term: 'build', weight: 1 }], 10, DEFAULT_RECIPE).some((r) => r.rowid < 360),
      'under the bound every row is scored',
    );
  } finally {
    db.close();
  }
});

test('recipes: one per mode, frozen through and through; a query takes its own', async () => {
  assert.equal(recipeFor(undefined), DEFAULT_RECIPE);
  assert.equal(DEFAULT_RECIPE, HYBRID_RECIPE);
  assert.equal(recipeFor('keyword'), KEYWORD_RECIPE);
  assert.equal(recipeFor('vector'), VECTOR_RECIPE);
  assert.equal(recipeFor('constructor'), DEFAULT_RECIPE, 'only the modes name recipes');
  const before = structuredClone(DEFAULT_RECIPE);
  for (const recipe of [DEFAULT_RECIPE, KEYWORD_RECIPE, VECTOR_RECIPE]) {
    assert.ok(
      Object.isFrozen(recipe) &&
        Object.isFrozen(recipe.candidates.bm25) &&
        Object.isFrozen(recipe.channels) &&
        Object.isFrozen(recipe.facts) &&
        Object.isFrozen(recipe.rescore.methods),
    );
  }
  assert.throws(() => {
    (DEFAULT_RECIPE as { candidates: unknown }).candidates = {};
  }, TypeError);
  assert.throws(() => {
    (DEFAULT_RECIPE.candidates.bm25 as { k1: number }).k1 = 9;
  }, TypeError);
  assert.throws(() => {
    (DEFAULT_RECIPE.rescore.methods as string[]).pop();
  }, TypeError);
  assert.deepEqual(DEFAULT_RECIPE, before);
});

test('two queries with different recipes rank differently, and neither changes the other', async () => {
  const turns = [
    { text: 'Morning, how was the trip?', speaker: 'Bea' },
    { text: 'Bea told me the market was closed.', speaker: 'Al' },
    { text: 'Shall we meet at noon?', speaker: 'Bea' },
  ];
  const { memory: m } = await memoryWith(
    turns.map((t, i) => ({ ...t, entities: [t.speaker], session: 's1', time: minute(i) })),
    { config: { extract: false } },
  );
  // Only the columns differ: what a turn says, or who said it. No boosts or spread to blur it.
  const plain = withoutMethods(KEYWORD_RECIPE, ['boosts', 'neighbours']);
  const said = withSettings(plain, { 'candidates.columns.text': 1, 'candidates.columns.speaker': 0, 'candidates.columns.parts': 0 });
  const speaker = withSettings(plain, { 'candidates.columns.text': 0, 'candidates.columns.speaker': 1, 'candidates.columns.parts': 0 });
  const texts = (recipe: RetrievalRecipe): string[] => m.query({ query: 'Bea', limit: 3 }, recipe).episodes.map((e) => e.text);
  // Every turn matches "Bea" in one column or the other; a column weighed 0 scores nothing.
  const bySaid = texts(said);
  const bySpeaker = texts(speaker);
  assert.equal(bySaid[0], turns[1]!.text, bySaid.join(' | '));
  assert.equal(bySpeaker.at(-1), turns[1]!.text, bySpeaker.join(' | '));
  assert.deepEqual(texts(said), bySaid, 'the second recipe left nothing behind');
  // The mode names the recipe when none is given: keyword + graph, no vector channel.
  assert.deepEqual(m.query({ query: 'Bea', mode: 'keyword' }).channels, ['keyword', 'entities']);
  assert.deepEqual(m.query({ query: 'Bea' }, { ...KEYWORD_RECIPE, channels: { keyword: true, graph: false, vector: false } }).channels, [
    'keyword',
  ]);
});

test('fusion: the recipe says which channels count, how much, and how deep each list goes', async () => {
  const hits = (...rowids: number[]) => rowids.map((rowid, i) => ({ rowid, score: 10 - i }));
  const rowids = (list: Hit[]): number[] => list.map((h) => h.rowid);
  const keyword = { episodes: hits(1, 2, 3), entities: hits(7) };
  const vector = { episode: hits(3, 4, 5), entity: hits(8, 7) };
  // Depth 3 x limit 1: three of each list; rowid 3 is in both episode lists, so it leads.
  assert.deepEqual(
    rowids(fuseEpisodes({ keyword: keyword.episodes, vector: vector.episode, evidence: [] }, DEFAULT_RECIPE, 1)).slice(0, 1),
    [3],
  );
  assert.deepEqual(rowids(fuseEpisodes({ keyword: hits(1, 2, 3, 4), evidence: [] }, DEFAULT_RECIPE, 1)), [1, 2, 3], 'cut at the depth');
  assert.deepEqual(rowids(fuseEntities({ keyword: keyword.entities, vector: vector.entity }, DEFAULT_RECIPE, 1)), [7, 8]);
  const vectorHeavy = withSettings(DEFAULT_RECIPE, { 'fusion.keyword': 0.1 });
  assert.deepEqual(
    rowids(fuseEpisodes({ keyword: keyword.episodes, vector: vector.episode, evidence: [] }, vectorHeavy, 3)).slice(0, 3),
    [3, 4, 5],
  );

  // On a memory: the vector channel's facts are cut at the same depth, and the keyword recipe leaves every vector hit out.
  const person = { authority: 'human' as const, source: 'test' };
  const { memory: m } = await memoryWith(
    [1, 2, 3, 4, 5].map((i) => ({ text: `turn ${i} about lunch`, session: 's', time: minute(i) })),
    { config: { extract: false }, by: person },
  );
  // Three doubtful facts, then a sure one: fourth by its vector rank, first by rank x confidence once it takes part.
  const facts = ['a', 'b', 'c'].map((x) => m.relate({ subject: x, predicate: 'is', object: 'doubtful', prior: 'speculative' }, person).id);
  facts.push(m.relate({ subject: 'd', predicate: 'is', object: 'sure', prior: 'explicit' }, person).id);
  const vectorHits = { episode: [], entity: [], fact: hits(...m.rowidsOf('rel', facts)) };
  const top = (limit: number): string[] => m.query({ query: 'zebra', limit, mode: 'hybrid', vectorHits }).facts.map((f) => f.id);
  assert.deepEqual(top(1), [facts[0]], 'limit 1: only the first three vector facts take part');
  assert.equal(top(2)[0], facts[3], 'limit 2: six take part, and the sure one leads');
  const episodeHits = { episode: hits(...m.rowidsOf('ep', ['ep_5'])), entity: [], fact: vectorHits.fact };
  const plain = m.query({ query: 'turn 1 lunch', limit: 2, mode: 'keyword' });
  const given = m.query({ query: 'turn 1 lunch', limit: 2, mode: 'keyword', vectorHits: episodeHits });
  assert.deepEqual(given.episodes, plain.episodes, 'the keyword recipe leaves the vector hits out');
  assert.deepEqual(given.facts, []);
  assert.ok(!given.channels.includes('vector'));
});

test('LoCoMo parser: turns, sessions, dates, captions, evidence', () => {
  const json = JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));
  assert.equal(isLocomo(json), true);
  assert.equal(isLocomo({ conversation: { speaker_a: 'A' } }), false);
  assert.equal(isLocomo([{ text: 'hi' }]), false);
  const [a, b] = parseLocomo(json, 'locomo-mini.json');
  assert.equal(a!.id, 'mini-1');
  assert.deepEqual(a!.speakers, ['Alice', 'Bob']);
  assert.equal(a!.episodes.length, 11); // session_3 has a date but no turns
  assert.deepEqual(a!.episodes[0], {
    text: 'Hey Bob! Long time no see. How have you been?',
    speaker: 'Alice',
    session: 'mini-1:session_1',
    ref: 'D1:1',
    time: '2023-05-08T13:56:00.000Z',
    source: 'locomo-mini.json',
    entities: ['Alice'],
  });
  assert.equal(
    a!.episodes[4]!.text,
    'Mostly hawks. Here is the view from the top. [shares a photo: a photo of a valley with fog and green hills]',
  );
  assert.equal(a!.episodes[6]!.time, '2023-05-20T10:05:00.000Z');
  assert.deepEqual(a!.qa[2]!.evidence, ['D1:3', 'D2:4']); // "D1:3; D2:4" split
  assert.equal(a!.qa[3]!.answer, 'it is grey'); // adversarial answer kept
  assert.deepEqual(b!.qa[0]!.evidence, ['D1:5']); // "D:1:5" normalised
  assert.deepEqual(b!.qa[1]!.evidence, ['D1:1']); // "D9:9" names no turn
  assert.equal(parseLocomoDate('12:48 am on 1 February, 2023'), '2023-02-01T00:48:00.000Z');
  assert.equal(parseLocomoDate('12:05 pm on 3 Sept, 2023'), '2023-09-03T12:05:00.000Z');
  assert.equal(parseLocomoDate('sometime'), undefined);
});

test('LoCoMo bench on the fixture: every answerable question asked and scored', async () => {
  const lines: string[] = [];
  const r = await runLocomoBench({ dataFile: FIXTURE, k: 3, log: (m) => lines.push(m) });
  assert.equal(r.questions, 5); // category 5 left out
  assert.equal(r.skipped, 0);
  assert.deepEqual(Object.keys(r.by_conversation), ['mini-1', 'mini-2']);
  assert.deepEqual(Object.keys(r.by_category).sort(), ['1', '2', '4']);
  assert.equal(lines.length, 2);
  assert.ok(r['recall@3'] <= r['recall@5'] && r['recall@5'] <= r['recall@10']);
  // Small enough to know the answers: every evidence turn is in the top ten, and the single-hop
  // questions, whose words are in their evidence, find it among the first three.
  assert.equal(r['recall@10'], 1, JSON.stringify(r));
  assert.equal(r.by_category['4']!['recall@3'], 1, JSON.stringify(r));
  assert.ok(r.query_p95_ms >= r.query_p50_ms);
  assert.equal(r.evidence_ranks, null, 'ranks only when asked for');
  // Every evidence turn is in the top ten (above), so every one is counted in the first bucket.
  const ranked = await runLocomoBench({ dataFile: FIXTURE, k: 3, ranks: true });
  const evidenceTurns = parseLocomo(JSON.parse(fs.readFileSync(FIXTURE, 'utf8')), 'x')
    .flatMap((c) => c.qa.filter((q) => q.category !== 5))
    .reduce((n, q) => n + q.evidence.length, 0);
  const buckets = Object.values(ranked.evidence_ranks ?? {});
  assert.equal(
    buckets.reduce((n, b) => n + b['1-10'], 0),
    evidenceTurns,
    JSON.stringify(ranked.evidence_ranks),
  );
  assert.equal(
    buckets.reduce((n, b) => n + b['11-20'] + b['21-50'] + b.none, 0),
    0,
  );
});

test("LoCoMo bench in vector and hybrid modes runs the service's vector channel on every kind (dist/bench.js)", async () => {
  await assert.rejects(runLocomoBench({ dataFile: FIXTURE, mode: 'vector' }), /needs an embedding model: --model-path DIR/);
  const model = tmpFolder('locomo-model');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'make-test-model.mjs'), model], { stdio: 'pipe' });
  for (const mode of ['vector', 'hybrid'] as const) {
    // The model runs in the service's embedding worker, a bundle: the built benchmark runs it.
    const { code, stderr, result: r } = runBundle(BENCH, ['locomo', '--data', FIXTURE, '--mode', mode, '--model-path', model, '--json']);
    assert.equal(code, 0, stderr);
    assert.equal(r.mode, mode);
    assert.match(r.model ?? '', /^local:/);
    assert.equal(r.questions, 5);
    // Every turn, entity and fact was embedded before the questions, as the service would have.
    assert.equal(r.vectors_by_kind.episode, r.by_conversation['mini-1'].episodes + r.by_conversation['mini-2'].episodes);
    assert.ok(r.vectors_by_kind.entity > 0, JSON.stringify(r.vectors_by_kind));
    // mini-2 has eight turns: every one has a vector, so all are among the top ten.
    assert.equal(r.by_conversation['mini-2']['recall@10'], 1, JSON.stringify(r));
  }
});

test('`recall bench` loads dist/bench.js at run time, and says so when it is missing', () => {
  const viaCli = runBundle(CLI, ['bench', 'locomo', '--data', FIXTURE, '--k', '3', '--json']);
  assert.equal(viaCli.code, 0, viaCli.stderr);
  assert.equal(viaCli.result.questions, 5);
  assert.equal(viaCli.result['recall@10'], 1);
  assert.doesNotMatch(fs.readFileSync(CLI, 'utf8'), /runLocomoBench/, 'the benchmarks are not bundled into the CLI');
  // Another suite's option is refused, not ignored: a bench run must measure what it says.
  const refused = runBundle(CLI, ['bench', 'projects', '--data', FIXTURE, '--without', 'forms']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /bench projects does not take --without \(it takes --data, --json, --write-docs\)/);
  assert.match(runBundle(CLI, ['bench', 'nosuch']).stderr, /bench needs a suite: locomo, scale, projects/);
  const alone = tmpFolder('cli-alone');
  fs.copyFileSync(CLI, path.join(alone, 'cli.js'));
  const r = runBundle(path.join(alone, 'cli.js'), ['bench', 'locomo', '--data', FIXTURE]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /benchmarks are not in this build: .*bench\.js is missing/);
});

test("--write-docs replaces the bench's own section of docs/BENCHMARKS.md and nothing else", () => {
  const doc = ['# Benchmarks', '<!-- bench:locomo-keyword -->', 'old figures', '<!-- /bench:locomo-keyword -->', 'Kept.', ''].join('\n');
  assert.equal(replaceSection(doc, 'locomo-keyword', 'new'), doc.replace('old figures', 'new'));
  assert.equal(
    replaceSection('# B\n', 'scale', 'x'),
    '# B\n\n<!-- bench:scale -->\nx\n<!-- /bench:scale -->\n',
    'a missing section is added at the end',
  );
  const repo = tmpFolder('docs');
  fs.mkdirSync(path.join(repo, 'docs'));
  fs.writeFileSync(path.join(repo, 'docs', 'BENCHMARKS.md'), doc);
  const r = runBundle(BENCH, ['locomo', '--data', FIXTURE, '--k', '3', '--write-docs'], repo);
  assert.equal(r.code, 0, r.stderr);
  const written = fs.readFileSync(path.join(repo, 'docs', 'BENCHMARKS.md'), 'utf8');
  assert.ok(written.startsWith('# Benchmarks\n<!-- bench:locomo-keyword -->\n### LoCoMo retrieval, keyword mode'), written);
  assert.ok(written.endsWith('<!-- /bench:locomo-keyword -->\nKept.\n'), written);
  assert.doesNotMatch(written, /old figures/);
  assert.match(written, /node dist\/bench\.js locomo --data \S+locomo-mini\.json --k 3 --mode keyword/);
  assert.match(written, new RegExp(`${os.cpus().length} cores`));
  assert.match(written, /\| all \| 5 \| [0-9.]+ \| [0-9.]+ \| 1\.000 \|/);
});

test(
  'LoCoMo bench on the real data (recall@10 >= 0.60)',
  { skip: !fs.existsSync(REAL_DATA) && `no LoCoMo data at ${REAL_DATA}` },
  async () => {
    const r = await runLocomoBench({ dataFile: REAL_DATA });
    assert.ok(r.questions > 700, `only ${r.questions} questions`);
    assert.ok(r['recall@10'] >= 0.6, `recall@10 ${r['recall@10']}`);
  },
);
