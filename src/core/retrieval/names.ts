/**
 * People as the question names them. In a conversation a speaker's name in someone else's turn
 * is mostly an address ("Thanks, Mel!"): it says who is spoken to, not what is spoken about. So a
 * word of the question that names a speaker is searched in the speaker column only; and a name
 * the question uses that is an alias of a speaker ("Jo" for Joanna, learned from greetings:
 * ingest/aliases.ts) searches that speaker's turns too.
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

/**
 * The question's terms with its speakers' names moved to the speaker column, and the names of
 * the speakers it calls by an alias (`named`: entity ids the question names) added there.
 */
export function speakerTerms(db: Database, terms: Term[], named: number[]): Term[] {
  const speakers = speakerWords(db);
  if (speakers.size === 0) return terms;
  const out = terms.map((t) => (speakers.has(t.term) ? { ...t, column: 'speaker' as const } : t));
  if (named.length === 0) return out;
  const names = all(db, 'SELECT name FROM entities WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(named)]);
  for (const r of names) {
    for (const w of tokenize(String(r.name))) {
      if (speakers.has(w) && !out.some((t) => t.term === w)) out.push({ term: w, weight: 1, column: 'speaker' });
    }
  }
  return out;
}
