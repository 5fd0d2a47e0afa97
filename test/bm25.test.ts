/**
 * BM25 as the search index ranks turns and entities with it (store/ranking.ts): the arithmetic by
 * hand, and the SQL function over a real FTS4 table, from either matchinfo layout.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { bm25, registerRanking, weightsHandle } from '../src/core/store/ranking.js';
import { all, loadSqlJs } from '../src/core/store/sqlite.js';

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
