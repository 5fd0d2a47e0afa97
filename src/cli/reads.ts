/**
 * The CLI's reads (`query`, `search`, `episodes`, `overview`): each sees the command's project and the
 * global memory, or every project with --all, as the MCP tools do. A read that finds nothing where
 * it looked, but would in another project, says so and how to look there: a transcript filed under
 * the folder it names must not look lost to the person who just imported it.
 */
import { LIMIT_DEFAULTS } from '../core/model/limits.js';
import type { EpisodeView } from '../core/model/views.js';
import type { MemoryClient } from '../service/rpc/client.js';
import type { ParamsOf, ResultOf } from '../service/rpc/protocol.js';
import * as render from '../tools/render.js';

type Out = (s: string) => void;

export interface ReadContext {
  client: MemoryClient;
  /** The command's project (null: the global memory). */
  project: string | null;
  all: boolean;
  json: boolean;
  out: Out;
  err: Out;
}

const here = (p: string | null): string => (p === null ? 'the global memory' : `project ${p} or the global memory`);

/** Prints a result, and when it is empty where the command looked, what another project holds. */
async function show<M extends 'query' | 'search' | 'episodes'>(
  ctx: ReadContext,
  method: M,
  params: ParamsOf<M>,
  count: (r: ResultOf<M>) => number,
  projects: (r: ResultOf<M>) => (string | null | undefined)[],
  text: (r: ResultOf<M>) => string,
): Promise<void> {
  const scope = ctx.all ? ('all' as const) : undefined;
  const r = await ctx.client.call(method, { ...params, scope });
  ctx.out(ctx.json ? JSON.stringify(r, null, 2) : text(r));
  if (ctx.all || count(r) > 0) return;
  const wider = await ctx.client.call(method, { ...params, scope: 'all' });
  const n = count(wider);
  if (n === 0) return;
  const names = [...new Set(projects(wider).filter((p): p is string => typeof p === 'string' && p !== ctx.project))];
  const where = names.length ? ` (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})` : '';
  const how = names.length
    ? `run again with --project ${names[0]}, or --all to read every project`
    : 'run again with --all to read every project';
  // In JSON the result is the answer: the note goes to stderr, beside it.
  (ctx.json ? ctx.err : ctx.out)(`Nothing in ${here(ctx.project)}; ${n} in other projects${where}: ${how}.`);
}

const episodeProjects = (list: EpisodeView[]): (string | null | undefined)[] => list.map((e) => e.project);

export function query(ctx: ReadContext, params: ParamsOf<'query'>): Promise<void> {
  return show(
    ctx,
    'query',
    params,
    (r) => r.facts.length + r.entities.length + r.episodes.length,
    (r) => [...episodeProjects(r.episodes), ...r.facts.map((f) => f.project)],
    (r) => render.renderQuery(r),
  );
}

export function search(ctx: ReadContext, params: ParamsOf<'search'>): Promise<void> {
  return show(
    ctx,
    'search',
    params,
    (r) => r.length,
    () => [],
    (r) => render.renderEntities(r, params.query),
  );
}

export function episodes(ctx: ReadContext, params: ParamsOf<'episodes'>): Promise<void> {
  return show(
    ctx,
    'episodes',
    params,
    (r) => r.length,
    episodeProjects,
    (r) => render.renderEpisodes(r),
  );
}

export async function overview(ctx: ReadContext, limit: number | undefined): Promise<void> {
  const r = await ctx.client.call('overview', { limit: limit ?? LIMIT_DEFAULTS.overview, scope: ctx.all ? 'all' : undefined });
  ctx.out(ctx.json ? JSON.stringify(r, null, 2) : render.renderOverview(r));
}
