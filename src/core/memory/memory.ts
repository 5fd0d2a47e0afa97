/**
 * The memory: a journal (source of truth), a graph folded from it (sql.js, snapshotted) and the
 * operations every surface uses. One Memory per folder, owned by the memory service.
 *
 * This class is the room's one entrance; the work is done beside it: journaled-graph.ts (open,
 * replay, commit, snapshot), writes.ts, forget.ts, reads.ts, validate.ts and names.ts.
 */
import { resolveConfig, type ConfigOverride, type MemoryConfig, type PriorKind } from '../model/config.js';
import type { EpisodeInput, MemoryEvent, Provenance } from '../model/events.js';
import { rowidOf } from '../store/ids.js';
import type { Correction, EntityView, EpisodeView, FactView } from '../model/views.js';
import { invalid } from '../model/errors.js';
import { browseHandlers } from './browse.js';
import { brief, type Brief, type BriefInput } from './brief.js';
import type { VectorHits } from '../retrieval/types.js';
import type { RetrievalRecipe } from '../retrieval/recipe.js';
import { withCode } from './anchors.js';
import { exportPage, type ExportPage } from './export-page.js';
import { forget, forgetPlan, type ForgetPlan } from './forget.js';
import { JournaledGraph, type OpenReport } from './journaled-graph.js';
import * as reads from './reads.js';
import { listHeld, type HeldForgetSummary } from './held-forgets.js';
import { applyRemote, restoreForget, type ErasureScope, type RemoteApplied } from './remote.js';
import type { EmbeddedKind, MemoryStatus, QueryInput, QueryResult, ScopedRead, StartedQuery, TraverseResult } from './reads.js';
import { assignProject, citeEvidence, correct, ingest, recordExtraction, relate, unalias, type ProjectAssignment } from './writes.js';
import { addRule, checkedRulesByProject, hookCheck, rulesOf, setCheck, type HookAnswer, type HookCall } from './rules.js';
import { readMemoryFile, type MemoryFileInput, type MemoryFileResult } from './memory-files.js';
import { remember, type RememberInput, type RememberResult } from './remember.js';
import { sameAs } from './same-as.js';

export type {
  Brief,
  BriefInput,
  EmbeddedKind,
  ErasureScope,
  ExportPage,
  ForgetPlan,
  HeldForgetSummary,
  HookAnswer,
  HookCall,
  MemoryFileInput,
  MemoryFileResult,
  MemoryStatus,
  OpenReport,
  ProjectAssignment,
  RememberInput,
  RememberResult,
  QueryInput,
  QueryResult,
  RemoteApplied,
  ScopedRead,
  StartedQuery,
  TraverseResult,
};

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

  /** Stores one note or observation, and with a kind a knowledge item (remember.ts). The authority comes from the caller's surface. */
  remember(input: RememberInput, by: Provenance, workspace?: string): RememberResult {
    return remember(this.mem, input, by, workspace);
  }

  /** Stores episodes; a turn already stored (same content hash) is skipped, so re-importing is idempotent. */
  ingest(
    inputs: EpisodeInput[],
    by: Provenance,
    workspace?: string,
  ): { added: number; skipped: number; results: { id: string; duplicate: boolean }[] } {
    return ingest(this.mem, inputs, by, workspace);
  }

  /** A memory file's knowledge items (AGENTS.md, CLAUDE.md, Cursor rules…), brought up to date with its text; a person's act. */
  readMemoryFile(input: MemoryFileInput, by: Provenance, workspace?: string): MemoryFileResult {
    return readMemoryFile(this.mem, input, by, workspace);
  }

  /** Asserts a fact (subject, predicate, object); only a person may. */
  relate(
    input: { subject: string; predicate: string; object: string; evidence?: string[]; prior?: PriorKind; project?: string | null },
    by: Provenance,
    workspace?: string,
  ): { id: string; duplicate: boolean } {
    return relate(this.mem, input, by, workspace);
  }

  /** A person moves memories to another project: a project renamed, or a source's or session's turns (and their facts). */
  assignProject(input: ProjectAssignment, by: Provenance): { episodes: number; relationships: number } {
    return assignProject(this.mem, input, by);
  }

  /** Facts and knowledge items a language model read from one stored episode, weighed as the agent's. */
  recordExtraction(input: Parameters<typeof recordExtraction>[1], by: Provenance): { ids: string[] } {
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

  /** A person's correction: only human authority may call this. `same` returns the item kept. */
  correct(input: Correction, by: Provenance, workspace?: string): FactView {
    if ((input.verdict === 'same') !== (input.as !== undefined))
      throw invalid('"as" names the item kept, and goes with the verdict "same" alone.', 'recall correct rel_12 --same-as rel_4');
    const done =
      input.verdict === 'same'
        ? sameAs(this.mem, { id: input.id, as: input.as! }, by)
        : correct(this.mem, { ...input, verdict: input.verdict }, by, workspace);
    return withCode(this.mem.db, [done], workspace)[0]!;
  }

  /** Step one of forgetting: what would go. Nothing changes. */
  forgetPlan(name: string): ForgetPlan {
    return forgetPlan(this.mem, name);
  }

  /** Step two: erases the entity and what rests on it alone, from the graph and the journal. */
  forget(name: string, by: Provenance): ForgetPlan {
    return forget(this.mem, name, by);
  }

  /** A person states a rule; its check is read from its words when they state one exactly (rules.ts). */
  addRule(input: { statement: string; project?: string | null }, by: Provenance): FactView {
    return addRule(this.mem, input, by);
  }

  /** A person sets (or, with null, removes) the check on a rule (rules.ts). */
  setCheck(input: { id: string; check: unknown }, by: Provenance): FactView {
    return setCheck(this.mem, input, by);
  }

  /** Allow, ask or deny a tool call from the rules with checks, recorded on each rule it concerned (rules.ts). */
  hookCheck(call: HookCall, by: Provenance, workspace?: string): HookAnswer {
    return hookCheck(this.mem, call, by, workspace);
  }

  // ---- reading ----------------------------------------------------------------------------

  /** A project's and the global memory's current rules (with `checked`, only those with checks). */
  rules(project: string | null, opts: { checked?: boolean; limit?: number } = {}): FactView[] {
    return rulesOf(this.mem, project, opts);
  }

  /** Every project's rules with checks and the global ones, for hooks that run without the service (rules.ts). */
  checkedRulesByProject(): ReturnType<typeof checkedRulesByProject> {
    return checkedRulesByProject(this.mem);
  }

  /** `recipe`: how to retrieve (recipe.ts); by default the named recipe of `input.mode`. */
  query(input: QueryInput & { vectorHits?: VectorHits }, recipe?: RetrievalRecipe): QueryResult {
    return reads.startQuery(this.mem, input, recipe).finish(input.vectorHits);
  }

  /** A query in two steps: keyword and graph now, the rest when the vector hits come. Bad input throws here. */
  startQuery(input: QueryInput, recipe?: RetrievalRecipe): StartedQuery {
    return reads.startQuery(this.mem, input, recipe);
  }

  embeddingIds(kind: EmbeddedKind, after = 0): number[] {
    return reads.embeddingIds(this.mem, kind, after);
  }

  embeddingTexts(kind: EmbeddedKind, ids: number[]): { id: number; text: string }[] {
    return reads.embeddingTexts(this.mem, kind, ids);
  }

  search(input: ScopedRead & { query: string; limit?: number }): EntityView[] {
    return reads.search(this.mem, input);
  }

  episodes(
    input: ScopedRead & { query?: string; since?: string; until?: string; session?: string; source?: string; limit?: number },
  ): EpisodeView[] {
    return reads.episodes(this.mem, input);
  }

  traverse(
    input: ScopedRead & { entity: string; depth?: number; min_confidence?: number; history?: boolean },
    workspace?: string,
  ): TraverseResult {
    const t = reads.traverse(this.mem, input);
    return { ...t, facts: withCode(this.mem.db, t.facts, workspace) };
  }

  overview(input: ScopedRead & { limit?: number } = {}): {
    entities: EntityView[];
    sessions: { session: string; episodes: number; last: string }[];
  } {
    return reads.overview(this.mem, input);
  }

  /** What an agent should know before a task: confirmed facts, decisions, preferences (brief.ts). */
  brief(input: BriefInput = {}): Brief {
    return brief(this.mem, input);
  }

  /** Page-by-page lists for tree views (browse.ts). */
  browseHandlers(): ReturnType<typeof browseHandlers> {
    return browseHandlers(this.mem);
  }

  /** Every project the memory holds (null: global), with its episodes and current facts. */
  projects(): { project: string | null; episodes: number; relationships: number; last: string | null }[] {
    return this.mem.graph.projects();
  }

  /** The project a fact belongs to (null: global), without reading the code it names; undefined when it is gone. */
  factProject(id: string): string | null | undefined {
    const f = this.mem.graph.factById(id);
    return f === undefined ? undefined : (f.project ?? null);
  }

  /** Facts as read: with whether the code they name is as it was (`code`). */
  withCode<F extends FactView>(facts: F[], workspace?: string): F[] {
    return withCode(this.mem.db, facts, workspace);
  }

  fact(id: string, workspace?: string): FactView {
    return withCode(this.mem.db, [reads.fact(this.mem, id)], workspace)[0]!;
  }

  status(): MemoryStatus {
    return reads.status(this.mem);
  }

  /** The whole memory as plain data. Without history, ended facts are left out. */
  export(input: { history?: boolean } = {}): { entities: EntityView[]; facts: FactView[]; episodes: EpisodeView[] } {
    return reads.exportAll(this.mem, input);
  }

  // ---- sharing (team sync) ----------------------------------------------------------------

  /** This memory's origin id once it is shared (ids it mints then carry it), else undefined. */
  get origin(): string | undefined {
    return this.mem.origin;
  }

  /** Events another memory wrote, applied in order; ones already applied are skipped. A forget stays within `scope`. */
  applyRemote(events: MemoryEvent[], scope: ErasureScope): RemoteApplied {
    return applyRemote(this.mem, events, scope);
  }

  /** What forgets from the team erased here, held aside until restored or expired. */
  heldForgets(): HeldForgetSummary[] {
    return listHeld(this.mem.folder);
  }

  /** The person undoes a forget from the team (an id from heldForgets). */
  restoreForget(id: string, by: Provenance): { episodes: number; facts: number } {
    return restoreForget(this.mem, id, by);
  }

  /** How far another memory's events are applied here (its seq). */
  originSeq(origin: string): number {
    return this.mem.graph.originSeq(origin);
  }

  /** Journal events from a byte position, the position after them, and the journal's generation (a rewrite starts a new one). */
  journalFrom(position: number): { events: MemoryEvent[]; position: number; generation: number } {
    const j = this.mem.journal;
    const from = position > j.position ? 0 : position;
    return { events: j.readFrom(from).events, position: j.position, generation: j.generation };
  }

  get journalGeneration(): number {
    return this.mem.journal.generation;
  }

  /** Local rowids of episode or relationship ids (any spelling); unknown ids are left out. */
  rowidsOf(prefix: 'ep' | 'rel', ids: string[]): number[] {
    return ids.flatMap((id) => rowidOf(this.mem.db, prefix, id) ?? []);
  }

  /** The same, one bounded page at a time: pass back each page's cursor until a page has none. */
  exportPage(input: { history?: boolean; cursor?: string; limit?: number; project?: string | null } = {}): ExportPage {
    return exportPage(this.mem, input);
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

  /** So much journal since the last snapshot that one is taken even without a pause in requests. */
  get snapshotOverdue(): boolean {
    return this.mem.snapshotOverdue;
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
