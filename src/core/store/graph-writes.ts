/**
 * The graph's rows as journal events change them: every INSERT, UPDATE and DELETE the graph
 * issues. Replay and live writes both come through `apply`, so they cannot drift apart.
 */
import type { Authority, MemoryConfig } from '../model/config.js';
import { SUPERSEDING_KINDS } from '../model/knowledge.js';
import type { EpisodeRecord, MemoryEvent } from '../model/events.js';
import { projectOfSource } from '../model/project.js';
import { priorState, stateAfterEvidence } from './confidence.js';
import { indexEntity, indexEpisode, reindexEntitySummary, unindexEntity, unindexEpisode } from './fts.js';
import { aliasId, entityIdOf, entityKey, markIdUsed, ownNumber, resolveId, rowidForNew, rowidOf } from './ids.js';
import { isBare, orphansAfter } from './erasure.js';
import { assignSelection } from './assign-selection.js';
import { applyRuleEvent, dropOutcomes, setCheck } from './check-writes.js';
import { endAsSame, retract, supersede } from './item-endings.js';
import { heldListsStale } from './held-items.js';
import { getMeta, setMeta } from './meta.js';
import { all, run, scalar, type Database } from './sqlite.js';

/** The evidence note of a model's reading: the model, so the evidence is weighed as the agent's whoever spoke. */
const EXTRACTION_NOTE = 'extracted by ';
const extractionNote = (model: string | undefined): string | undefined => (model === undefined ? undefined : EXTRACTION_NOTE + model);

/** The turns speaking for a fact, oldest first, each with the model that read it from the turn (if one did). */
export function supportingTurns(db: Database, id: string): { episode: string; extractedBy?: string }[] {
  return all(
    db,
    `SELECT episode_id, note FROM evidence WHERE relationship_rowid = (SELECT rowid FROM relationships WHERE id = ?)
       AND episode_id IS NOT NULL AND polarity > 0 ORDER BY rowid`,
    [resolveId(db, 'rel', id)],
  ).map((r) => {
    const note = String(r.note ?? '');
    return {
      episode: String(r.episode_id),
      ...(note.startsWith(EXTRACTION_NOTE) ? { extractedBy: note.slice(EXTRACTION_NOTE.length) } : {}),
    };
  });
}

export class GraphWrites {
  constructor(
    private readonly db: Database,
    private readonly config: MemoryConfig,
  ) {}

  apply(e: MemoryEvent): void {
    if (applyRuleEvent(this.db, e)) return;
    switch (e.type) {
      case 'episodes.add':
        for (const ep of e.episodes) this.addEpisode(ep, e.origin === undefined ? null : (e.by.author ?? e.origin));
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
        this.correctFact(e.id, e.verdict, e.by.authority, e.at, e.reason, e.origin === undefined ? null : (e.by.author ?? e.origin));
        break;
      case 'relationship.retract':
        if (e.sameAs === undefined) retract(this.db, e.id, e.at, e.reason);
        else {
          endAsSame(this.db, e.id, e.sameAs, e.at);
          // One more item said to be another: the lists of those (held-items.ts sameItems) must see it.
          heldListsStale(this.db);
        }
        break;
      case 'entity.forget':
        this.forget(e);
        break;
      case 'project.assign':
        this.assignProject(e);
        break;
      case 'anchors.set':
        run(this.db, 'INSERT OR REPLACE INTO anchors(target, anchors) VALUES (?, ?)', [
          resolveId(this.db, e.target.startsWith('rel_') ? 'rel' : 'ep', e.target),
          JSON.stringify(e.anchors),
        ]);
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

  private addEpisode(ep: EpisodeRecord, author: string | null): void {
    // The same turn stored by two memories (a shared transcript): one row, the other id names it.
    const same = scalar(this.db, 'SELECT id FROM episodes WHERE hash = ?', [ep.hash]);
    if (same !== undefined) return aliasId(this.db, ep.id, String(same));
    const rowid = rowidForNew(this.db, 'ep', ep.id);
    const time = ep.time!;
    run(
      this.db,
      `INSERT INTO episodes(rowid, id, text, speaker, role, authority, source, session, ref, time, time_ms, hash, project, author)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        // A turn stored before projects existed belongs to a project named after its source.
        ep.project === undefined ? projectOfSource(ep.source) : ep.project,
        author,
      ],
    );
    indexEpisode(this.db, rowid);
    for (const name of ep.entities ?? []) {
      const entity = this.upsertEntity(name, time);
      run(this.db, 'INSERT OR IGNORE INTO mentions(episode_rowid, entity_id) VALUES (?, ?)', [rowid, entity]);
    }
    markIdUsed(this.db, 'ep', rowid);
    if (ep.sessionTitle && ep.session)
      run(this.db, 'INSERT OR REPLACE INTO sessions(session, title) VALUES (?, ?)', [ep.session, ep.sessionTitle]);
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
    // It held from its earliest evidence turn, not from when memory read it (an import of old chats is not news).
    const first = all(
      this.db,
      'SELECT time, project FROM episodes WHERE id IN (SELECT value FROM json_each(?)) ORDER BY time_ms, rowid LIMIT 1',
      [JSON.stringify((e.evidence ?? []).map((id) => resolveId(this.db, 'ep', id)))],
    )[0];
    const validFrom = first ? String(first.time) : e.at;
    const project = e.project !== undefined ? e.project : first ? (first.project as string | null) : (e.by.project ?? null);
    const rowid = rowidForNew(this.db, 'rel', e.id);
    run(
      this.db,
      `INSERT INTO relationships(rowid, id, subject_id, predicate, object_id, prior_kind, prior, alpha, beta,
         authority, valid_from, last_reinforced_ms, project, learned_at, kind, statement)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        rowid,
        e.id,
        subject,
        e.predicate,
        object,
        e.prior,
        this.config.confidence.priors[e.prior],
        alpha,
        beta,
        e.assertedBy ?? e.by.authority,
        validFrom,
        // A person asserting it now is fresh word that it holds; a reading of a turn is as old as the turn.
        Date.parse(e.assertedBy === undefined ? e.at : validFrom),
        project,
        e.at,
        e.kind ?? null,
        e.statement ?? null,
      ],
    );
    markIdUsed(this.db, 'rel', rowid);
    if (e.check) setCheck(this.db, rowid, e.check, e.origin === undefined ? 'statement' : 'peer');
    if (e.kind !== undefined && SUPERSEDING_KINDS.has(e.kind)) supersede(this.db, rowid);
  }

  /**
   * The weight an episode lends a fact is its speaker's; when a language model did the reading,
   * the fact rests on the model's interpretation, which weighs as the agent's whoever spoke.
   */
  private evidenceAuthority(episodeId: string, extractedBy: string | undefined): Authority {
    if (extractedBy !== undefined) return 'agent';
    return (
      (scalar(this.db, 'SELECT authority FROM episodes WHERE id = ?', [resolveId(this.db, 'ep', episodeId)]) as Authority | undefined) ??
      'agent'
    );
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
    const rowid = rowidOf(this.db, 'rel', relId);
    // A fact forgotten here before this evidence arrived from elsewhere: nothing to hold it.
    if (rowid === undefined) return;
    run(this.db, 'INSERT INTO evidence(relationship_rowid, episode_id, polarity, authority, at, note) VALUES (?, ?, ?, ?, ?, ?)', [
      rowid,
      episode === undefined ? null : resolveId(this.db, 'ep', episode),
      polarity,
      authority,
      at,
      note ?? null,
    ]);
    const row = all(this.db, 'SELECT alpha, beta FROM relationships WHERE rowid = ?', [rowid])[0];
    if (!row) return;
    // Decay runs from when the evidence held: a turn's own time, else the moment it was given.
    const heldAt =
      episode === undefined ? undefined : scalar(this.db, 'SELECT time_ms FROM episodes WHERE id = ?', [resolveId(this.db, 'ep', episode)]);
    const reinforcedMs = heldAt === undefined || heldAt === null ? Date.parse(at) : Number(heldAt);
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
        [alpha, beta, authority === 'agent' ? 0 : 1, reinforcedMs, rowid],
      );
    } else {
      run(this.db, 'UPDATE relationships SET alpha = ?, beta = ? WHERE rowid = ?', [alpha, beta, rowid]);
    }
  }

  /** A person's verdict: wrong ends the fact at once; confirm pins it (and reopens it if it had been ended). */
  private correctFact(
    relId: string,
    verdict: 'wrong' | 'confirm',
    authority: Authority,
    at: string,
    reason: string | undefined,
    author: string | null,
  ): void {
    const rowid = rowidOf(this.db, 'rel', relId);
    if (rowid === undefined) return;
    // Verdicts meet out of order across memories: each is kept as evidence, the latest decides.
    const decided = scalar(this.db, 'SELECT MAX(at) FROM evidence WHERE relationship_rowid = ? AND episode_id IS NULL', [rowid]);
    if (typeof decided === 'string' && decided > at) {
      this.recordEvidence(
        relId,
        undefined,
        verdict === 'wrong' ? -1 : 1,
        authority,
        at,
        reason ?? (verdict === 'wrong' ? 'marked wrong' : 'confirmed'),
      );
      return;
    }
    if (verdict === 'wrong') {
      this.recordEvidence(relId, undefined, -1, authority, at, reason ?? 'marked wrong');
      // One more item marked wrong: the lists of those (held-items.ts wrongItems) must see it.
      heldListsStale(this.db);
      run(
        this.db,
        "UPDATE relationships SET valid_to = ?, ended_by = 'wrong', ended_reason = ?, same_as = NULL, wrong_by = ?, pinned = 0 WHERE rowid = ?",
        [at, reason ?? null, author, rowid],
      );
    } else {
      this.recordEvidence(relId, undefined, 1, authority, at, reason ?? 'confirmed');
      // An ended item current again: the lists new statements are compared with must see it.
      if (scalar(this.db, 'SELECT valid_to FROM relationships WHERE rowid = ?', [rowid]) !== null) heldListsStale(this.db);
      run(
        this.db,
        'UPDATE relationships SET valid_to = NULL, ended_by = NULL, ended_reason = NULL, same_as = NULL, wrong_by = NULL, pinned = 1, pinned_by = ? WHERE rowid = ?',
        [author, rowid],
      );
    }
  }

  private dropEntity(entity: number): void {
    run(this.db, 'DELETE FROM mentions WHERE entity_id = ?', [entity]);
    run(this.db, 'DELETE FROM aliases WHERE entity_id = ?', [entity]);
    unindexEntity(this.db, entity);
    run(this.db, 'DELETE FROM entities WHERE id = ?', [entity]);
  }

  /**
   * Moves episodes (of a project, source or session) to another project, and the facts read from
   * them with them. One from the team moves only what its own memory wrote, never this one's.
   */
  private assignProject(e: Extract<MemoryEvent, { type: 'project.assign' }>): void {
    const sel = assignSelection(e, e.origin);
    if (!sel) return;
    const moved = JSON.stringify(all(this.db, `SELECT id FROM episodes e WHERE ${sel.where}`, sel.params).map((r) => String(r.id)));
    run(this.db, `UPDATE episodes AS e SET project = ? WHERE ${sel.where}`, [e.project, ...sel.params]);
    heldListsStale(this.db);
    const own = e.origin === undefined ? '' : 'AND id GLOB ?';
    run(
      this.db,
      `UPDATE relationships SET project = ? WHERE (rowid IN (
         SELECT relationship_rowid FROM evidence WHERE episode_id IN (SELECT value FROM json_each(?))) ${sel.rename ? 'OR project IS ?' : ''}) ${own}`,
      [e.project, moved, ...(sel.rename ? [e.from] : []), ...(e.origin === undefined ? [] : [`rel_${e.origin}_[0-9]*`])],
    );
  }

  private forget({ name, episodes, relationships, keepEntity }: Extract<MemoryEvent, { type: 'entity.forget' }>): void {
    // Entities the erasure leaves with nothing go too; worked out here, so no name of them is journaled.
    const orphans = orphansAfter(this.db, entityIdOf(this.db, name) ?? -1, episodes, relationships);
    for (const id of [...episodes, ...relationships]) run(this.db, 'DELETE FROM anchors WHERE target = ?', [id]);
    for (const [prefix, ids] of [
      ['ep', episodes],
      ['rel', relationships],
    ] as const)
      for (const id of ids) markIdUsed(this.db, prefix, ownNumber(this.db, id) ?? 0);
    for (const cited of relationships) {
      const rowid = rowidOf(this.db, 'rel', cited);
      if (rowid === undefined) continue;
      run(this.db, 'DELETE FROM evidence WHERE relationship_rowid = ?', [rowid]);
      dropOutcomes(this.db, rowid);
      run(this.db, 'DELETE FROM relationships WHERE rowid = ?', [rowid]);
    }
    for (const cited of episodes) {
      const rowid = rowidOf(this.db, 'ep', cited);
      if (rowid === undefined) continue;
      const id = resolveId(this.db, 'ep', cited);
      unindexEpisode(this.db, rowid);
      run(this.db, 'DELETE FROM episodes WHERE rowid = ?', [rowid]);
      run(this.db, 'DELETE FROM mentions WHERE episode_rowid = ?', [rowid]);
      run(this.db, 'DELETE FROM evidence WHERE episode_id = ?', [id]);
    }
    const entity = entityIdOf(this.db, name);
    if (entity !== undefined && !keepEntity) this.dropEntity(entity);
    for (const orphan of orphans) {
      const id = entityIdOf(this.db, orphan);
      if (id !== undefined && id !== entity && isBare(this.db, id)) this.dropEntity(id);
    }
    // A title may quote what was erased: it goes with the session's last episode.
    run(this.db, 'DELETE FROM sessions WHERE session NOT IN (SELECT session FROM episodes WHERE session IS NOT NULL)');
  }
}

export { assignSelection };
