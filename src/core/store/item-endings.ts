/**
 * How knowledge items (model/knowledge.ts) end besides a person's verdict: a later decision or
 * preference supersedes an earlier one; an item whose memory file no longer says it is retracted.
 * Both keep the item under history.
 */
import { authorityRank, type Authority } from '../model/config.js';
import { resolveId } from './ids.js';
import { all, run, type Database } from './sqlite.js';

/**
 * A later decision (or preference) on the same subject, in the same project, ends the earlier
 * one: it stays under history, superseded. Later is by when it was said, so an old transcript
 * imported now does not end a newer choice (it ends at once instead); and a person's word is
 * not ended by a weaker one (an agent's).
 */
export function supersede(db: Database, rowid: number): void {
  const me = all(db, 'SELECT id, kind, subject_id, object_id, project, valid_from, authority FROM relationships WHERE rowid = ?', [
    rowid,
  ])[0]!;
  const rivals = all(
    db,
    `SELECT rowid, id, object_id, valid_from, authority FROM relationships
      WHERE kind = ? AND subject_id = ? AND project IS ? AND valid_to IS NULL AND rowid != ?`,
    [me.kind, me.subject_id, me.project, rowid],
  );
  const rank = (a: unknown): number => authorityRank(a as Authority);
  for (const r of rivals) {
    if (r.object_id === me.object_id) continue;
    const [older, newer] = String(r.valid_from) <= String(me.valid_from) ? [r, me] : [me, r];
    if (rank(newer.authority) < rank(older.authority)) continue;
    run(db, "UPDATE relationships SET valid_to = ?, ended_by = 'superseded', ended_reason = ? WHERE id = ?", [
      newer.valid_from,
      `superseded by ${String(newer.id)}`,
      older.id,
    ]);
    if (older === me) return;
  }
}

/**
 * A person said the item is the same as another: it ends, superseded by that one, which it names
 * (`same_as`) so that what says it again is that one's evidence (memory/knowledge.ts). A confirmed
 * item stays, as for a retraction: the person joins the other way round. The reason names the kept
 * item as this memory spells it (a teammate's event spells it as theirs).
 */
export function endAsSame(db: Database, id: string, sameAs: string, at: string): void {
  const kept = resolveId(db, 'rel', sameAs);
  run(
    db,
    "UPDATE relationships SET valid_to = ?, ended_by = 'superseded', ended_reason = ?, same_as = ? WHERE id = ? AND valid_to IS NULL AND pinned = 0",
    [at, `the same as ${kept}`, kept, resolveId(db, 'rel', id)],
  );
}

/** The file an item was read from no longer says it: it ends, with no evidence against it; a person's confirmation outlasts the file. */
export function retract(db: Database, id: string, at: string, reason: string): void {
  run(
    db,
    "UPDATE relationships SET valid_to = ?, ended_by = 'retracted', ended_reason = ? WHERE id = ? AND valid_to IS NULL AND pinned = 0",
    [at, reason, resolveId(db, 'rel', id)],
  );
}
