/**
 * Memory results as text a person or a model reads well. Every episode line carries its
 * coordinates (id, session, source reference, time, speaker, score): nothing is shown that
 * cannot be cited.
 */
import type { AnchorCheck, AnchorStatus, CodeStatus } from '../core/model/code-anchors.js';
import type { EntityView, EpisodeView, FactView } from '../core/model/views.js';
import type { ForgetPlan, QueryResult, RememberResult, TraverseResult } from '../core/memory/memory.js';
import { LIMITS } from '../core/model/limits.js';
import type { ServiceStatus } from '../service/rpc/protocol.js';

const pct = (x: number): string => `${Math.round(x * 100)}%`;

export function citation(e: EpisodeView): string {
  const parts = [e.id];
  if (e.session) parts.push(`session ${e.session}`);
  if (e.source) parts.push(e.ref ? `${e.source}#${e.ref}` : e.source);
  else if (e.ref) parts.push(e.ref);
  parts.push(e.time.slice(0, 16).replace('T', ' '));
  if (e.speaker) parts.push(e.speaker);
  parts.push(e.author ? `${e.authority} (${e.author})` : e.authority);
  if (e.score !== undefined) parts.push(`score ${e.score.toFixed(2)}`);
  return `[${parts.join(' · ')}]`;
}

export function renderEpisode(e: EpisodeView, maxChars = 600): string {
  const text = e.text.length > maxChars ? `${e.text.slice(0, maxChars)}…` : e.text;
  return `${citation(e)}\n  ${text.replace(/\n/g, '\n  ')}`;
}

export function renderFact(f: FactView): string {
  const confirmed = f.confirmed_by ? `confirmed by ${f.confirmed_by}` : 'confirmed';
  const state = f.status === 'current' ? (f.pinned ? confirmed : 'current') : `${f.status} since ${f.valid_to?.slice(0, 10)}`;
  const evidence = f.evidence.length ? `; evidence ${f.evidence.join(', ')}` : '';
  const code = f.code ? `  ${renderCode(f.code)}` : '';
  // A person's confirmation is certainty, not a percentage.
  const confidence = f.pinned && f.status === 'current' ? state : `confidence ${pct(f.effective_confidence)}, ${state}`;
  const what = f.kind ? `[${f.kind}] ${f.statement} (about ${f.subject})` : `${f.subject} —${f.predicate}→ ${f.object}`;
  return `${f.id}: ${what}  (${confidence}, ${f.prior}, by ${f.authority}, ${times(f)}${evidence})${code}`;
}

/** When a fact held and when memory learned it: "held since 2025-03-04, learned 2026-12-01" (one date when they agree). */
export function times(f: Pick<FactView, 'valid_from' | 'learned_at'>): string {
  const held = f.valid_from.slice(0, 10);
  const learned = (f.learned_at ?? f.valid_from).slice(0, 10);
  return held === learned ? `since ${held}` : `held since ${held}, learned ${learned}`;
}

/** Whether the code a fact names is as it was: "⚠ code changed since 2026-11-30 (src/pay/settle.ts)". */
export function renderCode(c: CodeStatus): string {
  const where = (s: AnchorStatus): string => {
    const places = c.anchors.filter((a) => a.status === s).map(anchorPlace);
    return `(${places.slice(0, 3).join(', ')}${places.length > 3 ? `, +${places.length - 3}` : ''})`;
  };
  switch (c.status) {
    case 'gone':
      return `⚠ code gone ${where('gone')}: renamed or deleted since this was learned`;
    case 'changed':
      return `⚠ code changed since ${c.changedAt?.slice(0, 10) ?? 'it was learned'} ${where('changed')}`;
    case 'unchecked':
      return `code not checked ${where('unchecked')}`;
    case 'current':
      return `✓ code unchanged ${where('current')}`;
  }
}

export function anchorPlace(a: AnchorCheck): string {
  if (a.symbol) return `${a.path} \`${a.symbol}\``;
  if (a.startLine !== undefined)
    return `${a.path}:${a.startLine}${a.endLine !== undefined && a.endLine !== a.startLine ? `-${a.endLine}` : ''}`;
  return a.path;
}

/** What `recall_remember` stored: the note, its item, and each citation that could not be anchored (so the agent can fix it). */
export function renderRemembered(r: RememberResult): string {
  const lines = [r.duplicate ? `Already remembered as ${r.id}.` : `Remembered as ${r.id}.`];
  if (r.item) lines.push(`Knowledge item ${r.item} (agent's word until a person confirms it).`);
  if (r.wrong) lines.push(`A person marked this wrong (${r.wrong}): it is kept as your note only, not as a knowledge item.`);
  if (r.anchored?.length) lines.push(`Anchored to ${r.anchored.join(', ')}.`);
  for (const u of r.unanchored ?? []) lines.push(`Not anchored: ${u.citation}: ${u.why}.`);
  return lines.join('\n');
}

export function renderEntity(e: EntityView): string {
  const aka = e.aliases.length ? ` (aka ${e.aliases.join(', ')})` : '';
  const summary = e.summary ? ` — ${e.summary}` : '';
  return `${e.name}${aka} [${e.type}]${summary}  · ${e.relationships} fact(s), ${e.episodes} episode(s)`;
}

export function renderQuery(r: QueryResult): string {
  const out: string[] = [];
  if (r.facts.length) out.push('Facts:', ...r.facts.map((f) => `- ${renderFact(f)}`));
  if (r.entities.length) out.push('Entities:', ...r.entities.map((e) => `- ${renderEntity(e)}`));
  if (r.episodes.length) out.push('Episodes:', ...r.episodes.map((e) => `- ${renderEpisode(e)}`));
  if (!out.length) out.push(`Nothing in memory matches "${r.query}".`);
  return out.join('\n');
}

export function renderEntities(list: EntityView[], query: string): string {
  return list.length ? list.map((e) => `- ${renderEntity(e)}`).join('\n') : `No entity matches "${query}".`;
}

export function renderEpisodes(list: EpisodeView[]): string {
  return list.length ? list.map((e) => `- ${renderEpisode(e)}`).join('\n') : 'No episodes match.';
}

export function renderTraverse(t: TraverseResult): string {
  const out = [renderEntity(t.root)];
  if (!t.facts.length) out.push('  (no facts about it yet)');
  for (const f of [...t.facts].sort((a, b) => a.depth - b.depth)) out.push(`${'  '.repeat(f.depth)}- ${renderFact(f)}`);
  if (t.truncated) out.push(`(cut at ${LIMITS.traverseFacts} facts: ask for less depth, or a higher min_confidence)`);
  return out.join('\n');
}

/** What the memory knows about (recall_overview, `recall overview`): its most connected entities and latest sessions. */
export function renderOverview(r: { entities: EntityView[]; sessions: { session: string; episodes: number; last: string }[] }): string {
  return [
    r.entities.length ? 'Top entities:' : 'No entities yet.',
    ...r.entities.map((e) => `- ${renderEntity(e)}`),
    r.sessions.length ? 'Recent sessions:' : 'No sessions yet.',
    ...r.sessions.map((s) => `- ${s.session}: ${s.episodes} episode(s), last ${s.last.slice(0, 16).replace('T', ' ')}`),
  ].join('\n');
}

export function renderForgetPlan(p: ForgetPlan): string {
  const out = [`Forgetting "${p.entity.name}" removes:`, `- the entity ${renderEntity(p.entity)}`];
  out.push(`- ${p.relationships.length} relationship(s)`, ...p.relationships.map((f) => `    ${renderFact(f)}`));
  out.push(`- ${p.episodes.length} episode(s) that mention nothing else`, ...p.episodes.map((e) => `    ${e.id}: ${e.text.slice(0, 120)}`));
  if (p.orphans.length) out.push(`- ${p.orphans.length} other entit(ies) left with nothing else: ${p.orphans.join(', ')}`);
  if (p.kept_episodes) out.push(`(${p.kept_episodes} episode(s) also mention other things: they stay, unlinked from it)`);
  return out.join('\n');
}

/** The embedder's state in one line: what is embedded and how it is searched, or why there is none. */
export function renderEmbeddings(
  s: Pick<ServiceStatus, 'embedder' | 'vectors_by_kind' | 'vector_search' | 'embedding_pending'> &
    Partial<Pick<ServiceStatus, 'embedding_backend' | 'embedding_rate' | 'embedding_eta_s'>>,
): string {
  if (!s.embedder.startsWith('ready')) return `${s.embedder}; search uses keyword + graph`;
  const v = s.vectors_by_kind;
  const runtime = s.embedding_backend ? ` on ${s.embedding_backend}` : '';
  return `${s.embedder}${runtime}; ${v.episode} episode, ${v.entity} entity, ${v.fact} fact vector(s), ${renderBacklog(s)}; search ${s.vector_search}`;
}

/** "N waiting", with the pace and the time left while a backlog is embedded. */
export function renderBacklog(
  s: Pick<ServiceStatus, 'embedding_pending'> & Partial<Pick<ServiceStatus, 'embedding_rate' | 'embedding_eta_s'>>,
): string {
  if (s.embedding_pending === 0 || !s.embedding_rate) return `${s.embedding_pending} waiting`;
  const eta = s.embedding_eta_s ?? 0;
  const left = eta < 90 ? `${eta} s` : eta < 5400 ? `${Math.round(eta / 60)} min` : `${(eta / 3600).toFixed(1)} h`;
  return `${s.embedding_pending} waiting (${s.embedding_rate} texts/s, about ${left} left)`;
}
