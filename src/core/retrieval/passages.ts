/**
 * Long turns are scored by passage as well as whole. In a long answer the sentence that answers a
 * question is a small part of the turn, and whole-turn BM25 (length-normalised) ranks it below a
 * short turn that merely shares a word; a passage of a chat turn's size is scored like one.
 * Passages are computed when a question is asked, for the long turns among its keyword
 * candidates only, from the keyword index's own match offsets: nothing is stored twice.
 */
import { termScore } from '../store/ranking.js';
import type { SearchIndex } from '../store/search-index.js';

/** How a long turn is cut: the recipe's `candidates.passages` (recipe.ts). */
export interface PassageShape {
  /** A turn of more words than this is scored by passage too. */
  readonly minWords: number;
  /** Words of one passage at most: whole sentences while they fit, a longer sentence cut. */
  readonly maxWords: number;
}

/** A passage of a text: its UTF-16 range [start, end) and its words. */
export interface Passage {
  start: number;
  end: number;
  words: number;
}

/**
 * The passages of a text: none for a text of `minWords` words or fewer; otherwise its sentences
 * (and lines) packed in order into passages of at most `maxWords` words, every word in exactly one.
 */
export function passagesOf(text: string, shape: PassageShape): Passage[] {
  const starts: number[] = [];
  const ends: number[] = [];
  for (const m of text.matchAll(/\S+/g)) {
    starts.push(m.index);
    ends.push(m.index + m[0].length);
  }
  const count = starts.length;
  if (count <= shape.minWords) return [];
  // A word ends its sentence when a sentence mark ends it or a line break follows it.
  const endsSentence = (i: number): boolean => {
    const last = text.charCodeAt(ends[i]! - 1);
    if (last === 46 || last === 33 || last === 63) return true; // . ! ?
    const next = i + 1 < count ? starts[i + 1]! : text.length;
    for (let c = ends[i]!; c < next; c++) if (text.charCodeAt(c) === 10) return true;
    return false;
  };
  const out: Passage[] = [];
  let first = 0;
  const flush = (last: number): void => {
    if (last >= first) out.push({ start: starts[first]!, end: ends[last]!, words: last - first + 1 });
    first = last + 1;
  };
  for (let s = 0; s < count;) {
    let e = s;
    while (e < count - 1 && !endsSentence(e)) e++;
    // Sentence s..e starts a new passage when it would not fit in the current one.
    if (s > first && e + 1 - first > shape.maxWords) flush(s - 1);
    for (let w = s; w <= e; w++) if (w - first + 1 >= shape.maxWords) flush(w);
    s = e + 1;
  }
  flush(count - 1);
  return out;
}

/** A question's keyword as passages score it: its text (as in the MATCH), BM25 weight, and the turns holding it in their text. */
export interface PassageTerm {
  term: string;
  weight: number;
  rows: number;
}

export interface PassageScoring {
  shape: PassageShape;
  bm25: { k1: number; b: number };
  /** BM25 weight of the text column. */
  column: number;
}

// FTS4's simple and porter tokenizers: ASCII letters and digits, and every non-ASCII character.
const tokensOf = (term: string): number => Math.max(1, term.split(/[^A-Za-z0-9\u0080-\uffff]+/).filter(Boolean).length);

/**
 * The best passage's BM25 of each long turn among `rowids`, for `terms` matched by `match` (their
 * MATCH text, terms in order). Document frequencies, turns and their average length are the whole
 * index's (the terms' rows, matchinfo 'pcna'); term frequencies and length are the passage's (offsets).
 */
export function bestPassages(
  index: SearchIndex,
  rowids: number[],
  terms: PassageTerm[],
  match: string,
  o: PassageScoring,
): Map<number, number> {
  const best = new Map<number, number>();
  if (rowids.length === 0 || terms.length === 0) return best;
  // offsets() numbers each token of the query; a term of several tokens counts by its first.
  const phraseOfToken: number[] = [];
  terms.forEach((t, i) => phraseOfToken.push(i, ...Array<number>(tokensOf(t.term) - 1).fill(-1)));
  // A text of more than minWords words has at least 2 * minWords characters: most turns are
  // ruled out here, by their row, before any full-text work.
  const long = index.longTurns(rowids, 2 * o.shape.minWords);
  if (long.length === 0) return best;
  for (const r of index.passageRows(match, long)) {
    const text = r.text;
    const passages = passagesOf(text, o.shape);
    if (passages.length === 0) continue;
    // p, c, n, then the columns' average lengths (text first).
    const mi = r.matchinfo;
    const m = new Uint32Array(mi.buffer, mi.byteOffset, mi.byteLength / 4);
    const [p, n, avg] = [m[0]!, m[2]!, m[3]!];
    const tf = passages.map(() => new Array<number>(p).fill(0));
    const charAt = byteToChar(text);
    const offsets = r.offsets.split(' ').map(Number);
    for (let k = 0; k + 3 < offsets.length; k += 4) {
      const phrase = phraseOfToken[offsets[k + 1]!] ?? -1;
      if (offsets[k] !== 0 || phrase < 0) continue;
      const at = charAt(offsets[k + 2]!);
      const i = passages.findIndex((ps) => at >= ps.start && at < ps.end);
      if (i >= 0) tf[i]![phrase]!++;
    }
    let top = 0;
    passages.forEach((ps, i) => {
      let score = 0;
      terms.forEach((t, j) => {
        if (tf[i]![j]! > 0) score += t.weight * o.column * termScore(tf[i]![j]!, t.rows, n, ps.words, avg, o.bm25);
      });
      top = Math.max(top, score);
    });
    if (top > 0) best.set(r.rowid, top);
  }
  return best;
}

/** Maps a UTF-8 byte offset of `text` (what offsets() gives) to its UTF-16 index. */
function byteToChar(text: string): (byte: number) => number {
  if (Buffer.byteLength(text) === text.length) return (b) => b;
  const starts: number[] = [];
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    starts.push(bytes);
    const code = text.codePointAt(i)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    bytes += size;
    if (size === 4) {
      starts.push(bytes);
      i++;
    }
  }
  return (b) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= b) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
}
