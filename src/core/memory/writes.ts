/**
 * The operations that add to the memory: episodes (with the offline extractor's reading), facts
 * asserted by a person or read by a language model, evidence and corrections. Each checks its
 * input, then commits journal events; the store turns events into rows.
 */
import type { Authority, PriorKind } from '../model/config.js';
import { invalid, notFound } from '../model/errors.js';
import type { EpisodeInput, EpisodeRecord, EventBody, Provenance } from '../model/events.js';
import type { EntityView, FactView } from '../model/views.js';
import { extract } from '../ingest/extract.js';
import { readKnowledge } from '../ingest/knowledge-read.js';
import { learnAliases } from '../ingest/aliases.js';
import { all } from '../store/sqlite.js';
import type { Graph } from '../store/graph.js';
import { entityKey } from '../store/ids.js';
import { redactSecrets } from '../ingest/redact.js';
import type { KnowledgeKind } from '../model/knowledge.js';
import { episodeAnchorEvents, factAnchorEvents, reanchorEvents } from './anchors.js';
import type { JournaledGraph } from './journaled-graph.js';
import { KnowledgeWriter, statementOf, type KnowledgeCandidate } from './knowledge.js';
import { episodeRecord, legacyEpisodeHash, projectOf, requireFact, requireHuman, validName } from './validate.js';

/** A turn longer than this is a document: its opening says what it is about, and the extractor's cost grows with length. */
const EXTRACTED_CHARS = 20_000;
/** What an item naming no entity is about in the global memory (in a project: the project). */
const GLOBAL_SUBJECT = 'global';
/** Facts a language model may record from one episode in one call. */
const MAX_EXTRACTED_FACTS = 100;

type Triple = { subject: string; predicate: string; object: string };
/** A knowledge item a language model read from a turn. */
export type ExtractedItem = { kind: KnowledgeKind; statement: string; subject: string };

/** Stores episodes; a turn already stored (same content hash) is skipped, so re-importing is idempotent. */
export function ingest(
  mem: JournaledGraph,
  inputs: EpisodeInput[],
  by: Provenance,
  workspace?: string,
  // A note stored with its kind (remember.ts) is its own item: the offline reader does not read another from it.
  readItems = true,
): { added: number; skipped: number; results: { id: string; duplicate: boolean }[] } {
  if (!Array.isArray(inputs) || inputs.length === 0) throw invalid('Nothing to store: give at least one episode.');
  const records: EpisodeRecord[] = [];
  const results: { id: string; duplicate: boolean }[] = [];
  const seen = new Map<string, string>();
  for (const input of inputs) {
    const record = episodeRecord(input, by, mem.graph.nextId('ep', records.length), mem.config.maxTextChars);
    // A keyed turn may have been stored before keys existed, under the hash of where it was read.
    const legacy = input.key === undefined ? undefined : legacyEpisodeHash(record);
    const existing =
      seen.get(record.hash) ?? mem.graph.episodeIdByHash(record.hash) ?? (legacy ? mem.graph.episodeIdByHash(legacy) : undefined);
    if (existing) {
      results.push({ id: existing, duplicate: true });
      continue;
    }
    seen.set(record.hash, record.id);
    records.push(record);
    results.push({ id: record.id, duplicate: false });
  }
  // Learned, not said: the agent's authority whoever sent the turns (ingest/aliases.ts). Stored
  // first, so "Thanks Mel!" mentions the speaker it names rather than a new entity "Mel".
  const aliases = aliasEvents(mem, records);
  if (aliases.length > 0) mem.commit(aliases, { ...by, authority: 'agent' });
  if (records.length > 0)
    mem.commit(
      [
        { type: 'episodes.add', episodes: records },
        ...extractionEvents(mem, records, readItems),
        ...episodeAnchorEvents(records, workspace),
      ],
      by,
    );
  return { added: records.length, skipped: inputs.length - records.length, results };
}

/**
 * The offline extractor's reading of new episodes: entity types for names it recognises, and
 * facts at the `inferred` prior whose evidence is the episode (so its speaker's authority sets
 * the weight). Mentions are added to the records themselves.
 */
function extractionEvents(mem: JournaledGraph, records: EpisodeRecord[], readItems: boolean): EventBody[] {
  if (!mem.config.extract) return [];
  const events: EventBody[] = [];
  const typed = new Set<string>();
  const facts = new FactReadings(mem.graph);
  const items: KnowledgeCandidate[] = [];
  for (const record of records) {
    const text = record.text.slice(0, EXTRACTED_CHARS);
    const found = extract({ text, speaker: record.speaker, role: record.role });
    if (found.entities.length) record.entities = [...new Set([...(record.entities ?? []), ...found.entities.map((e) => e.name)])];
    for (const e of found.entities) {
      const key = entityKey(e.name);
      if (typed.has(key)) continue;
      const stored = mem.graph.entityType(e.name);
      if (stored !== undefined && stored !== 'thing') continue;
      typed.add(key);
      events.push({ type: 'entity.upsert', name: e.name, entityType: e.type });
    }
    for (const r of found.relationships) {
      const { event } = facts.read(r, record.id, { assertedBy: record.authority, project: record.project ?? null });
      if (event) events.push(event);
    }
    // Knowledge at the speaker's authority: an agent's turn gives only lessons and facts (knowledge-read.ts).
    const project = record.project ?? null;
    if (readItems)
      for (const k of readKnowledge({ text, speaker: record.speaker, role: record.role }))
        items.push({ ...k, subject: k.subject ?? project ?? GLOBAL_SUBJECT, evidence: record.id, assertedBy: record.authority, project });
  }
  const writer = new KnowledgeWriter(mem, facts.used);
  for (const item of items) {
    const { event } = writer.read(item);
    if (event) events.push(event);
  }
  return events;
}

/** Aliases the new turns teach (greetings by a nickname), not yet known as any entity's name or alias. */
function aliasEvents(mem: JournaledGraph, records: EpisodeRecord[]): EventBody[] {
  if (!mem.config.extract || records.length === 0) return [];
  const speakers = new Map<string, string[]>();
  // The session's speakers, stored before or in these turns (which are not stored yet).
  const speakersOf = (session: string): string[] => {
    let found = speakers.get(session);
    if (!found) {
      const rows = all(mem.db, 'SELECT DISTINCT speaker FROM episodes WHERE session = ? AND speaker IS NOT NULL LIMIT 3', [session]);
      const names = new Set(rows.map((r) => String(r.speaker)));
      for (const r of records) if (r.session === session && r.speaker) names.add(r.speaker);
      speakers.set(session, (found = [...names].slice(0, 3)));
    }
    return found;
  };
  const events: EventBody[] = [];
  for (const [speaker, names] of learnAliases(records, speakersOf)) {
    const fresh = [...names].filter(
      (n) =>
        all(
          mem.db,
          `SELECT 1 FROM aliases WHERE key = ?1 UNION ALL SELECT 1 FROM entities WHERE key = ?1
         UNION ALL SELECT 1 FROM alias_rejections r JOIN entities e ON e.id = r.entity_id WHERE r.key = ?1 AND e.key = ?2`,
          [entityKey(n), entityKey(speaker)],
        ).length === 0,
    );
    if (fresh.length > 0) events.push({ type: 'entity.upsert', name: speaker, aliases: fresh });
  }
  return events;
}

/** Removes an alias from an entity, a person's correction (a learned alias can be wrong). */
export function unalias(mem: JournaledGraph, input: { entity: string; alias: string }, by: Provenance): EntityView {
  requireHuman(by, 'remove an alias');
  const row = all(mem.db, 'SELECT e.id, e.name FROM aliases a JOIN entities e ON e.id = a.entity_id WHERE a.key = ?', [
    entityKey(input.alias),
  ])[0];
  const named = row && entityKey(String(row.name)) === entityKey(input.entity) ? String(row.name) : undefined;
  const view = named === undefined ? undefined : mem.graph.entityView(Number(row!.id));
  if (named === undefined || view === undefined) {
    throw notFound(
      `"${input.alias}" is not an alias of "${input.entity}".`,
      "Run `recall search NAME` to see an entity's aliases (aka ...).",
    );
  }
  mem.commit([{ type: 'entity.unalias', name: named, alias: input.alias }], by);
  return { ...view, aliases: view.aliases.filter((a) => entityKey(a) !== entityKey(input.alias)) };
}

/**
 * Asserts a fact (subject, predicate, object) directly: a person's act, like a correction. A fact
 * already current with the same triple is not asserted twice: it is returned, and the evidence
 * it does not yet cite is added to it, so saying (or retrying) the same thing is harmless.
 */
export function relate(
  mem: JournaledGraph,
  input: { subject: string; predicate: string; object: string; evidence?: string[]; prior?: PriorKind; project?: string | null },
  by: Provenance,
  workspace?: string,
): { id: string; duplicate: boolean } {
  requireHuman(by, 'assert a fact directly');
  const project = projectOf(input.project, by);
  const subject = validName(input.subject, 'subject');
  const object = validName(input.object, 'object');
  const predicate = validName(input.predicate, 'predicate').toLowerCase();
  const prior = input.prior ?? 'explicit';
  if (!(prior in mem.config.confidence.priors)) {
    throw invalid(`Unknown prior "${prior}".`, 'Use one of: explicit, inferred, speculative.');
  }
  for (const ep of input.evidence ?? []) {
    if (!mem.graph.episodeExists(ep))
      throw notFound(`No episode "${ep}".`, 'Use an id printed by `recall remember` or shown in query results.');
  }
  const held = mem.graph.findCurrentRelationship(subject, predicate, object);
  if (held !== undefined) {
    const cited = new Set(mem.graph.factById(held)?.evidence ?? []);
    const fresh = [...new Set(input.evidence ?? [])].filter((ep) => !cited.has(ep));
    mem.commit(
      fresh.map((episode) => ({ type: 'relationship.evidence', id: held, episode, polarity: 1 }) as const),
      by,
    );
    return { id: held, duplicate: true };
  }
  const id = mem.graph.nextId('rel');
  mem.commit(
    [
      { type: 'relationship.assert', id, subject, predicate, object, prior, evidence: input.evidence, project },
      ...factAnchorEvents(mem.db, { id, subject, object, evidence: input.evidence }, workspace),
    ],
    by,
  );
  return { id, duplicate: false };
}

/**
 * Facts a language model read from one stored episode. Any surface may record them, but they
 * are the model's reading: asserted at the `inferred` prior with `agent` authority and weighed
 * as the agent's evidence whoever spoke the turn, so they never pass for a person's word.
 */
export function recordExtraction(
  mem: JournaledGraph,
  input: { episode: string; facts: Triple[]; items?: ExtractedItem[]; restated?: string[]; extractor: string },
  by: Provenance,
): { ids: string[] } {
  if (input === null || typeof input !== 'object') throw invalid('Give { episode, facts, extractor }.');
  if (typeof input.episode !== 'string' || !mem.graph.episodeExists(input.episode)) {
    throw notFound(`No episode "${String(input.episode)}".`, 'Extract from an episode the memory holds (an id like ep_12).');
  }
  // A fact read from a turn is of the turn's project, whoever recorded the reading.
  const project = mem.graph.episodeProject(input.episode);
  const extractor = validName(input.extractor, 'extractor');
  if (!Array.isArray(input.facts)) throw invalid('"facts" must be a list of { subject, predicate, object }.');
  const items = input.items ?? [];
  if (!Array.isArray(items)) throw invalid('"items" must be a list of { kind, statement, subject }.');
  const restated = input.restated ?? [];
  if (!Array.isArray(restated) || restated.some((id) => typeof id !== 'string'))
    throw invalid('"restated" must be a list of the ids of items held (rel_…).');
  const count = input.facts.length + items.length + restated.length;
  if (count > MAX_EXTRACTED_FACTS) throw invalid(`${count} facts and items from one episode; at most ${MAX_EXTRACTED_FACTS}.`);
  const facts = new FactReadings(mem.graph);
  const events: EventBody[] = [];
  const ids: string[] = [];
  for (const f of input.facts) {
    if (f === null || typeof f !== 'object') throw invalid('Each fact is { subject, predicate, object }.');
    const subject = validName(f.subject, 'subject');
    const object = validName(f.object, 'object');
    const predicate = validName(f.predicate, 'predicate').toLowerCase();
    const { id, event } = facts.read({ subject, predicate, object }, input.episode, {
      assertedBy: 'agent',
      extractedBy: extractor,
      project,
    });
    ids.push(id);
    if (event) events.push(event);
  }
  // Knowledge items the model read: the same one-item rule as every source, weighed as the model's whoever spoke.
  const writer = new KnowledgeWriter(mem, facts.used);
  for (const item of items) {
    if (item === null || typeof item !== 'object') throw invalid('Each item is { kind, statement, subject }.');
    const { id, event, rejected } = writer.read({
      kind: item.kind,
      statement: redactSecrets(statementOf(item.statement)).text,
      subject: validName(item.subject, 'subject'),
      evidence: input.episode,
      assertedBy: 'agent',
      extractedBy: extractor,
      project,
    });
    if (rejected) continue;
    if (!ids.includes(id)) ids.push(id);
    if (event) events.push(event);
  }
  for (const held of restated) {
    const said = writer.restated(held, input.episode, extractor, project);
    if (said && !ids.includes(said.id)) ids.push(said.id);
    if (said?.event) events.push(said.event);
  }
  mem.commit(events, by);
  return { ids };
}

/** Cites an episode as corroborating (polarity 1) or contradicting (-1) evidence of a fact. */
export function citeEvidence(mem: JournaledGraph, input: { id: string; episode: string; polarity: 1 | -1 }, by: Provenance): FactView {
  requireFact(mem.graph, input.id);
  if (!mem.graph.episodeExists(input.episode)) throw notFound(`No episode "${input.episode}".`);
  mem.commit([{ type: 'relationship.evidence', id: input.id, episode: input.episode, polarity: input.polarity }], by);
  return mem.graph.factById(input.id)!;
}

/** A person's correction: only human authority may call this. */
export function correct(
  mem: JournaledGraph,
  input: { id: string; verdict: 'wrong' | 'confirm'; reason?: string },
  by: Provenance,
  workspace?: string,
): FactView {
  requireHuman(by, 'correct a fact');
  if (input.verdict !== 'wrong' && input.verdict !== 'confirm') throw invalid('A correction is either "wrong" or "confirm".');
  requireFact(mem.graph, input.id);
  // Confirming re-takes the fact's code anchors at the code as it is now: the person vouches for it.
  const anchors = input.verdict === 'confirm' ? reanchorEvents(mem.db, input.id, workspace) : [];
  mem.commit([...anchors, { type: 'relationship.correct', id: input.id, verdict: input.verdict, reason: input.reason }], by);
  return mem.graph.factById(input.id)!;
}

/**
 * Facts read from episodes within one write. A fact the graph holds (current, same subject,
 * predicate and object, names compared case-insensitively) or one asserted earlier in this write
 * is reused: the episode becomes its evidence, once. Any other fact is asserted at the `inferred`
 * prior with the episode as its evidence.
 */
class FactReadings {
  private readonly ids = new Map<string, string>();
  private readonly cited = new Set<string>();
  private asserted = 0;

  constructor(private readonly graph: Graph) {}

  /** How many new relationship ids these readings handed out (for the next writer in the same commit). */
  get used(): number {
    return this.asserted;
  }

  /** The relationship the fact is recorded under, and the event recording it (none when this episode already counts). */
  read(
    fact: Triple,
    episode: string,
    how: { assertedBy: Authority; extractedBy?: string; project: string | null },
  ): { id: string; event?: EventBody } {
    const key = JSON.stringify([entityKey(fact.subject), fact.predicate, entityKey(fact.object)]);
    const citation = JSON.stringify([key, episode]);
    const held = this.ids.get(key) ?? this.graph.findCurrentRelationship(fact.subject, fact.predicate, fact.object);
    if (held !== undefined) {
      this.ids.set(key, held);
      if (this.cited.has(citation)) return { id: held };
      this.cited.add(citation);
      return { id: held, event: { type: 'relationship.evidence', id: held, episode, polarity: 1, extractedBy: how.extractedBy } };
    }
    const id = this.graph.nextId('rel', this.asserted++);
    this.ids.set(key, id);
    this.cited.add(citation);
    const { subject, predicate, object } = fact;
    const event: EventBody = {
      type: 'relationship.assert',
      id,
      subject,
      predicate,
      object,
      prior: 'inferred',
      evidence: [episode],
      assertedBy: how.assertedBy,
      extractedBy: how.extractedBy,
      project: how.project,
    };
    return { id, event };
  }
}

/** Which memories a person moves, and where to (null: the global memory). */
export interface ProjectAssignment {
  project: string | null;
  /** Every memory of this project (null: the global ones): a rename. */
  from?: string | null;
  source?: string;
  session?: string;
}

/** A person's act, journaled so it replays: moves episodes (and the facts read from them) to a project. */
export function assignProject(mem: JournaledGraph, input: ProjectAssignment, by: Provenance): { episodes: number; relationships: number } {
  requireHuman(by, 'move memories between projects');
  if (input === null || typeof input !== 'object') throw invalid('Give { project, from | source | session }.');
  const project = projectOf(input.project, { ...by, project: null });
  const from = input.from === undefined ? undefined : projectOf(input.from, { ...by, project: null });
  const str = (v: unknown, what: string): string | undefined => {
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !v.trim()) throw invalid(`The ${what} is empty.`);
    return v;
  };
  const source = str(input.source, 'source');
  const session = str(input.session, 'session');
  if (from === undefined && source === undefined && session === undefined)
    throw invalid('Say which memories to move: those of a project (from), a source or a session.');
  const matched = mem.graph.assignable({ from, source, session });
  if (matched.episodes === 0 && matched.relationships === 0)
    throw notFound('No memories match; nothing moved.', 'See the projects with `recall project list`.');
  mem.commit([{ type: 'project.assign', project, from, source, session }], by);
  return matched;
}
