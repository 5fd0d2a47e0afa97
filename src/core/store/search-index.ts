/**
 * The search index: the one handle retrieval has on the database. It owns the SQL of every
 * search (BM25 over turns and entity names, phrase counts, stems, names, neighbours in a session,
 * passages' offsets), the ranking and text functions registered on the database, the temporary
 * tables it reads the index through (armed again after a snapshot, which drops them), and one
 * cache per index generation (row counts, the words of speakers' names, indexed words by prefix).
 */
import { ftsGeneration } from './fts.js';
import { rowidOf } from './ids.js';
import { registerIndexText } from './index-text.js';
import { registerRanking, weightsHandle, type Bm25Params } from './ranking.js';
import { all, scalar, type Database, type Row } from './sqlite.js';

/** A ranked row: a turn's rowid or an entity's id, and its score. */
export interface Hit {
  rowid: number;
  score: number;
}

/** Which turns a search may return. */
export interface EpisodeFilter {
  since?: number;
  until?: number;
  session?: string;
  source?: string;
  /** Only this project's turns and the global memory's; absent: every project's. */
  scope?: { project: string | null };
}

/** An indexed word and the rows holding it. */
export interface IndexedWord {
  term: string;
  rows: number;
}

/** One row of passage scoring: a long turn's indexed text, its match offsets and matchinfo 'pcna'. */
export interface PassageRow {
  rowid: number;
  text: string;
  offsets: string;
  matchinfo: Uint8Array;
}

/** A turn near a lender in its session (spread): which, how far, on which side, by the same speaker, and whether the lender asks. */
export interface NeighbourRow {
  hit: number;
  near: number;
  distance: number;
  side: number;
  same: boolean;
  asks: boolean;
}

/** Columns of episodes_fts: text, speaker, parts. */
const EPISODE_COLUMNS = 3;
// Caches are bounded: one entry per distinct word or prefix asked.
const MAX_CACHED = 10_000;
const MAX_PREFIXES = 2_000;
// Indexed words by prefix are read again once the index changed and a minute passed (a new
// misspelling waits that long; the index changes with every turn stored).
const PREFIX_TTL_MS = 60_000;

// A turn ends by asking: its text ends with a question mark, ASCII or the full-width one of Chinese and Japanese.
const ASKS = `(rtrim(t.text) LIKE '%?' OR rtrim(t.text) LIKE '%？')`;

/**
 * Each lender's (t) nearest turns on one side in its session, `side` -1 before and 1 after: their
 * rowid, distance (from 0), whether their speaker is its own, and whether it asks (`asks`).
 */
function neighboursSql(op: '<' | '>', order: 'ASC' | 'DESC', side: number, asks: string): string {
  return `SELECT t.rowid AS hit, json_extract(n.value, '$[0]') AS near, n.key AS distance, ${side} AS side,
                 json_extract(n.value, '$[1]') = t.speaker AS same, ${asks} AS asks
            FROM episodes t,
                 json_each((SELECT json_group_array(json_array(rowid, speaker)) FROM (
                   SELECT e.rowid, e.speaker FROM episodes e WHERE e.session = t.session
                      AND (e.time_ms ${op} t.time_ms OR (e.time_ms = t.time_ms AND e.rowid ${op} t.rowid))
                    ORDER BY e.time_ms ${order}, e.rowid ${order} LIMIT ?))) n
           WHERE t.rowid IN (SELECT value FROM json_each(?)) AND t.session IS NOT NULL`;
}

// Every lender's nearest turns before and after it, by lender, side, then distance.
const NEIGHBOURS = `${neighboursSql('<', 'DESC', -1, '0')} UNION ALL ${neighboursSql('>', 'ASC', 1, ASKS)} ORDER BY 1, 4, 3`;

interface Cache {
  generation: number;
  /** Rows per word (matchingRows). */
  counts: Map<string, number>;
  /** Rows per MATCH phrase in each column (phraseRows). */
  columns: Map<string, number[]>;
  speakerWords?: Set<string>;
}

export class SearchIndex {
  private cache: Cache = { generation: -1, counts: new Map(), columns: new Map() };
  private tables = false;
  /** Stems never change; prefixes follow the index with a delay (PREFIX_TTL_MS). */
  private readonly stems = new Map<string, string>();
  private readonly prefixes = new Map<string, { generation: number; at: number; words: IndexedWord[] }>();

  constructor(private readonly db: Database) {
    this.rearm();
  }

  /**
   * The functions the index and its ranking need, registered (again: sql.js drops them, and the
   * temporary tables, when a snapshot exports the database); the tables are made at first use.
   */
  rearm(): void {
    registerRanking(this.db);
    registerIndexText(this.db);
    this.tables = false;
  }

  /** The temporary tables the index is read through: the stemmer and the list of indexed words. */
  private armed(): Database {
    if (!this.tables) {
      this.db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_stemmer USING fts3tokenize('porter')");
      this.db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_episode_terms USING fts4aux(main, episodes_fts)');
      this.tables = true;
    }
    return this.db;
  }

  /** The cache of the index as it is now: a new one whenever the episodes index changed. */
  private current(): Cache {
    const generation = ftsGeneration(this.db);
    if (this.cache.generation !== generation) this.cache = { generation, counts: new Map(), columns: new Map() };
    return this.cache;
  }

  /** Turns matching `match` (phrases ORed or ANDed, in `phrases` order), best BM25 first, from rowid `fromRowid` on. */
  bm25Turns(
    match: string,
    phrases: string[],
    params: Omit<Bm25Params, 'rowsWithHits'>,
    o: { fromRowid: number; filter: EpisodeFilter; limit: number },
  ): Hit[] {
    const { where, params: args } = filterSql(o.filter);
    return all(
      this.db,
      `SELECT f.docid AS rowid, recall_bm25(matchinfo(episodes_fts, 'pcnaly'), ?) AS score
         FROM episodes_fts f ${where ? 'JOIN episodes e ON e.rowid = f.docid' : ''}
        WHERE episodes_fts MATCH ? AND f.docid >= ? ${where ? 'AND ' + where : ''}
        ORDER BY score DESC LIMIT ?`,
      [weightsHandle({ ...params, rowsWithHits: this.phraseRows(phrases).flat() }), match, o.fromRowid, ...args, o.limit],
    ).map(hit);
  }

  /** Entities whose name or summary matches `match`, best BM25 first. */
  bm25Entities(match: string, params: Bm25Params, limit: number): Hit[] {
    return all(
      this.db,
      `SELECT docid AS rowid, recall_bm25(matchinfo(entities_fts, 'pcnalx'), ?) AS score
         FROM entities_fts WHERE entities_fts MATCH ? ORDER BY score DESC LIMIT ?`,
      [weightsHandle(params), match, limit],
    ).map(hit);
  }

  /**
   * For each MATCH phrase, the rows of the episodes index holding it in each column (text, speaker, parts):
   * what matchinfo 'x' reports besides a row's own hits. Phrases not cached are counted together,
   * by 'x' itself, on the first row matching any of them.
   */
  phraseRows(phrases: string[]): number[][] {
    const { columns } = this.current();
    if (columns.size > MAX_CACHED) columns.clear();
    const missing = [...new Set(phrases.filter((p) => !columns.has(p)))];
    if (missing.length > 0) {
      const mi = scalar(this.db, "SELECT matchinfo(episodes_fts, 'pcx') FROM episodes_fts WHERE episodes_fts MATCH ? LIMIT 1", [
        missing.join(' OR '),
      ]) as Uint8Array | undefined;
      // p, c, then (hits in row, hits in all rows, rows with hits) per phrase and column.
      const m = mi ? new Uint32Array(mi.buffer, mi.byteOffset, mi.byteLength / 4) : undefined;
      const c = m ? m[1]! : EPISODE_COLUMNS;
      missing.forEach((p, i) =>
        columns.set(
          p,
          Array.from({ length: c }, (_, j) => (m ? m[2 + 3 * (i * c + j) + 2]! : 0)),
        ),
      );
    }
    return phrases.map((p) => columns.get(p)!);
  }

  /** Rows of the episodes index holding a word: cached until the index changes. */
  matchingRows(word: string): number {
    const { counts } = this.current();
    let n = counts.get(word);
    if (n === undefined) {
      if (counts.size > MAX_CACHED) counts.clear();
      n = Number(scalar(this.db, 'SELECT COUNT(*) FROM episodes_fts WHERE episodes_fts MATCH ?', [quoted(word)]));
      counts.set(word, n);
    }
    return n;
  }

  /** The highest turn rowid (0 in an empty memory). */
  lastRowid(): number {
    return Number(scalar(this.db, 'SELECT MAX(rowid) FROM episodes') ?? 0);
  }

  /** The porter stem of a word, as the index stores it. */
  stem(word: string): string {
    let s = this.stems.get(word);
    if (s === undefined) {
      s = String(all(this.armed(), 'SELECT token FROM temp.recall_stemmer WHERE input = ?', [word])[0]?.token ?? word);
      if (this.stems.size > MAX_CACHED) this.stems.clear();
      this.stems.set(word, s);
    }
    return s;
  }

  /** Indexed stems starting with `prefix`, with the rows holding each. */
  wordsWithPrefix(prefix: string, now = Date.now()): IndexedWord[] {
    const generation = ftsGeneration(this.db);
    const cached = this.prefixes.get(prefix);
    if (cached && (cached.generation === generation || now - cached.at < PREFIX_TTL_MS)) return cached.words;
    const next = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const words = all(this.armed(), "SELECT term, documents FROM temp.recall_episode_terms WHERE col = '*' AND term >= ? AND term < ?", [
      prefix,
      next,
    ]).map((r) => ({ term: String(r.term), rows: Number(r.documents) }));
    if (this.prefixes.size > MAX_PREFIXES) this.prefixes.clear();
    this.prefixes.set(prefix, { generation, at: now, words });
    return words;
  }

  /** Every speaker's name (cached until the index changes); `words` splits them as the question's words are. */
  speakerWords(words: (text: string) => string[]): Set<string> {
    const cache = this.current();
    if (!cache.speakerWords) {
      cache.speakerWords = new Set();
      for (const r of all(this.db, 'SELECT DISTINCT speaker FROM episodes WHERE speaker IS NOT NULL'))
        for (const w of words(String(r.speaker))) cache.speakerWords.add(w);
    }
    return cache.speakerWords;
  }

  /** Names of these entities and their aliases. */
  namesAndAliases(ids: number[]): { name: string; aliases: string[] }[] {
    return all(
      this.db,
      `SELECT e.name, (SELECT json_group_array(a.alias) FROM aliases a WHERE a.entity_id = e.id) AS aliases
         FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(ids)],
    ).map((r) => ({ name: String(r.name), aliases: JSON.parse(String(r.aliases)) as string[] }));
  }

  /** Entities and aliases whose key occurs anywhere in `lower` (a lower-cased text): candidates for names it says. */
  keysIn(lower: string): { id: number; key: string }[] {
    return all(
      this.db,
      `SELECT id, key FROM entities WHERE instr(?, key) > 0
       UNION SELECT entity_id AS id, key FROM aliases WHERE instr(?, key) > 0`,
      [lower, lower],
    ).map((r) => ({ id: Number(r.id), key: String(r.key) }));
  }

  /** Every entity's name and alias (for suggesting the nearest to a name not found: a full scan, on that error path only). */
  allNames(): string[] {
    return all(this.db, 'SELECT name FROM entities UNION ALL SELECT alias AS name FROM aliases').map((r) => String(r.name));
  }

  /** The first and last year of the memory's turns; none in an empty memory. */
  yearsSpanned(): { first: number; last: number } | undefined {
    const span = all(this.db, 'SELECT MIN(time_ms) AS first, MAX(time_ms) AS last FROM episodes')[0];
    if (span?.first === null || span?.first === undefined) return undefined;
    return { first: new Date(Number(span.first)).getUTCFullYear(), last: new Date(Number(span.last)).getUTCFullYear() };
  }

  /** Each turn's time, and whether it mentions one of `named` (entity ids). */
  timesAndMentions(rowids: number[], named: number[]): { rowid: number; time: number; named: boolean }[] {
    // JSON lists keep this one statement (statements are cached by their text).
    return all(
      this.db,
      `SELECT e.rowid AS r, e.time_ms AS t,
              EXISTS (SELECT 1 FROM mentions m
                       WHERE m.episode_rowid = e.rowid AND m.entity_id IN (SELECT value FROM json_each(?))) AS named
         FROM episodes e WHERE e.rowid IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(named), JSON.stringify(rowids)],
    ).map((r) => ({ rowid: Number(r.r), time: Number(r.t), named: Number(r.named) === 1 }));
  }

  /** The `before` turns before and `after` turns after each lender in its session, by lender, side, then distance. */
  neighbours(lenders: number[], before: number, after: number): NeighbourRow[] {
    const list = JSON.stringify(lenders);
    return all(this.db, NEIGHBOURS, [before, list, after, list]).map((r: Row) => ({
      hit: Number(r.hit),
      near: Number(r.near),
      distance: Number(r.distance),
      side: Number(r.side),
      same: Number(r.same) === 1,
      asks: Number(r.asks) === 1,
    }));
  }

  /** Which of these turns have more than `chars` characters. */
  longTurns(rowids: number[], chars: number): number[] {
    return all(this.db, 'SELECT rowid FROM episodes WHERE rowid IN (SELECT value FROM json_each(?)) AND length(text) > ?', [
      JSON.stringify(rowids),
      chars,
    ]).map((r) => Number(r.rowid));
  }

  /** The indexed text, match offsets and matchinfo 'pcna' of those of `rowids` matching `match`. */
  passageRows(match: string, rowids: number[]): PassageRow[] {
    return all(
      this.db,
      `SELECT f.docid AS rowid, e.text AS text, offsets(episodes_fts) AS o, matchinfo(episodes_fts, 'pcna') AS mi
         FROM episodes_fts f JOIN episodes_indexed e ON e.rowid = f.docid
        WHERE episodes_fts MATCH ? AND +f.docid IN (SELECT value FROM json_each(?))`,
      [match, JSON.stringify(rowids)],
    ).map((r) => ({ rowid: Number(r.rowid), text: String(r.text), offsets: String(r.o), matchinfo: r.mi as Uint8Array }));
  }

  /** The local rowid of a turn id (any spelling), if it is stored. */
  episodeRowid(id: string): number | undefined {
    return rowidOf(this.db, 'ep', id);
  }
}

const hit = (r: Row): Hit => ({ rowid: Number(r.rowid), score: Number(r.score) });

/** A word as an FTS4 MATCH phrase: quoted, so no text is ever read as query syntax. */
export const quoted = (word: string): string => `"${word.replace(/"/g, '')}"`;

/** The filter as a condition on `episodes e`. */
export function filterSql(filter: EpisodeFilter): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.since !== undefined) {
    clauses.push('e.time_ms >= ?');
    params.push(filter.since);
  }
  if (filter.until !== undefined) {
    clauses.push('e.time_ms <= ?');
    params.push(filter.until);
  }
  if (filter.session !== undefined) {
    clauses.push('e.session = ?');
    params.push(filter.session);
  }
  if (filter.source !== undefined) {
    clauses.push('e.source = ?');
    params.push(filter.source);
  }
  if (filter.scope !== undefined) {
    clauses.push('(e.project IS NULL OR e.project = ?)');
    params.push(filter.scope.project);
  }
  return { where: clauses.join(' AND '), params };
}
