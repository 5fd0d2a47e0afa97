/**
 * Code anchors in the memory: taken when an episode or a fact names code in the writer's
 * workspace, checked when facts are read, re-taken when a person re-confirms a fact.
 *
 * A fact's anchors are its own when it has some (set when a person's fact names code, or when a
 * person re-confirms it, possibly to none), otherwise those of the episodes cited in its favour.
 */
import { AnchorChecker, anchorsIn, SourceFiles } from '../anchors/resolve.js';
import { codeStale, validAnchor, type CodeAnchor } from '../model/code-anchors.js';
import type { EpisodeRecord, EventBody } from '../model/events.js';
import { LIMITS } from '../model/limits.js';
import type { FactView } from '../model/views.js';
import { all, scalar, type Database } from '../store/sqlite.js';

/** `anchors.set` for each new episode that names code in the workspace. */
export function episodeAnchorEvents(records: EpisodeRecord[], workspace: string | undefined): EventBody[] {
  if (!workspace) return [];
  const at = new Date().toISOString();
  const files = new SourceFiles();
  return records.flatMap((r): EventBody[] => {
    const anchors = anchorsIn(r.text, workspace, at, files);
    return anchors.length ? [{ type: 'anchors.set', target: r.id, anchors }] : [];
  });
}

/** A person's new fact: what its names point at in the workspace, plus its evidence's anchors. None when neither names code. */
export function factAnchorEvents(
  db: Database,
  input: { id: string; subject: string; object: string; evidence?: string[] },
  workspace: string | undefined,
): EventBody[] {
  const own = workspace ? anchorsIn(`${input.subject}\n${input.object}`, workspace, new Date().toISOString()) : [];
  if (own.length === 0) return [];
  const cited = (input.evidence ?? []).flatMap((ep) => storedAnchors(db, ep) ?? []);
  return [{ type: 'anchors.set', target: input.id, anchors: dedupe([...own, ...cited]).slice(0, LIMITS.anchorsPerEvent) }];
}

/** A re-confirmed fact's anchors, re-taken at the code as it is now (those whose code is gone are dropped). */
export function reanchorEvents(db: Database, id: string, workspace: string | undefined): EventBody[] {
  const anchors = factAnchors(db, id);
  if (anchors.length === 0) return [];
  const checker = new AnchorChecker(workspace);
  const at = new Date().toISOString();
  const now = anchors.flatMap((a) => checker.retake(a, at) ?? []);
  return [{ type: 'anchors.set', target: id, anchors: now }];
}

/** The fact's anchors: its own when it has a set, else its supporting evidence's. */
export function factAnchors(db: Database, id: string): CodeAnchor[] {
  const own = storedAnchors(db, id);
  if (own) return own;
  const rows = all(
    db,
    `SELECT a.anchors FROM evidence ev JOIN anchors a ON a.target = ev.episode_id
      WHERE ev.relationship_rowid = (SELECT rowid FROM relationships WHERE id = ?) AND ev.polarity > 0`,
    [id],
  );
  return dedupe(rows.flatMap((r) => parseAnchors(String(r.anchors))));
}

/**
 * The facts with their code's status (`code`), checked within one answer's budget; facts that
 * name no code are returned as they were. With `staleFactor`, a fact whose code changed or is
 * gone has its score multiplied by it and the list is re-sorted.
 */
export function withCode<F extends FactView>(db: Database, facts: F[], workspace: string | undefined, staleFactor?: number): F[] {
  if (facts.length === 0 || scalar(db, 'SELECT 1 FROM anchors LIMIT 1') === undefined) return facts;
  const checker = new AnchorChecker(workspace);
  const out = facts.map((f) => {
    const anchors = factAnchors(db, f.id);
    return anchors.length ? { ...f, code: checker.status(anchors) } : f;
  });
  if (staleFactor === undefined || staleFactor === 1) return out;
  const stale = (f: F): boolean => codeStale(f.code);
  return out
    .map((f) => (stale(f) && f.score !== undefined ? { ...f, score: Math.round(f.score * staleFactor * 1e4) / 1e4 } : f))
    .sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
}

/** The target's anchor set, if it has one; anchors this memory would not have written (a peer's, damaged) are left out. */
export function storedAnchors(db: Database, target: string): CodeAnchor[] | undefined {
  const v = scalar(db, 'SELECT anchors FROM anchors WHERE target = ?', [target]);
  return v === undefined || v === null ? undefined : parseAnchors(String(v));
}

function parseAnchors(json: string): CodeAnchor[] {
  const list: unknown = JSON.parse(json);
  return Array.isArray(list) ? list.filter((a): a is CodeAnchor => validAnchor(a) === undefined) : [];
}

/** One anchor per place (root, path, symbol, range): the most recently taken wins. */
export function dedupe(anchors: CodeAnchor[]): CodeAnchor[] {
  const byPlace = new Map<string, CodeAnchor>();
  for (const a of anchors) {
    const key = JSON.stringify([a.root, a.path, a.symbol, a.startLine, a.endLine]);
    const held = byPlace.get(key);
    if (!held || held.at < a.at) byPlace.set(key, a);
  }
  return [...byPlace.values()];
}
