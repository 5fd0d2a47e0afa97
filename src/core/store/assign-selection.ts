/**
 * Which episodes a person's project.assign moves: a condition on `episodes e` shared by the write
 * (graph-writes.ts) and the count shown before it (graph.ts assignable).
 */

/**
 * The episodes a project.assign selects, as a condition on `episodes e`; `rename`: it selects a
 * whole project, so that project's facts without evidence move too. Undefined: it selects nothing.
 */
export function assignSelection(
  sel: {
    from?: string | null;
    source?: string;
    session?: string;
  },
  origin?: string,
): { where: string; params: unknown[]; rename: boolean } | undefined {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (sel.from !== undefined) {
    clauses.push('e.project IS ?');
    params.push(sel.from);
  }
  if (sel.source !== undefined) {
    clauses.push('e.source = ?');
    params.push(sel.source);
  }
  if (sel.session !== undefined) {
    clauses.push('e.session = ?');
    params.push(sel.session);
  }
  if (clauses.length === 0) return undefined;
  if (origin !== undefined) {
    clauses.push('e.id GLOB ?');
    params.push(`ep_${origin}_[0-9]*`);
  }
  const whole = sel.from !== undefined && sel.source === undefined && sel.session === undefined;
  return { where: clauses.join(' AND '), params, rename: whole && origin === undefined };
}
