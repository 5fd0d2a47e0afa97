/**
 * Each method's params checked at the service's door, against the types `Methods` states: what
 * reaches a handler is what its type says, and a malformed request gets an invalid_input error
 * naming the field and showing what the method takes. The memory still judges the values (an
 * empty text, a limit out of range, an unknown id), with its own hints.
 */
import { z } from 'zod';
import { AUTHORITIES, PRIOR_KINDS } from '../../core/model/config.js';
import { invalid, type MemoryError } from '../../core/model/errors.js';
import { KNOWLEDGE_KINDS } from '../../core/model/knowledge.js';
import { CORRECTIONS } from '../../core/model/views.js';
import { RETRIEVAL_MODES, SURFACES, type Method, type ParamsOf } from './protocol.js';

/** Absent or null: both mean "not given" on the wire. */
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

const text = z.string();
const texts = z.array(z.string());
const count = optional(z.number());
const flag = optional(z.boolean());
const none = z.object({});
const page = { offset: count, limit: count };
/** A project key, or null for the global memory: null is kept (it is not "not given"). */
const project = z.string().nullable().optional();
const scoped = { project, scope: optional(z.enum(['project', 'all'])) };

const episode = z.object({
  text,
  speaker: optional(text),
  role: optional(text),
  source: optional(text),
  session: optional(text),
  ref: optional(text),
  time: optional(text),
  entities: optional(texts),
  authority: optional(z.enum(AUTHORITIES)),
  project,
  sessionTitle: optional(text),
  key: optional(text),
});

type ParamSchemas = { [M in Method]: z.ZodType<ParamsOf<M>> };

const PARAMS: ParamSchemas = {
  hello: z.object({ surface: z.enum(SURFACES), client: optional(text), challenge: optional(text), project, workspace: optional(text) }),
  ping: none,
  remember: episode.extend({
    kind: optional(z.enum(KNOWLEDGE_KINDS)),
    subject: optional(text),
    citations: optional(texts),
    reason: optional(text),
  }),
  ingest: z.object({ episodes: z.array(episode) }),
  relate: z.object({
    subject: text,
    predicate: text,
    object: text,
    evidence: optional(texts),
    prior: optional(z.enum(PRIOR_KINDS)),
    project,
  }),
  'knowledge.file': z.object({
    file: text,
    text,
    written: z.object({ authority: z.enum(['user', 'external']), authors: texts }),
    time: optional(text),
    project,
    importedBy: optional(text),
  }),
  extracted: z.object({
    episode: text,
    facts: z.array(z.object({ subject: text, predicate: text, object: text })),
    items: optional(z.array(z.object({ kind: z.enum(KNOWLEDGE_KINDS), statement: text, subject: text }))),
    restated: optional(texts),
    extractor: text,
  }),
  correct: z.object({ id: text, verdict: z.enum(CORRECTIONS), reason: optional(text), as: optional(text) }),
  unalias: z.object({ entity: text, alias: text }),
  'forget.plan': z.object({ entity: text }),
  forget: z.object({ entity: text }),
  query: z.object({ query: text, limit: count, history: flag, mode: optional(z.enum(RETRIEVAL_MODES)), ...scoped }),
  search: z.object({ query: text, limit: count, ...scoped }),
  episodes: z.object({
    query: optional(text),
    since: optional(text),
    until: optional(text),
    session: optional(text),
    source: optional(text),
    limit: count,
    ...scoped,
  }),
  traverse: z.object({ entity: text, depth: count, min_confidence: count, history: flag, ...scoped }),
  fact: z.object({ id: text }),
  overview: z.object({ limit: count, ...scoped }),
  status: none,
  export: z.object({ history: flag }),
  shutdown: none,
  'browse.types': z.object({ project, only: flag }),
  'browse.entities': z.object({ type: optional(text), ...page, project, only: flag }),
  'browse.facts': z.object({ entity: text, ...page }),
  'browse.sessions': z.object({ ...page, project, only: flag }),
  'browse.sessionEpisodes': z.object({ session: text.nullish().transform((v) => v ?? null), ...page }),
  'browse.episodesById': z.object({ ids: texts }),
  'browse.items': z.object({ kinds: optional(z.array(z.enum(KNOWLEDGE_KINDS))), about: optional(text), ...page, project }),
  'project.list': none,
  'project.assign': z.object({ project: text.nullable(), from: project, source: optional(text), session: optional(text) }),
  brief: z.object({ project, budget_tokens: count }),
  'rule.add': z.object({ statement: text, project }),
  'rule.check': z.object({ id: text, check: z.unknown() }),
  rules: z.object({ project, checked: flag, limit: count }),
  'hook.check': z.object({
    event: z.enum(['pre', 'post']),
    host: text,
    tool: text,
    input: z.unknown(),
    session: optional(text),
    call_id: optional(text),
    cwd: optional(text),
    project,
  }),
  'graph.neighbourhood': z.object({ entity: text, limit: count, history: flag }),
  'export.page': z.object({ history: flag, cursor: optional(text), limit: count, project }),
  'sync.quarantine': none,
  'sync.members': none,
  'sync.trust': z.object({ origin: text }),
  'sync.forgotten': none,
  'sync.restore': z.object({ id: text }),
};

/** The params of `method` as its handler's type states them, or an invalid_input error saying why not. */
export function checkParams<M extends Method>(
  method: M,
  params: unknown,
): { ok: true; params: ParamsOf<M> } | { ok: false; error: MemoryError } {
  const schema = PARAMS[method];
  const parsed = schema.safeParse(params);
  if (parsed.success) return { ok: true, params: parsed.data };
  const problems = parsed.error.issues.map((i) => `${i.path.length ? `"${i.path.join('.')}"` : 'params'}: ${i.message}`);
  return { ok: false, error: invalid(`Invalid params for ${method}: ${problems.join('; ')}.`, `${method} takes ${signature(schema)}.`) };
}

/** `{ query: string, limit?: number, … }`: what a method takes, read off its schema. */
function signature(schema: z.ZodType): string {
  return typeName(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
}

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

function typeName(s: JsonSchema): string {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.anyOf)
    return s.anyOf
      .filter((a) => a.type !== 'null')
      .map(typeName)
      .join(' | ');
  if (s.type === 'array') return `${s.items ? typeName(s.items) : 'unknown'}[]`;
  if (Array.isArray(s.type)) return s.type.filter((t) => t !== 'null').join(' | ');
  if (s.type !== 'object') return s.type ?? 'unknown';
  const required = new Set(s.required ?? []);
  const fields = Object.entries(s.properties ?? {}).map(([k, v]) => `${k}${required.has(k) ? '' : '?'}: ${typeName(v)}`);
  return fields.length ? `{ ${fields.join(', ')} }` : '{}';
}
