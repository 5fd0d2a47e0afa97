/**
 * The graph's rows as journal events change them: every INSERT, UPDATE and DELETE the graph
 * issues. Replay and live writes both come through `apply`, so they cannot drift apart.
 */
import type { Authority, MemoryConfig } from '../model/config.js';
import type { EpisodeRecord, MemoryEvent } from '../model/events.js';
import { priorState, stateAfterEvidence } from './confidence.js';
import { indexEntity, indexEpisode, reindexEntitySummary, unindexEntity, unindexEpisode } from './fts.js';
import { entityIdOf, entityKey, markIdUsed, numericId } from './ids.js';
import { getMeta, setMeta } from './meta.js';
import { all, run, scalar, type Database } from './sqlite.js';

const extractionNote = (model: string | undefined): string | undefined => (model === undefined ? undefined : `extracted by ${model}`);

export class GraphWrites {
  constructor(
    private readonly db: Database,
    private readonly config: MemoryConfig,
  ) {}

  apply(e: MemoryEvent): void {
    switch (e.type) {
      case 'episodes.add':
        for (const ep of e.episodes) this.addEpisode(ep);
        break;
      case 'entity.upsert':
        this.upsertEntity(e.name, e.at, { type: e.entityType, aliases: e.aliases, summary: e.summary });
        break;
      case 'relationship.assert': {
        this.assertFact(e);
        const note = extractionNote(e.extractedBy);
        for (const episode of e.evidence ?? [])
          this.recordEvidence(e.id, episode, 1, this.evidenceAuthority(episode, e.extractedBy), e.at, note);
        break;
      }
      case 'relationship.evidence': {
        const authority = e.episode ? this.evidenceAuthority(e.episode, e.extractedBy) : e.by.authority;
        this.recordEvidence(e.id, e.episode, e.polarity, authority, e.at, extractionNote(e.extractedBy));
        break;
      }
      case 'relationship.correct':
        this.correctFact(e.id, e.verdict, e.by.authority, e.at, e.reason);
        break;
      case 'entity.forget':
        this.forget(e.name, e.episodes, e.relationships);
        break;
      case 'entity.unalias': {
        const id = entityIdOf(this.db, e.name);
        if (id === undefined) break;
        run(this.db, 'DELETE FROM aliases WHERE key = ? AND entity_id = ?', [entityKey(e.alias), id]);
        run(this.db, 'INSERT OR IGNORE INTO alias_rejections(key, entity_id) VALUES (?, ?)', [entityKey(e.alias), id]);
        break;
      }
    }
  }

  private addEpisode(ep: EpisodeRecord): void {
    const rowid = numericId(ep.id);
    const time = ep.time!;
    run(
      this.db,
      `INSERT INTO episodes(rowid, id, text, speaker, role, authority, source, session, ref, time, time_ms, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        rowid,
        ep.id,
        ep.text,
        ep.speaker ?? null,
        ep.role ?? null,
        ep.authority,
        ep.source ?? null,
        ep.session ?? null,
        ep.ref ?? null,
        time,
        Date.parse(time),
        ep.hash,
      ],
    );
    indexEpisode(this.db, rowid);
    for (const name of ep.entities ?? []) {
      const entity = this.upsertEntity(name, time);
      run(this.db, 'INSERT OR IGNORE INTO mentions(episode_rowid, entity_id) VALUES (?, ?)', [rowid, entity]);
    }
    markIdUsed(this.db, 'ep', ep.id);
    if (ep.redactions) setMeta(this.db, 'redactions', Number(getMeta(this.db, 'redactions') ?? 0) + ep.redactions);
  }

  /** Returns the entity's id, creating it (or a known alias's entity) as needed. */
  private upsertEntity(name: string, at: string, fields: { type?: string; aliases?: string[]; summary?: string } = {}): number {
    let id = entityIdOf(this.db, name);
    if (id === undefined) {
      run(this.db, 'INSERT INTO entities(name, key, type, summary, created, updated) VALUES (?, ?, ?, ?, ?, ?)', [
        name.trim(),
        entityKey(name),
        fields.type ?? 'thing',
        fields.summary ?? '',
        at,
        at,
      ]);
      id = Number(scalar(this.db, 'SELECT last_insert_rowid()'));
      indexEntity(this.db, id, name.trim(), fields.summary ?? '');
    } else if (fields.type !== undefined || fields.summary !== undefined) {
      if (fields.type !== undefined) run(this.db, 'UPDATE entities SET type = ?, updated = ? WHERE id = ?', [fields.type, at, id]);
      if (fields.summary !== undefined) {
        run(this.db, 'UPDATE entities SET summary = ?, updated = ? WHERE id = ?', [fields.summary, at, id]);
        reindexEntitySummary(this.db, id, fields.summary);
      }
    }
    for (const alias of fields.aliases ?? []) {
      if (entityIdOf(this.db, alias) === undefined) {
        run(this.db, 'INSERT INTO aliases(key, alias, entity_id) VALUES (?, ?, ?)', [entityKey(alias), alias.trim(), id]);
      }
    }
    return id;
  }

  private assertFact(e: Extract<MemoryEvent, { type: 'relationship.assert' }>): void {
    const subject = this.upsertEntity(e.subject, e.at);
    const object = this.upsertEntity(e.object, e.at);
    const { alpha, beta } = priorState(e.prior, this.config.confidence);
    run(
      this.db,
      `INSERT INTO relationships(rowid, id, subject_id, predicate, object_id, prior_kind, prior, alpha, beta,
         authority, valid_from, last_reinforced_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        numericId(e.id),
        e.id,
        subject,
        e.predicate,
        object,
        e.prior,
        this.config.confidence.priors[e.prior],
        alpha,
        beta,
        e.assertedBy ?? e.by.authority,
        e.at,
        Date.parse(e.at),
      ],
    );
    markIdUsed(this.db, 'rel', e.id);
  }

  /**
   * The weight an episode lends a fact is its speaker's; when a language model did the reading,
   * the fact rests on the model's interpretation, which weighs as the agent's whoever spoke.
   */
  private evidenceAuthority(episodeId: string, extractedBy: string | undefined): Authority {
    if (extractedBy !== undefined) return 'agent';
    return (scalar(this.db, 'SELECT authority FROM episodes WHERE id = ?', [episodeId]) as Authority | undefined) ?? 'agent';
  }

  /** Stores one piece of evidence and moves the fact's confidence state by it (confidence.ts). */
  private recordEvidence(
    relId: string,
    episode: string | undefined,
    polarity: 1 | -1,
    authority: Authority,
    at: string,
    note?: string,
  ): void {
    const rowid = numericId(relId);
    run(this.db, 'INSERT INTO evidence(relationship_rowid, episode_id, polarity, authority, at, note) VALUES (?, ?, ?, ?, ?, ?)', [
      rowid,
      episode ?? null,
      polarity,
      authority,
      at,
      note ?? null,
    ]);
    const row = all(this.db, 'SELECT alpha, beta FROM relationships WHERE rowid = ?', [rowid])[0];
    if (!row) return;
    const { alpha, beta } = stateAfterEvidence(
      { alpha: Number(row.alpha), beta: Number(row.beta) },
      authority,
      polarity,
      this.config.confidence,
    );
    if (polarity > 0) {
      run(
        this.db,
        `UPDATE relationships SET alpha = ?, beta = ?, corroborated = 1,
           corroborated_by_non_agent = MAX(corroborated_by_non_agent, ?), last_reinforced_ms = MAX(last_reinforced_ms, ?)
         WHERE rowid = ?`,
        [alpha, beta, authority === 'agent' ? 0 : 1, Date.parse(at), rowid],
      );
    } else {
      run(this.db, 'UPDATE relationships SET alpha = ?, beta = ? WHERE rowid = ?', [alpha, beta, rowid]);
    }
  }

  /** A person's verdict: wrong ends the fact at once; confirm pins it (and reopens it if it had been ended). */
  private correctFact(relId: string, verdict: 'wrong' | 'confirm', authority: Authority, at: string, reason?: string): void {
    const rowid = numericId(relId);
    if (verdict === 'wrong') {
      this.recordEvidence(relId, undefined, -1, authority, at, reason ?? 'marked wrong');
      run(this.db, "UPDATE relationships SET valid_to = ?, ended_by = 'wrong', ended_reason = ?, pinned = 0 WHERE rowid = ?", [
        at,
        reason ?? null,
        rowid,
      ]);
    } else {
      this.recordEvidence(relId, undefined, 1, authority, at, reason ?? 'confirmed');
      run(this.db, 'UPDATE relationships SET valid_to = NULL, ended_by = NULL, ended_reason = NULL, pinned = 1 WHERE rowid = ?', [rowid]);
    }
  }

  private forget(name: string, episodes: string[], relationships: string[]): void {
    for (const id of relationships) {
      run(this.db, 'DELETE FROM evidence WHERE relationship_rowid = ?', [numericId(id)]);
      run(this.db, 'DELETE FROM relationships WHERE id = ?', [id]);
      markIdUsed(this.db, 'rel', id);
    }
    for (const id of episodes) {
      const rowid = numericId(id);
      unindexEpisode(this.db, rowid);
      run(this.db, 'DELETE FROM episodes WHERE rowid = ?', [rowid]);
      run(this.db, 'DELETE FROM mentions WHERE episode_rowid = ?', [rowid]);
      run(this.db, 'DELETE FROM evidence WHERE episode_id = ?', [id]);
      markIdUsed(this.db, 'ep', id);
    }
    const entity = entityIdOf(this.db, name);
    if (entity !== undefined) {
      run(this.db, 'DELETE FROM mentions WHERE entity_id = ?', [entity]);
      run(this.db, 'DELETE FROM aliases WHERE entity_id = ?', [entity]);
      unindexEntity(this.db, entity);
      run(this.db, 'DELETE FROM entities WHERE id = ?', [entity]);
    }
  }
}
