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
 * The question's terms with its speakers' names moved to the speaker column; a name it calls a
 * speaker by (an alias of one of `named`, the entity ids the question names) is replaced by the
 * speaker's name there, since in the turns it is an address too.
 */
export function speakerTerms(db: Database, terms: Term[], named: number[]): Term[] {
  const speakers = speakerWords(db);
  if (speakers.size === 0) return terms;
  let out = terms.map((t) => (speakers.has(t.term) ? { ...t, column: 'speaker' as const } : t));
  if (named.length === 0) return out;
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
    const before = out.length;
    out = out.filter((t) => !aliasWords.has(t.term) || speakers.has(t.term));
    if (out.length === before && !out.some((t) => words.includes(t.term))) continue;
    for (const w of words) if (!out.some((t) => t.term === w)) out.push({ term: w, weight: 1, column: 'speaker' });
  }
  return out;
}
