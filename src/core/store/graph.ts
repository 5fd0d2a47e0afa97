/**
 * The knowledge graph held in sql.js: applies journal events and answers reads.
 * It never writes the journal itself (Memory does) so replay and live writes share `apply`.
 */
import { all, run, scalar, type Database, type Row } from './sqlite.js';
import type { Authority, MemoryConfig, PriorKind } from '../model/config.js';
import { confidenceOf, effectiveConfidence } from './confidence.js';
import type { EpisodeRecord, MemoryEvent } from '../model/events.js';
import { SCHEMA, SCHEMA_VERSION } from './schema.js';
import { indexEpisode, unindexEpisode } from './fts.js';
import type { EntityView, EpisodeView, FactStatus, FactView } from '../model/views.js';


const extractionNote = (model: string | undefined): string | undefined => (model === undefined ? undefined : `extracted by ${model}`);

export const entityKey = (name: string): string => name.trim().toLowerCase();

export class Graph {
  constructor(
    readonly db: Database,
    private readonly config: MemoryConfig,
  ) {}

  static createSchema(db: Database): void {
    db.exec(SCHEMA);
    db.run('INSERT INTO meta(key, value) VALUES (?, ?)', ['schema_version', String(SCHEMA_VERSION)]);
  }

  static schemaVersion(db: Database): number {
    try {
      return Number(scalar(db, "SELECT value FROM meta WHERE key = 'schema_version'"));
    } catch {
      return -1;
    }
  }

  // ---- meta -------------------------------------------------------------------------------

  getMeta(key: string): string | undefined {
    const v = scalar(this.db, 'SELECT value FROM meta WHERE key = ?', [key]);
    return v === undefined ? undefined : String(v);
  }

  setMeta(key: string, value: string | number): void {
    run(this.db, 'INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)', [key, String(value)]);
  }

  private bumpCounter(key: string, id: string): void {
    const n = Number(id.slice(id.indexOf('_') + 1));
    if (Number.isFinite(n) && n > Number(this.getMeta(key) ?? 0)) this.setMeta(key, n);
  }

  nextId(prefix: 'ep' | 'rel', offset = 0): string {
    return `${prefix}_${Number(this.getMeta(`last_${prefix}`) ?? 0) + 1 + offset}`;
  }

  // ---- applying events --------------------------------------------------------------------

  apply(e: MemoryEvent): void {
    switch (e.type) {
      case 'episodes.add':
        for (const ep of e.episodes) this.addEpisode(ep);
        break;
      case 'entity.upsert':
        this.upsertEntity(e.name, e.at, { type: e.entityType, aliases: e.aliases, summary: e.summary });
        break;
      case 'relationship.assert': {
        const subject = this.upsertEntity(e.subject, e.at);
        const object = this.upsertEntity(e.object, e.at);
        const p = this.config.confidence.priors[e.prior];
        const c = this.config.confidence.concentration;
        run(this.db, 
          `INSERT INTO relationships(rowid, id, subject_id, predicate, object_id, prior_kind, prior, alpha, beta,
             authority, valid_from, last_reinforced_ms)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [numericId(e.id), e.id, subject, e.predicate, object, e.prior, p, c * p, c * (1 - p), e.assertedBy ?? e.by.authority, e.at, Date.parse(e.at)],
        );
        this.bumpCounter('last_rel', e.id);
        for (const episode of e.evidence ?? []) this.addEvidence(e.id, episode, 1, this.evidenceAuthority(episode, e.extractedBy), e.at, extractionNote(e.extractedBy));
        break;
      }
      case 'relationship.evidence':
        this.addEvidence(e.id, e.episode, e.polarity, e.episode ? this.evidenceAuthority(e.episode, e.extractedBy) : e.by.authority, e.at, extractionNote(e.extractedBy));
        break;
      case 'relationship.correct':
        this.correct(e.id, e.verdict, e.by.authority, e.at, e.reason);
        break;
      case 'entity.forget':
        this.forget(e.name, e.episodes, e.relationships);
        break;
    }
  }

  private addEpisode(ep: EpisodeRecord): void {
    const rowid = numericId(ep.id);
    const time = ep.time!;
    run(this.db, 
      `INSERT INTO episodes(rowid, id, text, speaker, role, authority, source, session, ref, time, time_ms, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [rowid, ep.id, ep.text, ep.speaker ?? null, ep.role ?? null, ep.authority, ep.source ?? null, ep.session ?? null,
        ep.ref ?? null, time, Date.parse(time), ep.hash],
    );
    indexEpisode(this.db, rowid);
    for (const name of ep.entities ?? []) {
      const entity = this.upsertEntity(name, time);
      run(this.db, 'INSERT OR IGNORE INTO mentions(episode_rowid, entity_id) VALUES (?, ?)', [rowid, entity]);
    }
    this.bumpCounter('last_ep', ep.id);
    if (ep.redactions) this.setMeta('redactions', Number(this.getMeta('redactions') ?? 0) + ep.redactions);
  }

  /** Returns the entity's id, creating it (or a known alias's entity) as needed. */
  upsertEntity(
    name: string,
    at: string,
    fields: { type?: string; aliases?: string[]; summary?: string } = {},
  ): number {
    let id = this.entityIdOf(name);
    if (id === undefined) {
      run(this.db, 'INSERT INTO entities(name, key, type, summary, created, updated) VALUES (?, ?, ?, ?, ?, ?)', [
        name.trim(), entityKey(name), fields.type ?? 'thing', fields.summary ?? '', at, at,
      ]);
      id = Number(scalar(this.db, 'SELECT last_insert_rowid()'));
      run(this.db, 'INSERT INTO entities_fts(docid, name, summary) VALUES (?, ?, ?)', [id, name.trim(), fields.summary ?? '']);
    } else if (fields.type !== undefined || fields.summary !== undefined) {
      if (fields.type !== undefined) run(this.db, 'UPDATE entities SET type = ?, updated = ? WHERE id = ?', [fields.type, at, id]);
      if (fields.summary !== undefined) {
        run(this.db, 'UPDATE entities SET summary = ?, updated = ? WHERE id = ?', [fields.summary, at, id]);
        run(this.db, 'UPDATE entities_fts SET summary = ? WHERE docid = ?', [fields.summary, id]);
      }
    }
    for (const alias of fields.aliases ?? []) {
      if (this.entityIdOf(alias) === undefined) {
        run(this.db, 'INSERT INTO aliases(key, alias, entity_id) VALUES (?, ?, ?)', [entityKey(alias), alias.trim(), id]);
      }
    }
    return id;
  }

  entityIdOf(name: string): number | undefined {
    const key = entityKey(name);
    const v =
      scalar(this.db, 'SELECT id FROM entities WHERE key = ?', [key]) ??
      scalar(this.db, 'SELECT entity_id FROM aliases WHERE key = ?', [key]);
    return v === undefined ? undefined : Number(v);
  }

  /**
   * The weight an episode lends a fact is its speaker's; when a language model did the reading,
   * the fact rests on the model's interpretation, which weighs as the agent's whoever spoke.
   */
  private evidenceAuthority(episodeId: string, extractedBy: string | undefined): Authority {
    if (extractedBy !== undefined) return 'agent';
    return (scalar(this.db, 'SELECT authority FROM episodes WHERE id = ?', [episodeId]) as Authority | undefined) ?? 'agent';
  }

  private addEvidence(relId: string, episode: string | undefined, polarity: 1 | -1, authority: Authority, at: string, note?: string): void {
    const rowid = numericId(relId);
    const w = this.config.confidence.provenanceWeights[authority];
    run(this.db, 'INSERT INTO evidence(relationship_rowid, episode_id, polarity, authority, at, note) VALUES (?, ?, ?, ?, ?, ?)', [
      rowid, episode ?? null, polarity, authority, at, note ?? null,
    ]);
    if (polarity > 0) {
      run(this.db, 
        `UPDATE relationships SET alpha = alpha + ?, corroborated = 1,
           corroborated_by_non_agent = MAX(corroborated_by_non_agent, ?), last_reinforced_ms = MAX(last_reinforced_ms, ?)
         WHERE rowid = ?`,
        [w, authority === 'agent' ? 0 : 1, Date.parse(at), rowid],
      );
    } else {
      run(this.db, 'UPDATE relationships SET beta = beta + ? WHERE rowid = ?', [w, rowid]);
    }
  }

  /** A person's verdict: wrong ends the fact at once; confirm pins it (and reopens it if it had been ended). */
  private correct(relId: string, verdict: 'wrong' | 'confirm', authority: Authority, at: string, reason?: string): void {
    const rowid = numericId(relId);
    if (verdict === 'wrong') {
      this.addEvidence(relId, undefined, -1, authority, at, reason ?? 'marked wrong');
      run(this.db, "UPDATE relationships SET valid_to = ?, ended_by = 'wrong', ended_reason = ?, pinned = 0 WHERE rowid = ?", [
        at, reason ?? null, rowid,
      ]);
    } else {
      this.addEvidence(relId, undefined, 1, authority, at, reason ?? 'confirmed');
      run(this.db, 'UPDATE relationships SET valid_to = NULL, ended_by = NULL, ended_reason = NULL, pinned = 1 WHERE rowid = ?', [rowid]);
    }
  }

  private forget(name: string, episodes: string[], relationships: string[]): void {
    for (const id of relationships) {
      run(this.db, 'DELETE FROM evidence WHERE relationship_rowid = ?', [numericId(id)]);
      run(this.db, 'DELETE FROM relationships WHERE id = ?', [id]);
      this.bumpCounter('last_rel', id);
    }
    for (const id of episodes) {
      const rowid = numericId(id);
      unindexEpisode(this.db, rowid);
      run(this.db, 'DELETE FROM episodes WHERE rowid = ?', [rowid]);
      run(this.db, 'DELETE FROM mentions WHERE episode_rowid = ?', [rowid]);
      run(this.db, 'DELETE FROM evidence WHERE episode_id = ?', [id]);
      this.bumpCounter('last_ep', id);
    }
    const entity = this.entityIdOf(name);
    if (entity !== undefined) {
      run(this.db, 'DELETE FROM mentions WHERE entity_id = ?', [entity]);
      run(this.db, 'DELETE FROM aliases WHERE entity_id = ?', [entity]);
      run(this.db, 'DELETE FROM entities_fts WHERE docid = ?', [entity]);
      run(this.db, 'DELETE FROM entities WHERE id = ?', [entity]);
    }
  }

  // ---- reads ------------------------------------------------------------------------------

  hasEpisodeHash(hash: string): boolean {
    return scalar(this.db, 'SELECT 1 FROM episodes WHERE hash = ?', [hash]) !== undefined;
  }

  /** The current relationship with this exact subject, predicate and object, if any. */
  findCurrentRelationship(subject: string, predicate: string, object: string): string | undefined {
    const s = this.entityIdOf(subject);
    const o = this.entityIdOf(object);
    if (s === undefined || o === undefined) return undefined;
    const v = scalar(
      this.db,
      'SELECT id FROM relationships WHERE subject_id = ? AND predicate = ? AND object_id = ? AND valid_to IS NULL',
      [s, predicate, o],
    );
    return v === undefined ? undefined : String(v);
  }

  entityType(name: string): string | undefined {
    const id = this.entityIdOf(name);
    return id === undefined ? undefined : String(scalar(this.db, 'SELECT type FROM entities WHERE id = ?', [id]));
  }

  episodeExists(id: string): boolean {
    return scalar(this.db, 'SELECT 1 FROM episodes WHERE id = ?', [id]) !== undefined;
  }

  relationshipExists(id: string): boolean {
    return scalar(this.db, 'SELECT 1 FROM relationships WHERE id = ?', [id]) !== undefined;
  }

  counts(): { episodes: number; entities: number; relationships: number; current_relationships: number } {
    return {
      episodes: Number(scalar(this.db, 'SELECT COUNT(*) FROM episodes')),
      entities: Number(scalar(this.db, 'SELECT COUNT(*) FROM entities')),
      relationships: Number(scalar(this.db, 'SELECT COUNT(*) FROM relationships')),
      current_relationships: Number(scalar(this.db, 'SELECT COUNT(*) FROM relationships WHERE valid_to IS NULL')),
    };
  }

  episodesByRowids(rowids: number[]): EpisodeView[] {
    if (rowids.length === 0) return [];
    const rows = all(this.db, 'SELECT * FROM episodes WHERE rowid IN (SELECT value FROM json_each(?))', [JSON.stringify(rowids)]);
    const byRowid = new Map(rows.map((r) => [Number(r.rowid), r]));
    return rowids.filter((r) => byRowid.has(r)).map((r) => this.episodeView(byRowid.get(r)!));
  }

  episodeView(r: Row): EpisodeView {
    const entities = all(
      this.db,
      'SELECT e.name FROM mentions m JOIN entities e ON e.id = m.entity_id WHERE m.episode_rowid = ? ORDER BY e.name',
      [r.rowid],
    ).map((x) => String(x.name));
    return {
      id: String(r.id),
      text: String(r.text),
      speaker: (r.speaker as string | null) ?? null,
      role: (r.role as string | null) ?? null,
      authority: r.authority as Authority,
      source: (r.source as string | null) ?? null,
      session: (r.session as string | null) ?? null,
      ref: (r.ref as string | null) ?? null,
      time: String(r.time),
      entities,
    };
  }

  entityView(id: number): EntityView | undefined {
    const r = all(this.db, 'SELECT * FROM entities WHERE id = ?', [id])[0];
    if (!r) return undefined;
    return {
      name: String(r.name),
      type: String(r.type),
      aliases: all(this.db, 'SELECT alias FROM aliases WHERE entity_id = ? ORDER BY alias', [id]).map((a) => String(a.alias)),
      summary: String(r.summary),
      episodes: Number(scalar(this.db, 'SELECT COUNT(*) FROM mentions WHERE entity_id = ?', [id])),
      relationships: Number(
        scalar(this.db, 'SELECT COUNT(*) FROM relationships WHERE (subject_id = ? OR object_id = ?) AND valid_to IS NULL', [id, id]),
      ),
    };
  }

  /** Relationships touching an entity, most recently reinforced first; ended ones only when history is asked for. */
  factsOf(entityId: number, opts: { history?: boolean; now?: number; limit?: number } = {}): FactView[] {
    const rows = all(
      this.db,
      `SELECT r.*, s.name AS subject, o.name AS object FROM relationships r
         JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
       WHERE (r.subject_id = ? OR r.object_id = ?) ${opts.history ? '' : 'AND r.valid_to IS NULL'}
       ORDER BY r.last_reinforced_ms DESC, r.rowid DESC LIMIT ?`,
      [entityId, entityId, opts.limit ?? -1],
    );
    return rows.map((r) => this.factView(r, opts.now));
  }

  factById(id: string, now?: number): FactView | undefined {
    const r = all(
      this.db,
      `SELECT r.*, s.name AS subject, o.name AS object FROM relationships r
         JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id WHERE r.id = ?`,
      [id],
    )[0];
    return r ? this.factView(r, now) : undefined;
  }

  allFacts(opts: { history?: boolean; now?: number } = {}): FactView[] {
    return all(
      this.db,
      `SELECT r.*, s.name AS subject, o.name AS object FROM relationships r
         JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
       ${opts.history ? '' : 'WHERE r.valid_to IS NULL'} ORDER BY r.rowid`,
    ).map((r) => this.factView(r, opts.now));
  }

  private factView(r: Row, now = Date.now()): FactView {
    const prior = Number(r.prior);
    const agentOnly = Number(r.corroborated) === 1 && Number(r.corroborated_by_non_agent) === 0;
    const confidence = confidenceOf({ alpha: Number(r.alpha), beta: Number(r.beta) }, prior, agentOnly);
    const pinned = Number(r.pinned) === 1;
    const status: FactStatus = r.valid_to == null ? 'current' : r.ended_by === 'wrong' ? 'wrong' : 'superseded';
    return {
      id: String(r.id),
      subject: String(r.subject),
      predicate: String(r.predicate),
      object: String(r.object),
      confidence: round(confidence),
      effective_confidence: round(effectiveConfidence(confidence, Number(r.last_reinforced_ms), now, this.config.confidence, pinned)),
      prior: r.prior_kind as PriorKind,
      authority: r.authority as Authority,
      evidence: all(this.db, 'SELECT episode_id FROM evidence WHERE relationship_rowid = ? AND episode_id IS NOT NULL', [r.rowid]).map(
        (e) => String(e.episode_id),
      ),
      valid_from: String(r.valid_from),
      valid_to: (r.valid_to as string | null) ?? null,
      status,
      pinned,
      ended_reason: (r.ended_reason as string | null) ?? null,
    };
  }
}

export function numericId(id: string): number {
  const n = Number(id.slice(id.indexOf('_') + 1));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`"${id}" is not a valid id.`);
  return n;
}

/** Scores and confidences as shown: four decimals. */
export const round = (x: number): number => Math.round(x * 1e4) / 1e4;
