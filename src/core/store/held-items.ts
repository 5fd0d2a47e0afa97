/**
 * The newest current knowledge items of some kinds in a project, kept between writes: each new item
 * is compared with them (memory/knowledge.ts), and reading them all again for every new item made
 * ingest slow down as items accumulated. A list reads only the rows added since it last looked
 * (rowids only grow: ids.ts never hands one out twice); a row that ended or went since is dropped
 * when `stillHeld` finds it so; a move between projects (project.assign), an item current again or
 * one set aside (below) starts every list again. What could slip past (a row given an old-style id's own
 * lower number by sync) is only compared with no more: the statement is then held twice, never lost.
 * Beside them, the items a person set aside: those marked wrong, which a new statement other than
 * the person's own may not bring back, and those said to be the same as another, whose statements
 * said again are that other's evidence (memory/knowledge.ts).
 */
import { all, scalar, type Database } from './sqlite.js';

export interface HeldItem {
  rowid: number;
  id: string;
  kind: string;
  statement: string;
}

interface HeldList {
  after: number;
  moves: number;
  items: HeldItem[];
}

const lists = new WeakMap<Database, Map<string, HeldList>>();
const moves = new WeakMap<Database, number>();

/** Rows moved between projects, an ended item current again, one marked wrong or said the same as another: every list of this memory is read again. */
export function heldListsStale(db: Database): void {
  moves.set(db, (moves.get(db) ?? 0) + 1);
}

/** The newest current items of these kinds in the project, at most `newest` of them, oldest first. */
export function heldItems(db: Database, kinds: readonly string[], project: string | null, newest: number): HeldItem[] {
  let mine = lists.get(db);
  if (!mine) lists.set(db, (mine = new Map()));
  const name = JSON.stringify([kinds, project]);
  const stamp = moves.get(db) ?? 0;
  let list = mine.get(name);
  if (!list || list.moves !== stamp) mine.set(name, (list = { after: 0, moves: stamp, items: [] }));
  const last = Number(scalar(db, 'SELECT max(rowid) FROM relationships') ?? 0);
  if (last > list.after) {
    // `+` keeps the planner on the rowid range: only the rows added since are read.
    const added = all(
      db,
      `SELECT rowid, id, kind, statement FROM relationships WHERE rowid > ? AND rowid <= ?
         AND +kind IN (${kinds.map(() => '?').join(', ')}) AND +project IS ? AND valid_to IS NULL ORDER BY rowid`,
      [list.after, last, ...kinds, project],
    );
    for (const r of added)
      list.items.push({ rowid: Number(r.rowid), id: String(r.id), kind: String(r.kind), statement: String(r.statement ?? '') });
    list.after = last;
    if (list.items.length > newest) list.items.splice(0, list.items.length - newest);
  }
  return list.items;
}

/** Whether a listed item is still current, of these kinds and in the project; one that is not leaves the list. */
export function stillHeld(db: Database, items: HeldItem[], at: number, kinds: readonly string[], project: string | null): boolean {
  const item = items[at]!;
  const [row] = all(db, 'SELECT kind, project, valid_to FROM relationships WHERE rowid = ? AND id = ?', [item.rowid, item.id]);
  const held = row !== undefined && row.valid_to === null && (row.project ?? null) === project && kinds.includes(String(row.kind));
  if (!held) items.splice(at, 1);
  return held;
}

/** An item a person set aside: marked wrong (by a teammate: `wrongBy`), or said to be the same as `sameAs`. */
export interface SetAsideItem extends HeldItem {
  sameAs?: string;
  wrongBy?: string;
}

const setAsideLists = new WeakMap<Database, Map<string, { stamp: number; items: SetAsideItem[] }>>();

/** Read once per list, and again only after the lists go stale (another set aside, a move between projects). */
function setAside(db: Database, which: 'wrong' | 'same', project: string | null, newest: number): SetAsideItem[] {
  let mine = setAsideLists.get(db);
  if (!mine) setAsideLists.set(db, (mine = new Map()));
  const name = JSON.stringify([which, project]);
  const stamp = moves.get(db) ?? 0;
  const held = mine.get(name);
  if (held && held.stamp === stamp) return held.items;
  const where = which === 'wrong' ? "ended_by = 'wrong'" : 'same_as IS NOT NULL';
  const items = all(
    db,
    `SELECT rowid, id, kind, statement, same_as, wrong_by FROM relationships WHERE project IS ? AND ${where} AND kind IS NOT NULL
       AND statement IS NOT NULL ORDER BY rowid DESC LIMIT ?`,
    [project, newest],
  ).map((r) => ({
    rowid: Number(r.rowid),
    id: String(r.id),
    kind: String(r.kind),
    statement: String(r.statement),
    ...(r.same_as ? { sameAs: String(r.same_as) } : {}),
    ...(r.wrong_by ? { wrongBy: String(r.wrong_by) } : {}),
  }));
  mine.set(name, { stamp, items });
  return items;
}

/**
 * The knowledge items a person marked wrong in a project, newest first, at most `newest`. One
 * confirmed or forgotten since is still listed: `stillWrong` says so.
 */
export const wrongItems = (db: Database, project: string | null, newest: number): SetAsideItem[] => setAside(db, 'wrong', project, newest);

/** Whether a listed item is still marked wrong: not confirmed since, nor forgotten. */
export function stillWrong(db: Database, item: HeldItem): boolean {
  return scalar(db, 'SELECT ended_by FROM relationships WHERE rowid = ? AND id = ?', [item.rowid, item.id]) === 'wrong';
}

/**
 * The knowledge items a person said are the same as another (`sameAs`), newest first, at most
 * `newest`. One confirmed or forgotten since is still listed: `stillSame` says so.
 */
export const sameItems = (db: Database, project: string | null, newest: number): SetAsideItem[] => setAside(db, 'same', project, newest);

/** Whether a listed item still names the item it is the same as. */
export function stillSame(db: Database, item: SetAsideItem): boolean {
  return scalar(db, 'SELECT same_as FROM relationships WHERE rowid = ? AND id = ?', [item.rowid, item.id]) === item.sameAs;
}
