/**
 * The memory: a journal (source of truth), a graph folded from it (sql.js, snapshotted) and the
 * operations every surface uses. One Memory per folder, owned by the memory service.
 *
 * This class is the room's one entrance; the work is done beside it: journaled-graph.ts (open,
 * replay, commit, snapshot), writes.ts, forget.ts, reads.ts, validate.ts and names.ts.
 */
import { resolveConfig, type ConfigOverride, type MemoryConfig, type PriorKind } from '../model/config.js';
import type { EpisodeInput, Provenance } from '../model/events.js';
import type { EntityView, EpisodeView, FactView } from '../model/views.js';
import { browseHandlers } from '../retrieval/browse.js';
import type { VectorHits } from '../retrieval/fusion.js';
import type { RetrievalConfig } from '../retrieval/recipes.js';
import { forget, forgetPlan, type ForgetPlan } from './forget.js';
import { JournaledGraph, type OpenReport } from './journaled-graph.js';
import * as reads from './reads.js';
import type { EmbeddedKind, MemoryStatus, QueryInput, QueryResult, StartedQuery, TraverseResult } from './reads.js';
import { citeEvidence, correct, ingest, recordExtraction, relate, unalias } from './writes.js';

export type { EmbeddedKind, ForgetPlan, MemoryStatus, OpenReport, QueryInput, QueryResult, StartedQuery, TraverseResult };

export class Memory {
  private constructor(private readonly mem: JournaledGraph) {}

  static async open(folder: string, override: ConfigOverride = {}, log: (msg: string) => void = () => {}): Promise<Memory> {
    return new Memory(await JournaledGraph.open(folder, resolveConfig(override), log));
  }

  get folder(): string {
    return this.mem.folder;
  }

  get config(): MemoryConfig {
    return this.mem.config;
  }

  get openReport(): OpenReport {
    return this.mem.openReport;
  }

  // ---- writing ----------------------------------------------------------------------------

  /** Stores one note or observation. The authority comes from the caller's surface. */
  remember(input: EpisodeInput, by: Provenance): { id: string; duplicate: boolean } {
    return ingest(this.mem, [input], by).results[0]!;
  }

  /** Stores episodes; a turn already stored (same content hash) is skipped, so re-importing is idempotent. */
  ingest(inputs: EpisodeInput[], by: Provenance): { added: number; skipped: number; results: { id: string; duplicate: boolean }[] } {
    return ingest(this.mem, inputs, by);
  }

  /** Asserts a fact (subject, predicate, object); only a person may. */
  relate(
    input: { subject: string; predicate: string; object: string; evidence?: string[]; prior?: PriorKind },
    by: Provenance,
  ): { id: string; duplicate: boolean } {
    return relate(this.mem, input, by);
  }

  /** Facts a language model read from one stored episode, weighed as the agent's. */
  recordExtraction(
    input: { episode: string; facts: { subject: string; predicate: string; object: string }[]; extractor: string },
    by: Provenance,
  ): { ids: string[] } {
    return recordExtraction(this.mem, input, by);
  }

  /** Cites an episode as corroborating (1) or contradicting (-1) evidence of a fact. */
  citeEvidence(input: { id: string; episode: string; polarity: 1 | -1 }, by: Provenance): FactView {
    return citeEvidence(this.mem, input, by);
  }

  /** A person's correction of a name: the alias is removed from the entity and never learned for it again. */
  unalias(input: { entity: string; alias: string }, by: Provenance): EntityView {
    return unalias(this.mem, input, by);
  }

  /** A person's correction: only human authority may call this. */
  correct(input: { id: string; verdict: 'wrong' | 'confirm'; reason?: string }, by: Provenance): FactView {
    return correct(this.mem, input, by);
  }

  /** Step one of forgetting: what would go. Nothing changes. */
  forgetPlan(name: string): ForgetPlan {
    return forgetPlan(this.mem, name);
  }

  /** Step two: erases the entity and what rests on it alone, from the graph and the journal. */
  forget(name: string, by: Provenance): ForgetPlan {
    return forget(this.mem, name, by);
  }

  // ---- reading ----------------------------------------------------------------------------

  /** `recipe`: how to retrieve (recipes.ts); by default the named recipe of `input.mode`. */
  query(input: QueryInput & { vectorHits?: VectorHits }, recipe?: RetrievalConfig): QueryResult {
    return reads.startQuery(this.mem, input, recipe).finish(input.vectorHits);
  }

  /** A query in two steps: keyword and graph now, the rest when the vector hits come. Bad input throws here. */
  startQuery(input: QueryInput, recipe?: RetrievalConfig): StartedQuery {
    return reads.startQuery(this.mem, input, recipe);
  }

  embeddingIds(kind: EmbeddedKind, after = 0): number[] {
    return reads.embeddingIds(this.mem, kind, after);
  }

  embeddingTexts(kind: EmbeddedKind, ids: number[]): { id: number; text: string }[] {
    return reads.embeddingTexts(this.mem, kind, ids);
  }

  search(input: { query: string; limit?: number }): EntityView[] {
    return reads.search(this.mem, input);
  }

  episodes(input: { query?: string; since?: string; until?: string; session?: string; source?: string; limit?: number }): EpisodeView[] {
    return reads.episodes(this.mem, input);
  }

  traverse(input: { entity: string; depth?: number; min_confidence?: number; history?: boolean }): TraverseResult {
    return reads.traverse(this.mem, input);
  }

  overview(input: { limit?: number } = {}): { entities: EntityView[]; sessions: { session: string; episodes: number; last: string }[] } {
    return reads.overview(this.mem, input);
  }

  /** Page-by-page lists for tree views (retrieval/browse.ts). */
  browseHandlers(): ReturnType<typeof browseHandlers> {
    return browseHandlers(this.mem.graph);
  }

  fact(id: string): FactView {
    return reads.fact(this.mem, id);
  }

  status(): MemoryStatus {
    return reads.status(this.mem);
  }

  /** The whole memory as plain data. Without history, ended facts are left out. */
  export(input: { history?: boolean } = {}): { entities: EntityView[]; facts: FactView[]; episodes: EpisodeView[] } {
    return reads.exportAll(this.mem, input);
  }

  // ---- persistence ------------------------------------------------------------------------

  /** Position of the last event: grows with every write. */
  get seq(): number {
    return this.mem.seq;
  }

  get pendingSnapshotEvents(): number {
    return this.mem.pendingSnapshotEvents;
  }

  /** Something worth a snapshot: new events, or index work that would be lost on restart. */
  get snapshotDue(): boolean {
    return this.mem.snapshotDue;
  }

  /** Merges the keyword indexes for up to `budgetMs`; true when fully merged. Call when idle. */
  compactIndex(budgetMs: number): boolean {
    return this.mem.compactIndex(budgetMs);
  }

  /** Writes the snapshot atomically, recording the journal position it covers. Blocks; call when idle. */
  snapshot(): void {
    this.mem.snapshot();
  }

  close(opts: { snapshot?: boolean } = {}): void {
    this.mem.close(opts);
  }
}
