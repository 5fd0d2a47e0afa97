/**
 * People as the question names them: a name the question calls a speaker by that is an alias of
 * theirs ("Jo" for Joanna, learned from greetings: ingest/aliases.ts) also searches that
 * speaker's turns, through their name in the speaker column.
 */
import type { Database } from '../store/sqlite.js';
import { all } from '../store/sqlite.js';
import { ftsGeneration } from '../store/fts.js';
import type { Term } from './keyword.js';
import { tokenize } from './text.js';

const speakerCache = new WeakMap<Database, { generation: number; words: Set<string> }>();

/** The words of every speaker's name, lower-cased (cached until the index changes). */
export function speakerWords(db: Database): Set<string> {
  const generation = ftsGeneration(db);
  const cached = speakerCache.get(db);
  if (cached?.generation === generation) return cached.words;
  const words = new Set<string>();
  for (const r of all(db, 'SELECT DISTINCT speaker FROM episodes WHERE speaker IS NOT NULL'))
    for (const w of tokenize(String(r.speaker))) words.add(w);
  speakerCache.set(db, { generation, words });
  return words;
}

/** The question's terms, plus the name of each speaker it calls by an alias (`named`: entity ids the question names). */
export function speakerTerms(db: Database, terms: Term[], named: number[]): Term[] {
  const speakers = speakerWords(db);
  const out = [...terms];
  if (named.length === 0 || speakers.size === 0) return out;
  const rows = all(
    db,
    `SELECT e.name, (SELECT json_group_array(a.alias) FROM aliases a WHERE a.entity_id = e.id) AS aliases
       FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(named)],
  );
  for (const r of rows) {
    const words = tokenize(String(r.name)).filter((w) => speakers.has(w));
    if (words.length === 0) continue;
    const aliasWords = new Set((JSON.parse(String(r.aliases)) as string[]).flatMap((a) => tokenize(a)));
    if (!out.some((t) => aliasWords.has(t.term))) continue;
    for (const w of words) if (!out.some((t) => t.term === w)) out.push({ term: w, weight: 1, column: 'speaker' });
  }
  return out;
}
