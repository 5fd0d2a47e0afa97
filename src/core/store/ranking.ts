/**
 * The BM25 ranking function of keyword search, computed from FTS4's matchinfo('pcnalx'): sql.js
 * has no FTS5, so the ranking function is ours, registered on each database as `recall_bm25`.
 */
import type { Database } from './sqlite.js';

export interface Bm25Params {
  k1: number;
  b: number;
  /** One weight per FTS column, in column order. */
  columnWeights: number[];
  /** One weight per query phrase, in MATCH order (1 when absent). */
  termWeights?: number[];
  /**
   * Rows holding each phrase in each column (phrase-major, as 'x' lays them out). Given, the
   * matchinfo is 'pcnaly': 'x' counts these again over the whole index for every statement.
   */
  rowsWithHits?: readonly number[];
}

/**
 * BM25 from matchinfo 'pcnalx': p phrases, c columns, n rows, a[c] average column lengths,
 * l[c] this row's column lengths, x[3*p*c] (hits in row, hits in all rows, rows with hits).
 * Each column is scored as its own field and the fields summed with their weights. With
 * `rowsWithHits`, from 'pcnaly': y[p*c] is the hits in the row, and the rows with hits are given.
 */
export function bm25(matchinfo: Uint8Array, params: Bm25Params): number {
  const m = new Uint32Array(matchinfo.buffer, matchinfo.byteOffset, matchinfo.byteLength / 4);
  const p = m[0]!;
  const c = m[1]!;
  const n = m[2]!;
  const avg = 2 + 1; // a[] starts after p, c, n
  const len = avg + c;
  const x = len + c;
  let score = 0;
  for (let i = 0; i < p; i++) {
    const tw = params.termWeights?.[i] ?? 1;
    if (tw === 0) continue;
    for (let j = 0; j < c; j++) {
      const w = params.columnWeights[j] ?? 1;
      if (w === 0) continue;
      const rows = params.rowsWithHits;
      const base = rows ? x + i * c + j : x + 3 * (i * c + j);
      const tf = m[base]!;
      if (tf === 0) continue;
      const df = rows ? rows[i * c + j]! : m[base + 2]!;
      score += tw * w * termScore(tf, df, n, m[len + j]!, m[avg + j]!, params);
    }
  }
  return score;
}

/**
 * One term's BM25 in one field: `tf` occurrences in a field of `length` tokens, the term in `df`
 * of `n` rows, whose fields average `average` tokens.
 */
export function termScore(tf: number, df: number, n: number, length: number, average: number, p: { k1: number; b: number }): number {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const norm = 1 - p.b + (p.b * length) / Math.max(1, average);
  return idf * ((tf * (p.k1 + 1)) / (tf + p.k1 * norm));
}

/**
 * Parameter sets for `recall_bm25`, by handle. SQL passes one small integer per row rather than
 * weight lists to convert and parse per row: on a broad query the ranking function runs for
 * thousands of rows, and its argument passing is most of its cost.
 */
const paramSets = new Map<number, Bm25Params>();
const handles = new Map<string, number>();
let nextHandle = 1;

/** The handle of a parameter set (k1 and b of the query's recipe, its column and term weights). */
export function weightsHandle(params: Bm25Params): number {
  const key = `${params.k1},${params.b}|${params.columnWeights.join(',')}|${(params.termWeights ?? []).join(',')}|${params.rowsWithHits?.join(',') ?? 'x'}`;
  let handle = handles.get(key);
  if (handle === undefined) {
    // One per distinct query: bound it.
    if (paramSets.size >= 1024) {
      paramSets.clear();
      handles.clear();
    }
    handle = nextHandle++;
    paramSets.set(handle, params);
    handles.set(key, handle);
  }
  return handle;
}

/** Registers `recall_bm25(matchinfo(t, 'pcnalx'), weightsHandle(...))` on a database. */
export function registerRanking(db: Database): void {
  db.create_function('recall_bm25', (mi: Uint8Array, handle: number) => {
    const params = paramSets.get(handle);
    if (!params) throw new Error(`recall_bm25: unknown weights handle ${handle}`);
    return bm25(mi, params);
  });
}
