/**
 * Retrieval: the BM25 arithmetic, query analysis, the keyword index of a conversation, the
 * LoCoMo parser, and the LoCoMo bench (on a hand-written fixture always, on the real data when
 * it is present).
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runLocomoBench } from '../src/bench/locomo.js';
import { resolveConfig } from '../src/core/model/config.js';
import type { EpisodeRecord } from '../src/core/model/events.js';
import { Graph } from '../src/core/store/graph.js';
import { all } from '../src/core/store/sqlite.js';
import { isLocomo, parseLocomo, parseLocomoDate } from '../src/core/ingest/locomo.js';
import { analyseQuery, rankEpisodes } from '../src/core/retrieval/retrieve.js';
import { bm25, bm25Episodes, registerRanking, RETRIEVAL, weightsHandle } from '../src/core/retrieval/keyword.js';
import { unindexEpisode } from '../src/core/store/fts.js';
import { loadSqlJs } from '../src/core/store/sqlite.js';
import { dateMentions, ftsOr, queryTerms } from '../src/core/retrieval/text.js';

const ROOT = path.resolve(__dirname, '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'locomo-mini.json');
const REAL_DATA = path.resolve(ROOT, '..', 'shared', 'data', 'locomo-dev.json');

/** A matchinfo 'pcnalx' blob from its parts, as FTS4 lays it out (native-endian uint32). */
function matchinfo(p: number, c: number, n: number, avg: number[], len: number[], x: number[]): Uint8Array {
  return new Uint8Array(new Uint32Array([p, c, n, ...avg, ...len, ...x]).buffer);
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
    registerRanking(db, { k1: 1.2, b: 0.75 });
    const rows = all(db, "SELECT docid, recall_bm25(matchinfo(t, 'pcnalx'), ?) AS s FROM t WHERE t MATCH 'bicycle' ORDER BY s DESC", [
      weightsHandle([1, 0]),
    ]);
    // df 2 of 4: idf = ln 2. Row 1 (length 1): norm 0.5, tf part 2.2 / 1.6; row 3 (length 5): norm 1.5, tf part 2.2 / 2.8.
    assert.deepEqual(rows.map((r) => Number(r.docid)), [1, 3]);
    assert.ok(Math.abs(Number(rows[0]!.s) - Math.LN2 * (2.2 / 1.6)) < 1e-9, `got ${String(rows[0]!.s)}`);
    assert.ok(Math.abs(Number(rows[1]!.s) - Math.LN2 * (2.2 / 2.8)) < 1e-9, `got ${String(rows[1]!.s)}`);
  } finally {
    db.close();
  }
});

test('query terms: stop words, possessives, lone letters, quoting', () => {
  assert.deepEqual(queryTerms("What did Caroline's sister say about the adoption agencies?"), ['caroline', 'sister', 'say', 'adoption', 'agencies']);
  assert.deepEqual(queryTerms('Which areas of the U.S. has John been to?'), ['areas', 'john']);
  assert.deepEqual(queryTerms('What is Joanna\u2019s dog called?'), ['joanna', 'dog', 'called']);
  assert.deepEqual(queryTerms('Would Melanie likely enjoy it?'), ['melanie', 'enjoy']);
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
});

test('a reply is found through the turn it answers, and a removed turn leaves no trace', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    Graph.createSchema(db);
    registerRanking(db);
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
    const q = (text: string) => rankEpisodes(db, analyseQuery(db, text), 10).map((h) => h.rowid);
    // The answer turn (2) holds neither "weekend" nor "go": its question (1) does, and lends it score.
    assert.deepEqual(q('where did they go last weekend').slice(0, 2), [1, 2]);
    // Only the keyword index holds the text's words; the speaker column matches names.
    assert.deepEqual(bm25Episodes(db, [{ term: 'bea', weight: 1 }], 10).map((h) => h.rowid).sort(), [2, 4]);
    unindexEpisode(db, 3);
    db.run('DELETE FROM episodes WHERE rowid = 3');
    assert.deepEqual(bm25Episodes(db, [{ term: 'octopus', weight: 1 }], 10), []);
    assert.deepEqual(q('octopus'), [], 'nothing lends the removed turn\'s words to its neighbours');
  } finally {
    db.close();
  }
});

test('a question of only common words scores the newest matching rows, and still fills its limit', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  const saved = RETRIEVAL.maxScoredRows;
  try {
    Graph.createSchema(db);
    registerRanking(db);
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
    RETRIEVAL.maxScoredRows = 40;
    const build = bm25Episodes(db, [{ term: 'build', weight: 1 }], 10).map((h) => h.rowid);
    assert.equal(build.length, 10);
    // 400 matches, bound 40: the window starts 40 rowids from the newest (400).
    assert.ok(build.every((r) => r >= 360), `scored outside the newest window: ${build.join(', ')}`);
    const both = bm25Episodes(db, [{ term: 'build', weight: 1 }, { term: 'cache', weight: 1 }], 10).map((h) => h.rowid);
    assert.equal(both.length, 10);
    // The rarer word sets the window (100 matches: the newest 40 x 400 / 100 = 160 rowids); rows
    // holding both words come first.
    assert.ok(both.every((r) => r >= 240 && (r - 1) % 4 === 0), `expected newest rows with both words: ${both.join(', ')}`);
    // A limit the window cannot fill widens to every row.
    assert.equal(bm25Episodes(db, [{ term: 'cache', weight: 1 }], 100).length, 100);
    RETRIEVAL.maxScoredRows = saved;
    assert.ok(bm25Episodes(db, [{ term: 'build', weight: 1 }], 10).some((r) => r.rowid < 360), 'under the bound every row is scored');
  } finally {
    RETRIEVAL.maxScoredRows = saved;
    db.close();
  }
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
  assert.equal(a!.episodes[4]!.text, 'Mostly hawks. Here is the view from the top. [shares a photo: a photo of a valley with fog and green hills]');
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
});

test('LoCoMo bench in vector and hybrid modes embeds every turn with the given model', async () => {
  await assert.rejects(runLocomoBench({ dataFile: FIXTURE, mode: 'vector' }), /needs an embedding model: --model-path DIR/);
  const model = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-locomo-model-'));
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'make-test-model.mjs'), model], { stdio: 'pipe' });
    for (const mode of ['vector', 'hybrid'] as const) {
      const r = await runLocomoBench({ dataFile: FIXTURE, mode, modelPath: model });
      assert.equal(r.mode, mode);
      assert.match(r.model ?? '', /^local:/);
      assert.equal(r.questions, 5);
      // mini-2 has eight turns: every one has a vector, so all are among the top ten.
      assert.equal(r.by_conversation['mini-2']!['recall@10'], 1, JSON.stringify(r));
    }
  } finally {
    fs.rmSync(model, { recursive: true, force: true });
  }
});

test('LoCoMo bench on the real data (recall@10 >= 0.60)', { skip: !fs.existsSync(REAL_DATA) && `no LoCoMo data at ${REAL_DATA}` }, async () => {
  const r = await runLocomoBench({ dataFile: REAL_DATA });
  assert.ok(r.questions > 700, `only ${r.questions} questions`);
  assert.ok(r['recall@10'] >= 0.6, `recall@10 ${r['recall@10']}`);
});
