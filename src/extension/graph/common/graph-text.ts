/**
 * The graph view's words for facts (media/graph/graph-view.ts draws them): the selected entity's
 * facts grouped by kind, rules and decisions first and plain facts last, each saying what it says
 * and how it stands ("confirmed", never a percentage, for what a person confirmed). vscode-free.
 */
import { byKind, checkLine, confidenceText, factSaying, KIND_TITLES } from '../../common/knowledge-text.js';
import type { GraphEdge } from './graph-messages.js';

/** "rule: Never log the database URL." or "Recall uses sql.js". */
export const edgeText = (e: GraphEdge): string => factSaying(e, 200);

/** How a fact stands: ended, stale, confirmed or its effective confidence, who said it, its evidence and project; a rule's check and what hooks decided on it. */
export function edgeState(e: GraphEdge): string {
  const parts = [confidenceText(e), e.authority, `${e.evidence} evidence`];
  if (e.stale) parts.unshift('stale');
  if (e.status !== 'current') parts.unshift(`${e.status}${e.valid_to ? ` since ${e.valid_to.slice(0, 10)}` : ''}`);
  if (e.project) parts.push(e.project);
  const hooks = checkLine(e);
  if (hooks) parts.push(hooks);
  return parts.join(' · ');
}

/** The facts panel's groups: one per kind present (its heading), then the plain facts ("Relationships"). */
export function edgeGroups(edges: GraphEdge[]): { title: string; edges: GraphEdge[] }[] {
  return byKind(edges).map((g) => ({ title: g.kind ? KIND_TITLES[g.kind] : 'Relationships', edges: g.facts }));
}
