/**
 * The memory service's wire protocol: JSON-RPC 2.0, one message a line, over a local socket.
 * `Methods` is the single list of what a client may ask and what it gets back: the client is typed
 * by it, the server's handlers are typed by it, and params.ts checks each request against it.
 */
import type { MemberView } from '../../sync/members.js';
import type { QuarantineEntry } from '../../sync/quarantine.js';
import type { SyncStatus } from '../../sync/sync-loop.js';
import type { Authority, PriorKind } from '../../core/model/config.js';
import type { KnowledgeKind } from '../../core/model/knowledge.js';
import { LIMITS } from '../../core/model/limits.js';
import type { BrowsePage, EntityTypeCount, PageRequest, SessionSummary, ViewScope } from '../../core/memory/browse.js';
import type { EpisodeInput } from '../../core/model/events.js';
import type { ItemsRequest, ItemView } from '../../core/memory/items.js';
import type { Neighbourhood } from '../../core/memory/neighbourhood.js';
import type { Correction, EntityView, EpisodeView, FactView } from '../../core/model/views.js';
import type {
  Brief,
  ExportPage,
  ForgetPlan,
  HeldForgetSummary,
  HookAnswer,
  HookCall,
  MemoryFileInput,
  MemoryFileResult,
  MemoryStatus,
  ProjectAssignment,
  RememberInput,
  RememberResult,
  QueryResult,
  ScopedRead,
  TraverseResult,
} from '../../core/memory/memory.js';

/** Which retrieval channels a query uses: keyword (BM25) + graph, vectors, or both fused. */
export type { RetrievalMode } from '../../core/retrieval/recipe.js';
import type { RetrievalMode } from '../../core/retrieval/recipe.js';

/** Every mode once: a mode added to RetrievalMode does not compile until it is named here. */
const MODE_NAMES: { [M in RetrievalMode]: M } = { keyword: 'keyword', vector: 'vector', hybrid: 'hybrid' };
export const RETRIEVAL_MODES: readonly RetrievalMode[] = Object.values(MODE_NAMES);

/**
 * Which program is on the other end of a connection. Authority follows from it, never from
 * arguments: `hook` is an agent host's hook process (cli/hook.ts), started by the host, not typed by a person.
 */
export type Surface = 'cli' | 'extension' | 'mcp' | 'lm' | 'hook';

/** People act through the CLI and the extension's commands; models through MCP and LM tools. */
export function authorityOf(surface: Surface): Authority {
  return surface === 'cli' || surface === 'extension' ? 'human' : 'agent';
}

export const SURFACES: readonly Surface[] = ['cli', 'extension', 'mcp', 'lm', 'hook'];

/** The memory's own counts, and what only the running service knows. */
export interface ServiceStatus extends MemoryStatus {
  service_pid: number;
  /** Resident memory of the service process (its threads, the embedding model's included). */
  rss_mb: number;
  /** The most it has been resident since it started. */
  peak_rss_mb: number;
  /** The embedding model's state: ready, loading, disabled or unavailable, and why. */
  embedder: string;
  /** Vectors held: episodes, entities and facts together, then by kind. */
  vectors: number;
  vectors_by_kind: { episode: number; entity: number; fact: number };
  /** "none" without a model, "exact", or which kinds use the approximate (HNSW) index. */
  vector_search: string;
  embedding_pending: number;
  service_started: string;
  /** What start-up recovered from damaged files, and when (absent when nothing was). */
  recovered?: string;
  /** Unreadable journal lines this service's start-up skipped (what they held is lost). */
  skipped_journal_lines: number;
  clients: number;
  version: string;
  /** Team sync, when config.json has a "sync" section: cursors, backlog, last error. */
  sync?: SyncStatus;
  /** Which ONNX Runtime embeds: "native (...)", "wasm (...; why not native)", or "none" without a model. */
  embedding_backend: string;
  /** Texts embedded a second by the last minute's batches (null when none ran in that minute). */
  embedding_rate: number | null;
  /** Seconds until the pending texts are embedded at that rate (0 when none wait, null when unknown). */
  embedding_eta_s: number | null;
}

/** Every method of the service, with its params and its result. */
export interface Methods {
  // challenge/proof: the service shows it owns the folder (proof.ts) before a client sends anything else.
  hello: {
    /** project: the connection's project key (null: the person's global memory); workspace: its root folder, where facts' code anchors are taken and checked. */
    params: { surface: Surface; client?: string; challenge?: string; project?: string | null; workspace?: string };
    result: { version: string; pid: number; memory: string; proof?: string };
  };
  ping: { params: Record<string, never>; result: { ok: true } };
  remember: { params: RememberInput; result: RememberResult };
  ingest: {
    params: { episodes: EpisodeInput[] };
    result: { added: number; skipped: number; results: { id: string; duplicate: boolean }[] };
  };
  relate: {
    params: { subject: string; predicate: string; object: string; evidence?: string[]; prior?: PriorKind; project?: string | null };
    /** duplicate: the triple was already current; that fact is returned (with any new evidence added). */
    result: { id: string; duplicate: boolean };
  };
  /** A memory file's knowledge items brought up to date with its text (core/memory/memory-files.ts); a person's surface only. */
  'knowledge.file': { params: MemoryFileInput; result: MemoryFileResult };
  /** Facts a language model read from a stored episode: recorded as the model's reading (agent authority). */
  extracted: {
    params: {
      episode: string;
      facts: { subject: string; predicate: string; object: string }[];
      /** Knowledge items (decision, rule, preference, fact, lesson) read from the turn. */
      items?: { kind: KnowledgeKind; statement: string; subject: string }[];
      /** Ids of items already held that the turn says again, in the model's judgement: the turn becomes their evidence. */
      restated?: string[];
      extractor: string;
    };
    result: { ids: string[] };
  };
  /** A person's correction; `same`: the item says what item `as` says (it goes, `as` is returned). */
  correct: { params: Correction; result: FactView };
  /** A person's correction: the alias is not a name of the entity (learned aliases can be wrong). */
  unalias: { params: { entity: string; alias: string }; result: EntityView };
  'forget.plan': { params: { entity: string }; result: ForgetPlan };
  forget: { params: { entity: string }; result: ForgetPlan };
  // Reads see the connection's project and the global memory unless scope is 'all' (or `project` names another).
  query: { params: ScopedRead & { query: string; limit?: number; history?: boolean; mode?: RetrievalMode }; result: QueryResult };
  search: { params: ScopedRead & { query: string; limit?: number }; result: EntityView[] };
  episodes: {
    params: ScopedRead & { query?: string; since?: string; until?: string; session?: string; source?: string; limit?: number };
    result: EpisodeView[];
  };
  traverse: {
    params: ScopedRead & { entity: string; depth?: number; min_confidence?: number; history?: boolean };
    result: TraverseResult;
  };
  fact: { params: { id: string }; result: FactView };
  overview: {
    params: ScopedRead & { limit?: number };
    result: { entities: EntityView[]; sessions: { session: string; episodes: number; last: string }[] };
  };
  status: { params: Record<string, never>; result: ServiceStatus };
  export: { params: { history?: boolean }; result: { entities: EntityView[]; facts: FactView[]; episodes: EpisodeView[] } };
  shutdown: { params: Record<string, never>; result: { ok: true } };

  // Browsing, page by page, for the extension's tree views (core/memory/browse.ts).
  /** Entity types with how many entities each has, most populous first. */
  'browse.types': { params: ViewScope; result: { types: EntityTypeCount[] } };
  /** Entities (of one type, or all), by name. */
  'browse.entities': { params: PageRequest & ViewScope & { type?: string }; result: BrowsePage<'entities', EntityView> };
  /** Every relationship touching an entity, ended ones too: current first, then by predicate. */
  'browse.facts': { params: PageRequest & { entity: string }; result: BrowsePage<'facts', FactView> };
  /** Sessions, most recent first. */
  'browse.sessions': { params: PageRequest & ViewScope; result: BrowsePage<'sessions', SessionSummary> };
  /** The episodes of one session (null: those without one), oldest first. */
  'browse.sessionEpisodes': { params: PageRequest & { session: string | null }; result: BrowsePage<'episodes', EpisodeView> };
  /** Episodes by id, in the order asked; unknown ids are left out. */
  'browse.episodesById': { params: { ids: string[] }; result: EpisodeView[] };
  /** Knowledge items in force of the kinds asked (the project's and the global memory's), optionally about some words (core/memory/items.ts). */
  'browse.items': { params: ItemsRequest; result: BrowsePage<'items', ItemView> };

  /** The projects the memory holds (null: the global memory), and the connection's own. */
  'project.list': {
    params: Record<string, never>;
    result: {
      current: string | null;
      projects: { project: string | null; episodes: number; relationships: number; last: string | null }[];
    };
  };
  /** A person moves memories to another project (null: global): a project renamed, or a source's or session's. */
  'project.assign': { params: ProjectAssignment; result: { episodes: number; relationships: number } };
  /** A person states a rule for the connection's project (or `project`; null: everywhere), its check read from its words. */
  'rule.add': { params: { statement: string; project?: string | null }; result: FactView };
  /** A rule's check set (or, with null, removed) by a person (core/memory/rules.ts). */
  'rule.check': { params: { id: string; check: unknown }; result: FactView };
  /** The connection's project's and the global memory's current rules; `checked`: only those with a check. */
  rules: { params: { project?: string | null; checked?: boolean; limit?: number }; result: FactView[] };
  /** An agent host's pending (pre) or finished (post) tool call: allow, ask or deny, recorded on the rules it concerned. */
  'hook.check': { params: HookCall; result: HookAnswer };
  /** What to know before a task, within a token budget (core/memory/brief.ts). */
  brief: { params: { project?: string | null; budget_tokens?: number }; result: Brief };
  /** An entity's neighbourhood for the graph view: its facts (strongest first) and the entities at their other ends. */
  'graph.neighbourhood': { params: { entity: string; limit?: number; history?: boolean }; result: Neighbourhood };
  /** The export one bounded page at a time (a whole export can pass the message limit): send back `cursor` until absent. */
  /** The whole memory; with `project`, that project's turns and facts only (null: the global memory's). */
  'export.page': { params: { history?: boolean; cursor?: string; limit?: number; project?: string | null }; result: ExportPage };

  // Team sync (an error when it is off): what was refused, who the members are, what forgets from the team erased here.
  /** Rows of the shared log refused here, oldest first. */
  'sync.quarantine': { params: Record<string, never>; result: QuarantineEntry[] };
  /** The team's members as this memory knows them: pinned keys, and keys it does not take without the person. */
  'sync.members': { params: Record<string, never>; result: MemberView[] };
  /** A person trusts the key the server lists for a member's memory (its refused rows are pulled again). */
  'sync.trust': { params: { origin: string }; result: MemberView };
  /** Forgets from the team whose erasure is held aside here, newest first. */
  'sync.forgotten': { params: Record<string, never>; result: HeldForgetSummary[] };
  /** A person undoes a forget from the team: what it erased here comes back. */
  'sync.restore': { params: { id: string }; result: { episodes: number; facts: number } };
}

export type Method = keyof Methods;
export type ParamsOf<M extends Method> = Methods[M]['params'];
export type ResultOf<M extends Method> = Methods[M]['result'];

/**
 * Writes: the service tells every connected client after one lands. A write request may carry
 * `rid` beside `method` (a client-made id, at most 100 characters): the same rid sent again gets
 * the first answer and is not applied twice (recent-writes.ts).
 */
export const WRITE_METHODS: ReadonlySet<Method> = new Set<Method>([
  'remember',
  'ingest',
  'knowledge.file',
  'relate',
  'extracted',
  'correct',
  'forget',
  'project.assign',
  'unalias',
  'sync.restore',
  'rule.add',
  'rule.check',
  'hook.check',
]);

/** Pushed to every client after a write. */
export interface ChangedNotification {
  /** The write's method, or 'sync' when events pulled from the team's log changed the memory. */
  method: Method | 'sync';
  seq: number;
}

export const RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** A MemoryError: data.code says which (invalid_input, not_found, forbidden, ...). */
  memory: -32000,
} as const;

/**
 * Splits a byte stream into lines. A line longer than the limit is dropped whole (up to its
 * newline) and reported, so one huge message cannot take the reader down or desynchronise it.
 */
export class LineReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
    private readonly max: number = LIMITS.serviceMessageBytes,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      if (this.discarding) {
        this.discarding = false;
      } else {
        this.chunks.push(chunk.subarray(start, nl));
        const line = Buffer.concat(this.chunks).toString('utf8');
        if (line.trim()) this.onLine(line);
      }
      this.chunks = [];
      this.size = 0;
      start = nl + 1;
    }
    if (start < chunk.length && !this.discarding) {
      this.chunks.push(chunk.subarray(start));
      this.size += chunk.length - start;
      if (this.size > this.max) {
        this.chunks = [];
        this.size = 0;
        this.discarding = true;
        this.onOverflow();
      }
    }
  }
}
