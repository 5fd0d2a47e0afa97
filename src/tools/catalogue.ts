/**
 * The one tool catalogue. The MCP server and the VS Code language-model tools are both generated
 * from this list, so what a model sees over MCP and in Copilot can never diverge.
 * Each tool: its names and descriptions, a zod input schema with bounds, MCP annotations, a
 * handler (one memory-service call) and renderers (text for the model, structured content).
 */
import { z } from 'zod';
import { BRIEF_MIN_TOKENS, LIMIT_DEFAULTS, LIMITS } from '../core/model/limits.js';
import type { Method, ParamsOf, ResultOf } from '../service/rpc/protocol.js';
import { codeOut, knowledgeNoteFields, rememberOut } from './knowledge-shapes.js';
import * as render from './render.js';

/** What a tool needs from the memory: the service client's `call`. */
export interface MemoryAccess {
  call<M extends Method>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

export interface RecallTool<N extends string = string, S extends z.ZodObject = z.ZodObject, R = unknown> {
  name: N;
  title: string;
  /** Written for a model: when to call it and what comes back. */
  description: string;
  /** Shown to a person in VS Code's tool picker. */
  userDescription: string;
  /** `#name` in a chat prompt. */
  toolReferenceName: string;
  /** A codicon id for VS Code. */
  icon: string;
  input: S;
  annotations: ToolAnnotations;
  run(memory: MemoryAccess, args: z.infer<S>): Promise<R>;
  /** Text the model reads; bounded by the caller to LIMITS.toolTextChars. */
  text(result: R, args: z.infer<S>): string;
  /** Structured content (matches `output`). */
  structured(result: R): Record<string, unknown>;
  output: z.ZodObject;
}

const isoDate = z
  .string()
  .max(LIMITS.dateChars)
  .regex(/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, 'an ISO date such as 2024-05-01 or 2024-05-01T14:30:00Z');

/** A request's `limit`, with the default and the bound the memory applies. */
const limit = (of: keyof typeof LIMIT_DEFAULTS & keyof typeof LIMITS) =>
  z
    .number()
    .int()
    .min(1)
    .max(LIMITS[of])
    .optional()
    .describe(`How many results at most (default ${LIMIT_DEFAULTS[of]}, at most ${LIMITS[of]}).`);
const question = () => z.string().min(1).max(LIMITS.queryChars);
/** Which projects answer; the project itself is the connection's (its workspace), never the model's to name. */
const scope = () =>
  z
    .enum(['project', 'all'])
    .optional()
    .describe("'project' (default): this project's memory and the user's own; 'all': every project's too.");

// ---- output shapes (structuredContent) ---------------------------------------------------------

const episodeOut = z.object({
  id: z.string(),
  text: z.string(),
  speaker: z.string().nullable(),
  role: z.string().nullable(),
  authority: z.string(),
  source: z.string().nullable(),
  session: z.string().nullable(),
  ref: z.string().nullable(),
  time: z.string(),
  entities: z.array(z.string()),
  score: z.number().optional(),
  project: z.string().nullable().optional(),
  author: z.string().optional(),
});
const entityOut = z.object({
  name: z.string(),
  type: z.string(),
  aliases: z.array(z.string()),
  summary: z.string(),
  episodes: z.number(),
  relationships: z.number(),
  score: z.number().optional(),
});
const factOut = z.object({
  id: z.string(),
  subject: z.string(),
  predicate: z.string(),
  object: z.string(),
  confidence: z.number(),
  effective_confidence: z.number(),
  prior: z.string(),
  authority: z.string(),
  evidence: z.array(z.string()),
  valid_from: z.string(),
  valid_to: z.string().nullable(),
  status: z.string(),
  pinned: z.boolean(),
  confirmed_by: z.string().optional(),
  ended_reason: z.string().nullable(),
  score: z.number().optional(),
  depth: z.number().optional(),
  project: z.string().nullable().optional(),
  learned_at: z.string().optional(),
  kind: z.string().optional(),
  statement: z.string().optional(),
  code: codeOut.optional(),
});

/** Keeps each tool's name a literal, so ToolName is the union of the catalogue's names. */
function tool<const N extends string, S extends z.ZodObject, R>(t: RecallTool<N, S, R>): RecallTool<N, S, R> {
  return t;
}

const READ: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

export const TOOLS = [
  tool({
    name: 'recall_query',
    title: 'Ask the memory',
    toolReferenceName: 'recallQuery',
    icon: 'search',
    description:
      'Ask long-term memory a question in natural language, exactly as it comes up ("why did we pick sql.js?", ' +
      '"what does the user prefer for formatting?", "what broke in CI last week?"). Call it before answering ' +
      'anything that depends on earlier sessions, decisions, preferences or project history. Returns the best ' +
      'evidence: facts (subject-predicate-object with effective confidence, provenance and validity), entities, ' +
      'and conversation episodes, each cited with episode id, session, source, time, speaker and score. Cite ' +
      'episode ids when you use them.',
    userDescription: 'Ask Recall a question; returns cited facts and conversation excerpts.',
    input: z.object({
      query: question().describe('The question, in natural language.'),
      limit: limit('query'),
      scope: scope(),
    }),
    annotations: READ,
    run: (m, a) => m.call('query', { query: a.query, limit: a.limit, scope: a.scope }),
    text: (r) => render.renderQuery(r),
    structured: (r) => ({ facts: r.facts, entities: r.entities, episodes: r.episodes }),
    output: z.object({ facts: z.array(factOut), entities: z.array(entityOut), episodes: z.array(episodeOut) }),
  }),
  tool({
    name: 'recall_search',
    title: 'Find entities',
    toolReferenceName: 'recallSearch',
    icon: 'symbol-class',
    description:
      'Find entities (people, projects, packages, files, technologies) in memory by name or description. Use it ' +
      'to get the exact name of something before recall_traverse, or to check whether memory knows a thing at ' +
      'all. Returns names, types, aliases, summaries and how many facts and episodes each has.',
    userDescription: 'Find entities in Recall by name or description.',
    input: z.object({
      query: question().describe('A name or a few words describing the entity.'),
      limit: limit('search'),
      scope: scope(),
    }),
    annotations: READ,
    run: (m, a) => m.call('search', { query: a.query, limit: a.limit, scope: a.scope }),
    text: (r, a) => render.renderEntities(r, a.query),
    structured: (r) => ({ entities: r }),
    output: z.object({ entities: z.array(entityOut) }),
  }),
  tool({
    name: 'recall_episodes',
    title: 'List conversation episodes',
    toolReferenceName: 'recallEpisodes',
    icon: 'history',
    description:
      'List conversation episodes (turns and notes) by text, time range, session or source, newest first when ' +
      'no text is given. Use it for "what did we discuss on Tuesday", "show the last session", or to read the ' +
      'turns around a cited episode. Each episode comes with its id, session, source, time and speaker.',
    userDescription: 'List conversation episodes from Recall by text, date, session or source.',
    input: z.object({
      query: question().optional().describe('Words to match; omit to list by time.'),
      since: isoDate.optional().describe('Only episodes at or after this ISO date/time.'),
      until: isoDate.optional().describe('Only episodes at or before this ISO date/time.'),
      session: z.string().min(1).max(LIMITS.sessionChars).optional().describe('Only this session id.'),
      source: z.string().min(1).max(LIMITS.sourceChars).optional().describe('Only this source (file or surface).'),
      limit: limit('episodes'),
      scope: scope(),
    }),
    annotations: READ,
    run: (m, a) =>
      m.call('episodes', {
        query: a.query,
        since: a.since,
        until: a.until,
        session: a.session,
        source: a.source,
        limit: a.limit,
        scope: a.scope,
      }),
    text: (r) => render.renderEpisodes(r),
    structured: (r) => ({ episodes: r }),
    output: z.object({ episodes: z.array(episodeOut) }),
  }),
  tool({
    name: 'recall_traverse',
    title: "Explore an entity's neighbourhood",
    toolReferenceName: 'recallTraverse',
    icon: 'type-hierarchy',
    description:
      "Walk the knowledge graph from one entity: its facts and its neighbours' facts up to the given depth, " +
      'with effective confidence, provenance and evidence episode ids. Superseded or corrected facts are left ' +
      'out. Use the exact entity name (recall_search finds it); an unknown name returns the nearest names.',
    userDescription: "Show an entity's facts and neighbours in Recall.",
    input: z.object({
      entity: z.string().min(1).max(LIMITS.nameChars).describe('The entity name (case-insensitive; aliases work).'),
      depth: z
        .number()
        .int()
        .min(1)
        .max(LIMITS.depth)
        .optional()
        .describe(`How many hops (default ${LIMIT_DEFAULTS.depth}, at most ${LIMITS.depth}).`),
      min_confidence: z.number().min(0).max(1).optional().describe('Leave out facts below this effective confidence (0-1).'),
      scope: scope(),
    }),
    annotations: READ,
    run: (m, a) => m.call('traverse', { entity: a.entity, depth: a.depth, min_confidence: a.min_confidence, scope: a.scope }),
    text: (r) => render.renderTraverse(r),
    structured: (r) => ({ root: r.root, facts: r.facts, entities: r.entities, truncated: r.truncated }),
    output: z.object({
      root: entityOut,
      facts: z.array(factOut),
      entities: z.array(entityOut),
      truncated: z.boolean().describe(`The walk stopped at ${LIMITS.traverseFacts} facts: facts within the depth may be left out.`),
    }),
  }),
  tool({
    name: 'recall_status',
    title: 'Memory status',
    toolReferenceName: 'recallStatus',
    icon: 'info',
    description:
      'Report the state of long-term memory: how many episodes, entities and facts it holds, its folder, the ' +
      'memory service, which retrieval channels are available, and the time of the last write. Use it when ' +
      'memory seems empty or a call failed.',
    userDescription: "Show Recall's counts and service state.",
    input: z.object({}),
    annotations: READ,
    run: (m) => m.call('status', {}),
    text: (r) =>
      [
        `Memory ${r.memory}: ${r.episodes} episodes, ${r.entities} entities, ${r.relationships} facts (${r.current_relationships} current).`,
        `Service pid ${r.service_pid}, version ${r.version}, ${r.clients} client(s). Last write: ${r.last_write ?? 'never'}.`,
        `Retrieval: keyword (BM25) and graph${r.embedder.startsWith('ready') ? ', and vectors' : ''}. Embeddings: ${render.renderEmbeddings(r)}.`,
      ].join('\n'),
    structured: (r) => ({
      episodes: r.episodes,
      entities: r.entities,
      relationships: r.relationships,
      current_relationships: r.current_relationships,
      memory: r.memory,
      service_pid: r.service_pid,
      last_write: r.last_write,
      retrieval: r.embedder.startsWith('ready') ? ['keyword', 'graph', 'vector'] : ['keyword', 'graph'],
      embedder: r.embedder,
    }),
    output: z.object({
      episodes: z.number(),
      entities: z.number(),
      relationships: z.number(),
      current_relationships: z.number(),
      memory: z.string(),
      service_pid: z.number(),
      last_write: z.string().nullable(),
      retrieval: z.array(z.string()),
      embedder: z.string(),
    }),
  }),
  tool({
    name: 'recall_overview',
    title: 'What the memory knows about',
    toolReferenceName: 'recallOverview',
    icon: 'book',
    description:
      'A bounded overview of long-term memory: the most connected entities and the most recent sessions. Use it ' +
      'at the start of a task to learn what memory covers before asking specific questions with recall_query.',
    userDescription: 'Summarise what Recall knows: top entities and recent sessions.',
    input: z.object({ limit: limit('overview'), scope: scope() }),
    annotations: READ,
    run: (m, a) => m.call('overview', { limit: a.limit, scope: a.scope }),
    text: (r) => render.renderOverview(r),
    structured: (r) => ({ entities: r.entities, sessions: r.sessions }),
    output: z.object({
      entities: z.array(entityOut),
      sessions: z.array(z.object({ session: z.string(), episodes: z.number(), last: z.string() })),
    }),
  }),
  tool({
    name: 'recall_remember',
    title: 'Remember a note',
    toolReferenceName: 'recallRemember',
    icon: 'save',
    description:
      'Store knowledge in long-term memory so the next session starts with it. Call it when a decision is made ' +
      '(kind "decision"), when the user states a rule or convention ("always…", "never…", "from now on…": kind ' +
      '"rule") or a preference ("preference"), when you learn a lesson after a fix (the error, its cause and what ' +
      'fixed it: "lesson"), or find a durable project fact such as how to build or test ("fact"). Write the fact as ' +
      'one self-contained sentence, give its subject (what it is about) and cite the code it rests on as ' +
      '"path:start-end" relative to the workspace: the item goes stale when those lines change. The same knowledge ' +
      "stored again is one item with more evidence. It is recorded as your (the agent's) observation, never proof, " +
      'until a person confirms it. Do not store secrets. Returns the note id and the item id.',
    userDescription: 'Store a note or a rule, decision or lesson in Recall (recorded as the agent’s observation).',
    input: z.object({
      text: z.string().min(1).max(LIMITS.noteChars).describe('The fact, as a self-contained sentence or two.'),
      ...knowledgeNoteFields,
      entities: z
        .array(z.string().min(1).max(LIMITS.nameChars))
        .max(LIMITS.noteEntities)
        .optional()
        .describe('Names of the things the note is about.'),
      session: z.string().min(1).max(LIMITS.sessionChars).optional().describe('A session id to file it under.'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (m, a) =>
      m.call('remember', {
        text: a.text,
        entities: a.entities,
        session: a.session,
        kind: a.kind,
        subject: a.subject,
        citations: a.citations,
        reason: a.reason,
      }),
    text: (r) => render.renderRemembered(r),
    structured: (r) => ({
      id: r.id,
      duplicate: r.duplicate,
      ...(r.item ? { item: r.item } : {}),
      ...(r.wrong ? { wrong: r.wrong } : {}),
      ...(r.anchored ? { anchored: r.anchored, unanchored: r.unanchored ?? [] } : {}),
    }),
    output: rememberOut,
  }),
  tool({
    name: 'recall_brief',
    title: 'Brief before a task',
    toolReferenceName: 'recallBrief',
    icon: 'checklist',
    description:
      'Call this once at the start of a task. Returns, within a small token budget, what long-term memory says ' +
      "holds in this project: the rules and decisions in force first (the person's own notes among them), then " +
      'preferences, facts a person confirmed, durable project facts and lessons learned, each line with its id ' +
      "(rel_… or ep_…) to cite and its kind; what rests on a repository's files others wrote is in its own " +
      'section naming them. Follow the rules unless the person says otherwise. A footer names what the budget ' +
      'left out: ask recall_query for those, and whenever a question depends on the past.',
    userDescription: 'What Recall says holds before a task: rules, decisions, preferences, facts and lessons.',
    input: z.object({
      budget_tokens: z
        .number()
        .int()
        .min(BRIEF_MIN_TOKENS)
        .max(LIMITS.brief)
        .optional()
        .describe(`Size of the brief in tokens (default ${LIMIT_DEFAULTS.brief}, at most ${LIMITS.brief}).`),
    }),
    annotations: READ,
    run: (m, a) => m.call('brief', { budget_tokens: a.budget_tokens }),
    text: (r) => r.text,
    structured: (r) => ({
      text: r.text,
      tokens: r.tokens,
      facts: r.facts,
      notes: r.notes,
      left_out: r.left_out,
      left_out_titles: r.left_out_titles,
    }),
    output: z.object({
      text: z.string(),
      tokens: z.number(),
      facts: z.array(factOut.extend({ section: z.string() })),
      notes: z.array(episodeOut),
      left_out: z.number(),
      left_out_titles: z.array(z.string()),
    }),
  }),
] as const;

/** recall_query, recall_search, …: a misspelt name does not compile. */
export type ToolName = (typeof TOOLS)[number]['name'];

/** The catalogue as a plain list, for surfaces that register every tool the same way. */
export const TOOL_LIST: readonly RecallTool[] = TOOLS;

/** JSON Schema of a tool's input, as MCP's tools/list and VS Code's manifest state it. */
export function inputJsonSchema(t: RecallTool): Record<string, unknown> {
  return z.toJSONSchema(t.input, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
}
