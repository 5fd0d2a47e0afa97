/**
 * Checks on what callers send, each failing with a MemoryError that says what to send instead:
 * authority, text, names, limits, times, and the episode record built from an input.
 */
import * as crypto from 'node:crypto';
import { authorityRank } from '../model/config.js';
import { invalid, MemoryError, notFound } from '../model/errors.js';
import type { EpisodeInput, EpisodeRecord, Provenance } from '../model/events.js';
import { LIMITS } from '../model/limits.js';
import { redactSecrets } from '../ingest/redact.js';
import type { Graph } from '../store/graph.js';
import { isId } from '../store/ids.js';

/** Characters of an entity name, predicate or extractor name. */
const MAX_NAME_CHARS = 200;

export function requireHuman(by: Provenance, what: string): void {
  if (by.authority !== 'human') {
    throw new MemoryError('forbidden', `Only a person can ${what}.`, 'Use the Recall commands in VS Code or the `recall` CLI.');
  }
}

export function requireText(v: unknown, what: string): string {
  if (typeof v !== 'string' || !v.trim()) throw invalid(`The ${what} is empty: give some words to look for.`);
  if (v.length > LIMITS.queryChars)
    throw invalid(
      `The ${what} is ${v.length} characters; keep it under ${LIMITS.queryChars}.`,
      'Ask with the question itself, not a document.',
    );
  return v.trim();
}

export function validName(v: unknown, what: string): string {
  if (typeof v !== 'string' || !v.trim()) throw invalid(`The ${what} is empty.`);
  if (v.length > MAX_NAME_CHARS) throw invalid(`The ${what} is ${v.length} characters long; names are at most ${MAX_NAME_CHARS}.`);
  return v.trim().replace(/\s+/g, ' ');
}

export function boundLimit(v: unknown, dflt: number, max: number): number {
  if (v === undefined || v === null) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw invalid(`The limit must be a whole number from 1 to ${max}, got ${String(v)}.`);
  return n;
}

/** Accepts ISO dates and times (a bare date is midnight UTC, or the day's end for an upper bound). */
export function normaliseTime(v: unknown, what = 'time', endOfDay = false): string {
  if (typeof v !== 'string' || !v.trim()) throw invalid(`The ${what} is empty or not text.`);
  const s = v.trim();
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(s);
  const ms = Date.parse(dateOnly ? `${s}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : s);
  if (!/^\d{4}-\d{2}-\d{2}/.test(s) || Number.isNaN(ms)) {
    throw invalid(`"${s}" is not a valid ${what}.`, 'Use an ISO date such as 2024-05-01 or 2024-05-01T14:30:00Z.');
  }
  return new Date(ms).toISOString();
}

/** The project a write lands in: the one it names (null: global), else its connection's, else global. */
export function projectOf(project: unknown, by: Provenance): string | null {
  if (project === null) return null;
  if (project === undefined) return by.project ?? null;
  if (typeof project !== 'string' || !project.trim() || project.length > MAX_NAME_CHARS * 2)
    throw invalid('project is a project key such as github.com/owner/repo (or null for the global memory).');
  return project.trim();
}

export function requireFact(graph: Graph, id: string): void {
  if (!isId('rel', id)) throw invalid(`"${String(id)}" is not a relationship id.`, 'Ids look like rel_12; `recall query` shows them.');
  if (!graph.relationshipExists(id)) throw notFound(`No relationship "${id}".`, 'Ids look like rel_12; `recall query` shows them.');
}

/**
 * The record stored for an episode input: checked, secrets redacted, authority settled, and
 * hashed on what identifies the turn so importing it again is recognised.
 */
export function episodeRecord(input: EpisodeInput, by: Provenance, id: string, maxTextChars: number): EpisodeRecord {
  if (input === null || typeof input !== 'object') throw invalid('An episode must be an object with a "text".');
  const raw = typeof input.text === 'string' ? input.text.trim() : '';
  if (!raw) throw invalid('Episode text is empty: give the words to remember.');
  if (raw.length > maxTextChars) {
    throw invalid(
      `Episode text is ${raw.length} characters; the limit is ${maxTextChars}.`,
      'Split it into smaller episodes (for example one per paragraph or turn).',
    );
  }
  // Secrets never enter the memory: redacted before the hash, so re-importing stays idempotent.
  const { text, count: redactions } = redactSecrets(raw);
  const time = input.time === undefined || input.time === null ? new Date().toISOString() : normaliseTime(input.time);
  const entities = (input.entities ?? []).map((n) => validName(n, 'entity'));
  // A person's own note is what they said (`user` evidence); human authority is for corrections.
  const authority = input.authority ?? (by.authority === 'human' ? 'user' : by.authority);
  // A surface may lower an imported turn's authority (an assistant's words are the agent's), never raise it.
  if (authorityRank(authority) > authorityRank(by.authority)) {
    throw new MemoryError('forbidden', `This connection cannot store episodes at "${authority}" authority.`);
  }
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const record: EpisodeRecord = {
    id,
    text,
    speaker: str(input.speaker),
    role: str(input.role),
    source: str(input.source) ?? by.source,
    session: str(input.session) ?? by.session,
    ref: str(input.ref),
    time,
    entities: entities.length ? [...new Set(entities)] : undefined,
    authority,
    hash: '',
    redactions: redactions || undefined,
    // Written always (null = global), so a record without it is known to predate projects.
    project: projectOf(input.project, by),
    sessionTitle: sessionTitle(input.sessionTitle),
  };
  const key = input.key;
  if (key !== undefined && (typeof key !== 'string' || !/^\d{1,9}$/.test(key)))
    throw invalid('"key" is a turn\'s occurrence number in its session, e.g. "1".');
  record.hash = key === undefined ? legacyEpisodeHash(record) : hashOf(['turn', record.session ?? '', record.speaker ?? '', text, key]);
  return record;
}

/**
 * The hash of a turn stored without a key (before keys existed, or sent by a caller that did not
 * read a whole file): it names the file and the place in it, so a copy elsewhere was a new turn.
 * Ingest still looks a keyed turn up by it, so a file imported before keys is not imported twice.
 */
export function legacyEpisodeHash(record: Pick<EpisodeRecord, 'source' | 'session' | 'ref' | 'speaker' | 'text'>): string {
  return hashOf([record.source ?? '', record.session ?? '', record.ref ?? '', record.speaker ?? '', record.text]);
}

const hashOf = (parts: string[]): string => crypto.createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);

/** A session's title: text within its bound, secrets redacted like the episode's own text. */
function sessionTitle(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid('"sessionTitle" must be text.');
  const title = redactSecrets(v.replace(/\s+/g, ' ').trim()).text;
  if (title.length > LIMITS.sessionTitleChars) throw invalid(`"sessionTitle" must be at most ${LIMITS.sessionTitleChars} characters.`);
  return title || undefined;
}
