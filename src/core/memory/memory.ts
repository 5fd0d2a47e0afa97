/**
 * The memory: a journal (source of truth), a graph folded from it (sql.js, snapshotted) and the
 * operations every surface uses. One Memory per folder, owned by the memory service.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveConfig, type Authority, type ConfigOverride, type MemoryConfig, type PriorKind } from '../model/config.js';
import { browseHandlers } from '../retrieval/browse.js';
import { invalid, MemoryError, notFound } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import { extract } from '../ingest/extract.js';
import { redactSecrets } from '../ingest/redact.js';
import type { EpisodeInput, EpisodeRecord, EventBody, MemoryEvent, Provenance } from '../model/events.js';
import { entityKey, Graph, round } from '../store/graph.js';
import { all, forgetStatements, scalar } from '../store/sqlite.js';
import type { EntityView, EpisodeView, FactView } from '../model/views.js';
import { Journal } from '../store/journal.js';
import { compareWithSnapshot, recordRecovery, setJournalAside, verifySnapshot, writeSnapshot, type JournalVerdict } from '../store/recovery.js';
import { keywordLists, namedEntities, retrieve, type RetrieveOptions, type Retrieved } from '../retrieval/retrieve.js';
import { filterSql, keywordEntities, keywordEpisodes, registerRanking, type EpisodeFilter } from '../retrieval/keyword.js';
import { SCHEMA_VERSION } from '../store/schema.js';
import { loadSqlJs, type Database } from '../store/sqlite.js';
import { queryTerms } from '../retrieval/text.js';

export const JOURNAL_FILE = 'journal.jsonl';
export const SNAPSHOT_FILE = 'snapshot.sqlite';

/** The things that get an embedding: turns, entities (name, type, summary) and facts. */
export type EmbeddedKind = 'episode' | 'entity' | 'fact';
const EMBEDDED_TABLE: Record<EmbeddedKind, string> = { episode: 'episodes', entity: 'entities', fact: 'relationships' };

export interface QueryResult extends Retrieved {
  query: string;
}

export interface QueryInput {
  query: string;
  limit?: number;
  history?: boolean;
  mode?: RetrieveOptions['mode'];
}

export interface ForgetPlan {
  entity: EntityView;
  relationships: FactView[];
  episodes: { id: string; text: string }[];
  /** Episodes that mention this entity and something else: they stay, unlinked from it. */
  kept_episodes: number;
}

export interface TraverseResult {
  root: EntityView;
  facts: (FactView & { depth: number })[];
  entities: EntityView[];
}

export interface OpenReport {
  rebuilt: boolean;
  replayed: number;
  reason?: string;
}

export class Memory {
  private eventsSinceSnapshot = 0;
  private indexCompacted = false;

  private constructor(
    readonly folder: string,
    readonly config: MemoryConfig,
    private db: Database,
    private graph: Graph,
    private journal: Journal,
    private readonly log: (msg: string) => void,
    readonly openReport: OpenReport,
  ) {}

  static async open(folder: string, override: ConfigOverride = {}, log: (msg: string) => void = () => {}): Promise<Memory> {
    const config = resolveConfig(override);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const SQL = await loadSqlJs();
    let journal = Journal.open(path.join(folder, JOURNAL_FILE), log);
    const snapshotPath = path.join(folder, SNAPSHOT_FILE);

    let db: Database | undefined;
    let tail: MemoryEvent[] | undefined;
    let reason: string | undefined;
    // Set when the journal lost part of what the snapshot holds: the snapshot is kept instead.
    let kept: { verdict: JournalVerdict; seq: number } | undefined;
    if (fs.existsSync(snapshotPath)) {
      try {
        const bytes = fs.readFileSync(snapshotPath);
        db = new SQL.Database(bytes);
        verifySnapshot(snapshotPath, bytes, db);
        if (Graph.schemaVersion(db) !== SCHEMA_VERSION) throw new Error('schema version differs');
        const position = Number(scalar(db, "SELECT value FROM meta WHERE key = 'journal_position'"));
        const seq = Number(scalar(db, "SELECT value FROM meta WHERE key = 'seq'") ?? 0);
        if (position >= 0 && position <= journal.position) tail = readLogged(journal, position, log);
        if (!tail || (tail[0] && tail[0].seq !== seq + 1)) {
          const verdict = compareWithSnapshot(journal, seq);
          if (verdict.covers) throw new Error(tail ? 'it does not line up with the journal' : 'it covers more journal than exists');
          kept = { verdict, seq };
          tail = verdict.newer;
        }
      } catch (err) {
        reason = `snapshot ${snapshotPath} is unusable (${(err as Error).message}); rebuilding it from the journal`;
        log(reason);
        if (!/schema version/.test(reason)) recordRecovery(folder, reason, log);
        db?.close();
        db = undefined;
        tail = undefined;
        kept = undefined;
      }
    }
    const rebuilt = db === undefined;
    if (!db) {
      db = new SQL.Database();
      Graph.createSchema(db);
    }
    registerRanking(db);
    const graph = new Graph(db, config);
    tail ??= readLogged(journal, 0, log);
    db.exec('BEGIN');
    for (const e of tail) graph.apply(e);
    const last = tail[tail.length - 1];
    if (last) (graph.setMeta('seq', last.seq), graph.setMeta('last_write', last.at));
    db.exec('COMMIT');
    if (kept) {
      // The snapshot first, covering none of the fresh journal: a crash before the journal is
      // set aside finds this same state again.
      graph.setMeta('journal_position', 0);
      forgetStatements(db);
      writeSnapshot(snapshotPath, db.export());
      registerRanking(db);
      ({ journal, note: reason } = setJournalAside(journal, kept.verdict, kept.seq, log));
      log(`recovery: ${reason}`);
      recordRecovery(folder, reason, log);
    }
    const memory = new Memory(folder, config, db, graph, journal, log, { rebuilt, replayed: tail.length, reason });
    memory.eventsSinceSnapshot = kept ? 0 : tail.length;
    return memory;
  }

  // ---- writing ----------------------------------------------------------------------------

  /**
   * Applies events inside a transaction, appends them to the journal (fsynced), then commits:
   * if the append fails nothing changes; once this returns the write is durable.
   */
  private commit(bodies: EventBody[], by: Provenance): MemoryEvent[] {
    if (bodies.length === 0) return [];
    const at = new Date().toISOString();
    let seq = Number(this.graph.getMeta('seq') ?? 0);
    const events = bodies.map((b) => ({ ...b, seq: ++seq, at, by }) as MemoryEvent);
    this.db.exec('SAVEPOINT write');
    try {
      for (const e of events) this.graph.apply(e);
      this.graph.setMeta('seq', seq);
      this.graph.setMeta('last_write', at);
      this.journal.append(events);
      this.db.exec('RELEASE write');
    } catch (err) {
      this.db.exec('ROLLBACK TO write');
      this.db.exec('RELEASE write');
      throw err;
    }
    this.eventsSinceSnapshot += events.length;
    return events;
  }

  /** Stores one note or observation. The authority comes from the caller's surface. */
  remember(input: EpisodeInput, by: Provenance): { id: string; duplicate: boolean } {
    const [result] = this.ingest([input], by).results;
    return result!;
  }

  /** Stores episodes; a turn already stored (same content hash) is skipped, so re-importing is idempotent. */
  ingest(inputs: EpisodeInput[], by: Provenance): { added: number; skipped: number; results: { id: string; duplicate: boolean }[] } {
    if (!Array.isArray(inputs) || inputs.length === 0) throw invalid('Nothing to store: give at least one episode.');
    const records: EpisodeRecord[] = [];
    const results: { id: string; duplicate: boolean }[] = [];
    const seen = new Map<string, string>();
    for (const input of inputs) {
      const record = this.validateEpisode(input, by, records.length);
      const existing = seen.get(record.hash) ?? this.existingEpisodeId(record.hash);
      if (existing) {
        results.push({ id: existing, duplicate: true });
        continue;
      }
      seen.set(record.hash, record.id);
      records.push(record);
      results.push({ id: record.id, duplicate: false });
    }
    if (records.length > 0) this.commit([{ type: 'episodes.add', episodes: records }, ...this.extractionEvents(records)], by);
    return { added: records.length, skipped: inputs.length - records.length, results };
  }

  /**
   * The offline extractor's reading of new episodes: entity types for names it recognises, and
   * facts at the `inferred` prior whose evidence is the episode (so its speaker's authority sets
   * the weight). A fact already held gains the episode as corroboration instead of a duplicate.
   * Mentions are added to the records themselves.
   */
  private extractionEvents(records: EpisodeRecord[]): EventBody[] {
    if (!this.config.extract) return [];
    const events: EventBody[] = [];
    const typed = new Set<string>();
    const asserted = new Map<string, string>();
    let relOffset = 0;
    for (const record of records) {
      // A turn longer than this is a document: its opening says what it is about, and the
      // extractor's cost grows with length while the service is busy.
      const found = extract({ text: record.text.slice(0, 20_000), speaker: record.speaker, role: record.role });
      if (found.entities.length) record.entities = [...new Set([...(record.entities ?? []), ...found.entities.map((e) => e.name)])];
      for (const e of found.entities) {
        const key = entityKey(e.name);
        if (e.type === 'concept' || typed.has(key)) continue;
        const stored = this.graph.entityType(e.name);
        if (stored !== undefined && stored !== 'thing') continue;
        typed.add(key);
        events.push({ type: 'entity.upsert', name: e.name, entityType: e.type });
      }
      for (const r of found.relationships) {
        const key = JSON.stringify([entityKey(r.subject), r.predicate, entityKey(r.object)]);
        const existing = asserted.get(key) ?? this.graph.findCurrentRelationship(r.subject, r.predicate, r.object);
        if (existing) {
          events.push({ type: 'relationship.evidence', id: existing, episode: record.id, polarity: 1 });
          continue;
        }
        const id = this.graph.nextId('rel', relOffset++);
        asserted.set(key, id);
        events.push({ type: 'relationship.assert', id, ...r, prior: 'inferred', evidence: [record.id], assertedBy: record.authority });
      }
    }
    return events;
  }

  private existingEpisodeId(hash: string): string | undefined {
    const v = scalar(this.db, 'SELECT id FROM episodes WHERE hash = ?', [hash]);
    return v === undefined ? undefined : String(v);
  }

  private validateEpisode(input: EpisodeInput, by: Provenance, offset: number): EpisodeRecord {
    if (input === null || typeof input !== 'object') throw invalid('An episode must be an object with a "text".');
    const raw = typeof input.text === 'string' ? input.text.trim() : '';
    if (!raw) throw invalid('Episode text is empty: give the words to remember.');
    if (raw.length > this.config.maxTextChars) {
      throw invalid(
        `Episode text is ${raw.length} characters; the limit is ${this.config.maxTextChars}.`,
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
    if (rank(authority) > rank(by.authority)) {
      throw new MemoryError('forbidden', `This connection cannot store episodes at "${authority}" authority.`);
    }
    const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
    const record: EpisodeRecord = {
      id: this.graph.nextId('ep', offset),
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
    };
    record.hash = crypto
      .createHash('sha256')
      .update(JSON.stringify([record.source ?? '', record.session ?? '', record.ref ?? '', record.speaker ?? '', text]))
      .digest('hex')
      .slice(0, 32);
    return record;
  }

  /** Asserts a fact (subject, predicate, object); prints the relationship id. */
  relate(
    input: { subject: string; predicate: string; object: string; evidence?: string[]; prior?: PriorKind },
    by: Provenance,
  ): { id: string } {
    // Like corrections, a direct assertion is a person's act; models store notes (remember).
    requireHuman(by, 'assert a fact directly');
    const subject = validName(input.subject, 'subject');
    const object = validName(input.object, 'object');
    const predicate = validName(input.predicate, 'predicate').toLowerCase();
    const prior = input.prior ?? 'explicit';
    if (!(prior in this.config.confidence.priors)) {
      throw invalid(`Unknown prior "${prior}".`, 'Use one of: explicit, inferred, speculative.');
    }
    for (const ep of input.evidence ?? []) {
      if (!this.graph.episodeExists(ep)) throw notFound(`No episode "${ep}".`, 'Use an id printed by `recall remember` or shown in query results.');
    }
    const id = this.graph.nextId('rel');
    this.commit([{ type: 'relationship.assert', id, subject, predicate, object, prior, evidence: input.evidence }], by);
    return { id };
  }

  /**
   * Facts a language model read from one stored episode. Any surface may record them, but they
   * are the model's reading: asserted at the `inferred` prior with `agent` authority and weighed
   * as the agent's evidence whoever spoke the turn, so they never pass for a person's word. A
   * fact already held gains the episode as (agent-weight) corroboration instead of a duplicate.
   */
  recordExtraction(
    input: { episode: string; facts: { subject: string; predicate: string; object: string }[]; extractor: string },
    by: Provenance,
  ): { ids: string[] } {
    if (input === null || typeof input !== 'object') throw invalid('Give { episode, facts, extractor }.');
    if (typeof input.episode !== 'string' || !this.graph.episodeExists(input.episode)) {
      throw notFound(`No episode "${String(input.episode)}".`, 'Extract from an episode the memory holds (an id like ep_12).');
    }
    const extractor = validName(input.extractor, 'extractor');
    if (!Array.isArray(input.facts)) throw invalid('"facts" must be a list of { subject, predicate, object }.');
    if (input.facts.length > 100) throw invalid(`${input.facts.length} facts from one episode; at most 100.`);
    const events: EventBody[] = [];
    const ids: string[] = [];
    const asserted = new Map<string, string>();
    let offset = 0;
    for (const f of input.facts) {
      if (f === null || typeof f !== 'object') throw invalid('Each fact is { subject, predicate, object }.');
      const subject = validName(f.subject, 'subject');
      const object = validName(f.object, 'object');
      const predicate = validName(f.predicate, 'predicate').toLowerCase();
      const key = JSON.stringify([entityKey(subject), predicate, entityKey(object)]);
      const existing = asserted.get(key) ?? this.graph.findCurrentRelationship(subject, predicate, object);
      if (existing) {
        if (!asserted.has(key)) events.push({ type: 'relationship.evidence', id: existing, episode: input.episode, polarity: 1, extractedBy: extractor });
        asserted.set(key, existing);
        ids.push(existing);
        continue;
      }
      const id = this.graph.nextId('rel', offset++);
      asserted.set(key, id);
      ids.push(id);
      events.push({
        type: 'relationship.assert', id, subject, predicate, object, prior: 'inferred',
        evidence: [input.episode], assertedBy: 'agent', extractedBy: extractor,
      });
    }
    this.commit(events, by);
    return { ids };
  }

  /** Adds corroborating or contradicting evidence to a fact. */
  addEvidence(input: { id: string; episode: string; polarity: 1 | -1 }, by: Provenance): FactView {
    this.requireFact(input.id);
    if (!this.graph.episodeExists(input.episode)) throw notFound(`No episode "${input.episode}".`);
    this.commit([{ type: 'relationship.evidence', id: input.id, episode: input.episode, polarity: input.polarity }], by);
    return this.graph.factById(input.id)!;
  }

  /** A person's correction: only human authority may call this. */
  correct(input: { id: string; verdict: 'wrong' | 'confirm'; reason?: string }, by: Provenance): FactView {
    requireHuman(by, 'correct a fact');
    if (input.verdict !== 'wrong' && input.verdict !== 'confirm') throw invalid('A correction is either "wrong" or "confirm".');
    this.requireFact(input.id);
    this.commit([{ type: 'relationship.correct', id: input.id, verdict: input.verdict, reason: input.reason }], by);
    return this.graph.factById(input.id)!;
  }

  /** Step one of forgetting: what would go. Nothing changes. */
  forgetPlan(name: string): ForgetPlan {
    const id = this.requireEntity(name);
    const entity = this.graph.entityView(id)!;
    const relationships = this.graph.factsOf(id, { history: true });
    const episodes = all(
      this.db,
      `SELECT e.id, e.text FROM mentions m JOIN episodes e ON e.rowid = m.episode_rowid
        WHERE m.entity_id = ? AND NOT EXISTS (SELECT 1 FROM mentions o WHERE o.episode_rowid = m.episode_rowid AND o.entity_id != ?)
        ORDER BY e.rowid`,
      [id, id],
    ).map((r) => ({ id: String(r.id), text: String(r.text) }));
    const mentioned = Number(scalar(this.db, 'SELECT COUNT(*) FROM mentions WHERE entity_id = ?', [id]));
    return { entity, relationships, episodes, kept_episodes: mentioned - episodes.length };
  }

  /**
   * Step two: erases the entity, its relationships and the episodes that mention nothing else,
   * from the graph and from the journal (rewritten), then snapshots so no copy of them remains.
   */
  forget(name: string, by: Provenance): ForgetPlan {
    requireHuman(by, 'forget an entity');
    const plan = this.forgetPlan(name);
    const episodes = plan.episodes.map((e) => e.id);
    const relationships = plan.relationships.map((r) => r.id);
    this.commit([{ type: 'entity.forget', name: plan.entity.name, episodes, relationships }], by);
    const goneEpisodes = new Set(episodes);
    const goneRelationships = new Set(relationships);
    const key = entityKey(plan.entity.name);
    this.journal.rewrite((e) => {
      switch (e.type) {
        case 'episodes.add': {
          const kept = e.episodes.filter((ep) => !goneEpisodes.has(ep.id));
          if (kept.length === e.episodes.length) return e;
          return kept.length ? { ...e, episodes: kept } : null;
        }
        case 'relationship.assert':
        case 'relationship.evidence':
        case 'relationship.correct':
          return goneRelationships.has(e.id) ? null : e;
        case 'entity.upsert':
          return entityKey(e.name) === key ? null : e;
        default:
          return e;
      }
    });
    // Dropped events leave gaps in seq; renumbering would only hide what happened.
    this.db.exec("INSERT INTO episodes_fts(episodes_fts) VALUES('optimize')");
    this.db.exec("INSERT INTO entities_fts(entities_fts) VALUES('optimize')");
    this.db.exec('VACUUM');
    this.snapshot();
    return plan;
  }

  // ---- reading ----------------------------------------------------------------------------

  query(input: QueryInput & { vectorHits?: RetrieveOptions['vectorHits'] }): QueryResult {
    return this.startQuery(input)(input.vectorHits);
  }

  /**
   * A query in two steps: the keyword and graph half now, the rest when the vector hits come
   * (the service embeds the question in another thread meanwhile). Bad input throws here.
   */
  startQuery(input: QueryInput): (vectorHits?: RetrieveOptions['vectorHits']) => QueryResult {
    const text = requireText(input.query, 'query');
    const limit = boundLimit(input.limit, 10, LIMITS.query);
    const mode = input.mode;
    if (mode !== undefined && !['keyword', 'vector', 'hybrid'].includes(mode)) throw invalid('mode is one of keyword, vector, hybrid.');
    // Without vectors a query is keyword + graph, whatever the mode asked (vector alone is refused below).
    const keyword = mode === 'vector' ? undefined : keywordLists(this.db, text, limit, mode ?? 'hybrid');
    return (vectorHits) => {
      if (mode === 'vector' && !vectorHits) {
        throw new MemoryError('unavailable', 'Vector search needs an embedding model, and none is loaded.', 'Ask without mode (keyword + graph), or see `recall status` for why.');
      }
      return { query: text, ...retrieve(this.db, this.graph, { text, limit, history: input.history, now: Date.now(), mode, vectorHits }, keyword) };
    };
  }

  /** Ids of the things of one kind (above `after`, ascending): the embedding queue finds which lack a vector. */
  embeddingIds(kind: EmbeddedKind, after = 0): number[] {
    return all(this.db, `SELECT rowid AS id FROM ${EMBEDDED_TABLE[kind]} WHERE rowid > ? ORDER BY rowid`, [after]).map((r) => Number(r.id));
  }

  /**
   * The text embedded for each thing: an episode's words; an entity's name, type, aliases and
   * summary; a fact as "subject predicate object".
   */
  embeddingTexts(kind: EmbeddedKind, ids: number[]): { id: number; text: string }[] {
    const list = JSON.stringify(ids);
    const sql: Record<EmbeddedKind, string> = {
      episode: 'SELECT rowid AS id, text FROM episodes WHERE rowid IN (SELECT value FROM json_each(?))',
      entity: `SELECT e.id, e.name || CASE WHEN e.type != 'thing' THEN ' (' || e.type || ')' ELSE '' END
                      || COALESCE((SELECT ', also ' || group_concat(a.alias, ', ') FROM aliases a WHERE a.entity_id = e.id), '')
                      || CASE WHEN e.summary != '' THEN ': ' || e.summary ELSE '' END AS text
                 FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
      fact: `SELECT r.rowid AS id, s.name || ' ' || r.predicate || ' ' || o.name AS text
               FROM relationships r JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
              WHERE r.rowid IN (SELECT value FROM json_each(?))`,
    };
    return all(this.db, sql[kind], [list]).map((r) => ({ id: Number(r.id), text: String(r.text) }));
  }

  search(input: { query: string; limit?: number }): EntityView[] {
    const text = requireText(input.query, 'query');
    const limit = boundLimit(input.limit, 10, LIMITS.search);
    // Entities the text names come first (score 0 unless their words match too), then keyword hits.
    const hits = keywordEntities(this.db, text, limit);
    const scores = new Map(hits.map((h) => [h.rowid, h.score]));
    const ids = [...new Set([...namedEntities(this.db, text), ...hits.map((h) => h.rowid)])].slice(0, limit);
    return ids.map((id) => ({ ...this.graph.entityView(id)!, score: round(scores.get(id) ?? 0) }));
  }

  episodes(input: { query?: string; since?: string; until?: string; session?: string; source?: string; limit?: number }): EpisodeView[] {
    const limit = boundLimit(input.limit, 20, LIMITS.episodes);
    const filter: EpisodeFilter = {
      since: input.since !== undefined ? Date.parse(normaliseTime(input.since, 'since')) : undefined,
      until: input.until !== undefined ? Date.parse(normaliseTime(input.until, 'until', true)) : undefined,
      session: input.session,
      source: input.source,
    };
    if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
      throw invalid('"since" is after "until": nothing can match.', 'Swap the two dates.');
    }
    if (input.query !== undefined && input.query.trim() !== '' && queryTerms(input.query).length > 0) {
      const hits = keywordEpisodes(this.db, input.query, limit, filter);
      const views = this.graph.episodesByRowids(hits.map((h) => h.rowid));
      return views.map((v, i) => ({ ...v, score: round(hits[i]!.score) }));
    }
    const { where, params } = filterSql(filter);
    const rows = all(this.db, `SELECT * FROM episodes e ${where ? 'WHERE ' + where : ''} ORDER BY e.time_ms DESC, e.rowid DESC LIMIT ?`, [
      ...params,
      limit,
    ]);
    return rows.map((r) => this.graph.episodeView(r));
  }

  traverse(input: { entity: string; depth?: number; min_confidence?: number; history?: boolean }): TraverseResult {
    const rootId = this.requireEntity(input.entity);
    const depth = boundLimit(input.depth, 1, LIMITS.depth);
    const floor = input.min_confidence ?? 0;
    if (!(floor >= 0 && floor <= 1)) throw invalid('min_confidence must be between 0 and 1.');
    const now = Date.now();
    const seen = new Set<number>([rootId]);
    const facts = new Map<string, FactView & { depth: number }>();
    let frontier = [rootId];
    for (let d = 1; d <= depth && frontier.length > 0; d++) {
      const next: number[] = [];
      for (const id of frontier) {
        for (const f of this.graph.factsOf(id, { history: input.history, now })) {
          if (facts.has(f.id) || f.effective_confidence < floor) continue;
          facts.set(f.id, { ...f, depth: d });
          for (const name of [f.subject, f.object]) {
            const other = this.graph.entityIdOf(name)!;
            if (!seen.has(other)) (seen.add(other), next.push(other));
          }
        }
      }
      frontier = next;
      if (facts.size > 500) break; // bounded: a hub entity must not dump the graph
    }
    return {
      root: this.graph.entityView(rootId)!,
      facts: [...facts.values()],
      entities: [...seen].map((id) => this.graph.entityView(id)!).filter(Boolean),
    };
  }

  overview(input: { limit?: number } = {}): { entities: EntityView[]; sessions: { session: string; episodes: number; last: string }[] } {
    const limit = boundLimit(input.limit, 10, 50);
    const top = all(
      this.db,
      `SELECT e.id, (SELECT COUNT(*) FROM mentions m WHERE m.entity_id = e.id)
              + 2 * (SELECT COUNT(*) FROM relationships r WHERE (r.subject_id = e.id OR r.object_id = e.id) AND r.valid_to IS NULL) AS weight
         FROM entities e ORDER BY weight DESC, e.name LIMIT ?`,
      [limit],
    );
    const sessions = all(
      this.db,
      `SELECT session, COUNT(*) AS n, MAX(time) AS last FROM episodes WHERE session IS NOT NULL
        GROUP BY session ORDER BY MAX(time_ms) DESC LIMIT ?`,
      [limit],
    ).map((r) => ({ session: String(r.session), episodes: Number(r.n), last: String(r.last) }));
    return { entities: top.map((r) => this.graph.entityView(Number(r.id))!), sessions };
  }

  /** Page-by-page lists for tree views (core/browse.ts). */
  browseHandlers(): ReturnType<typeof browseHandlers> {
    return browseHandlers(this.graph);
  }

  fact(id: string): FactView {
    this.requireFact(id);
    return this.graph.factById(id)!;
  }

  status(): {
    episodes: number;
    entities: number;
    relationships: number;
    current_relationships: number;
    memory: string;
    journal_bytes: number;
    snapshot_bytes: number;
    events_since_snapshot: number;
    last_write: string | null;
    redactions: number;
  } {
    const snapshotPath = path.join(this.folder, SNAPSHOT_FILE);
    return {
      ...this.graph.counts(),
      memory: this.folder,
      journal_bytes: this.journal.position,
      snapshot_bytes: fs.existsSync(snapshotPath) ? fs.statSync(snapshotPath).size : 0,
      events_since_snapshot: this.eventsSinceSnapshot,
      last_write: this.graph.getMeta('last_write') ?? null,
      redactions: Number(this.graph.getMeta('redactions') ?? 0),
    };
  }

  /** The whole memory as plain data. Without history, ended facts are left out. */
  export(input: { history?: boolean } = {}): { entities: EntityView[]; facts: FactView[]; episodes: EpisodeView[] } {
    const entities = all(this.db, 'SELECT id FROM entities ORDER BY name').map((r) => this.graph.entityView(Number(r.id))!);
    const episodes = all(this.db, 'SELECT * FROM episodes ORDER BY rowid').map((r) => this.graph.episodeView(r));
    return { entities, facts: this.graph.allFacts({ history: input.history }), episodes };
  }

  // ---- persistence ------------------------------------------------------------------------

  /** Position of the last event: grows with every write. */
  get seq(): number {
    return Number(this.graph.getMeta('seq') ?? 0);
  }

  get pendingSnapshotEvents(): number {
    return this.eventsSinceSnapshot;
  }

  /**
   * Merges the keyword index's segments for up to `budgetMs` (FTS4 leaves many small segments
   * as rows arrive, and reading them all is what slows a query on a grown memory). Returns true
   * when the index is fully merged. Call when idle.
   */
  compactIndex(budgetMs: number): boolean {
    const deadline = Date.now() + budgetMs;
    for (const table of ['episodes_fts', 'entities_fts']) {
      for (;;) {
        const before = Number(scalar(this.db, 'SELECT total_changes()'));
        this.db.exec(`INSERT INTO ${table}(${table}) VALUES('merge=64,4')`);
        // Fewer than two changed rows means there was nothing left to merge (FTS4 docs).
        if (Number(scalar(this.db, 'SELECT total_changes()')) - before < 2) break;
        this.indexCompacted = true;
        if (Date.now() >= deadline) return false;
      }
    }
    return true;
  }

  /** Something worth a snapshot: new events, or index work that would be lost on restart. */
  get snapshotDue(): boolean {
    return this.eventsSinceSnapshot > 0 || this.indexCompacted;
  }

  /** Writes the snapshot atomically, recording the journal position it covers. Blocks; call when idle. */
  snapshot(): void {
    const started = Date.now();
    this.graph.setMeta('journal_position', this.journal.position);
    forgetStatements(this.db);
    const bytes = this.db.export();
    // export() drops create_function registrations in sql.js: register again.
    registerRanking(this.db);
    writeSnapshot(path.join(this.folder, SNAPSHOT_FILE), bytes);
    this.log(`snapshot: ${this.eventsSinceSnapshot} new event(s), ${(bytes.length / 1e6).toFixed(1)} MB in ${Date.now() - started} ms`);
    this.eventsSinceSnapshot = 0;
    this.indexCompacted = false;
  }

  close(opts: { snapshot?: boolean } = {}): void {
    if (opts.snapshot && this.eventsSinceSnapshot > 0) this.snapshot();
    this.journal.close();
    forgetStatements(this.db);
    this.db.close();
  }

  private requireEntity(name: string): number {
    const text = requireText(name, 'entity');
    const id = this.graph.entityIdOf(text);
    if (id !== undefined) return id;
    const near = this.nearestNames(text, 5);
    throw notFound(`No entity named "${text}".`, near.length ? `Did you mean: ${near.join(', ')}?` : 'Search for it with recall_search first.');
  }

  /**
   * Names closest to a misspelt one: keyword matches first, then by character-bigram similarity
   * over all names (only on this error path, so a full scan is affordable).
   */
  private nearestNames(text: string, n: number): string[] {
    const names = new Set(keywordEntities(this.db, text, n).map((h) => this.graph.entityView(h.rowid)!.name));
    const target = bigrams(text);
    const scored = all(this.db, 'SELECT name FROM entities UNION ALL SELECT alias AS name FROM aliases')
      .map((r) => String(r.name))
      .map((name) => ({ name, score: dice(target, bigrams(name)) }))
      .filter((x) => x.score >= 0.3)
      .sort((a, b) => b.score - a.score);
    for (const { name } of scored) {
      if (names.size >= n) break;
      names.add(name);
    }
    return [...names].slice(0, n);
  }

  private requireFact(id: string): void {
    if (typeof id !== 'string' || !/^rel_\d+$/.test(id)) throw invalid(`"${String(id)}" is not a relationship id.`, 'Ids look like rel_12; `recall query` shows them.');
    if (!this.graph.relationshipExists(id)) throw notFound(`No relationship "${id}".`, 'Ids look like rel_12; `recall query` shows them.');
  }
}

function readLogged(journal: Journal, position: number, log: (msg: string) => void): MemoryEvent[] {
  const { events, corruptLines } = journal.readFrom(position);
  if (corruptLines > 0) log(`journal: skipped ${corruptLines} unreadable line(s) in ${journal.path}`);
  return events;
}

// ---- validation helpers -------------------------------------------------------------------

const AUTHORITY_RANK: Record<Authority, number> = { agent: 0, user: 1, external: 2, human: 3 };
const rank = (a: Authority): number => AUTHORITY_RANK[a] ?? -1;

function requireHuman(by: Provenance, what: string): void {
  if (by.authority !== 'human') {
    throw new MemoryError('forbidden', `Only a person can ${what}.`, 'Use the Recall commands in VS Code or the `recall` CLI.');
  }
}

function requireText(v: unknown, what: string): string {
  if (typeof v !== 'string' || !v.trim()) throw invalid(`The ${what} is empty: give some words to look for.`);
  if (v.length > LIMITS.queryChars) throw invalid(`The ${what} is ${v.length} characters; keep it under ${LIMITS.queryChars}.`, 'Ask with the question itself, not a document.');
  return v.trim();
}

function validName(v: unknown, what: string): string {
  if (typeof v !== 'string' || !v.trim()) throw invalid(`The ${what} is empty.`);
  if (v.length > 200) throw invalid(`The ${what} is ${v.length} characters long; names are at most 200.`);
  return v.trim().replace(/\s+/g, ' ');
}

function boundLimit(v: unknown, dflt: number, max: number): number {
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


function bigrams(s: string): Map<string, number> {
  const t = ` ${s.toLowerCase()} `;
  const m = new Map<string, number>();
  for (let i = 0; i < t.length - 1; i++) m.set(t.slice(i, i + 2), (m.get(t.slice(i, i + 2)) ?? 0) + 1);
  return m;
}

/** Sørensen–Dice coefficient over bigram multisets. */
function dice(a: Map<string, number>, b: Map<string, number>): number {
  let overlap = 0;
  let total = 0;
  for (const [g, c] of a) (overlap += Math.min(c, b.get(g) ?? 0), (total += c));
  for (const c of b.values()) total += c;
  return total ? (2 * overlap) / total : 0;
}
