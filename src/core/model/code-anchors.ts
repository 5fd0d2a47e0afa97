/**
 * Code anchors: where an episode or a fact points into a workspace (a file, a symbol in it, a
 * line range) and a hash of what it pointed at, so a reader can tell whether the code moved on.
 */
import { LIMITS } from './limits.js';

/** One stored anchor. `path` is relative to `root` (the workspace it was found in), with forward slashes. */
export interface CodeAnchor {
  root: string;
  path: string;
  symbol?: string;
  startLine?: number;
  endLine?: number;
  /** Hash of the file, of the line range, or of the lines of the symbol's definition. */
  hash: string;
  /** ISO time the hash was taken. */
  at: string;
}

/** current: the code is as it was; changed: it differs since (file mtime); gone: file or symbol missing; unchecked: past the answer's budget. */
export type AnchorStatus = 'current' | 'changed' | 'gone' | 'unchecked';

export interface AnchorCheck {
  path: string;
  symbol?: string;
  startLine?: number;
  endLine?: number;
  status: AnchorStatus;
  /** When the file last changed (its mtime), for a changed anchor. */
  changedAt?: string;
}

/** A fact's code, as a reader sees it: the worst of its anchors' states, and each anchor. */
export interface CodeStatus {
  status: AnchorStatus;
  changedAt?: string;
  anchors: AnchorCheck[];
}

/** Whether a fact's code moved on since it was learned: it changed, or it is gone. */
export const codeStale = (code: CodeStatus | undefined): boolean => code?.status === 'changed' || code?.status === 'gone';

const ANCHOR_KEYS = new Set(['root', 'path', 'symbol', 'startLine', 'endLine', 'hash', 'at']);
const isLine = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 1;

/**
 * Why `path` cannot name a file inside a workspace, or undefined when it can: relative, forward
 * slashes, no `.` or `..` segment, nothing empty. A peer's anchor is checked only with such a path.
 */
export function anchorPathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || !path) return 'its path is not text';
  if (path.length > LIMITS.sourceChars) return `its path is over ${LIMITS.sourceChars} characters`;
  if (/[\\\0]/.test(path) || /^[A-Za-z]:/.test(path)) return 'its path has a backslash, a NUL or a drive';
  if (path.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) return 'its path is absolute or climbs out with ..';
  return undefined;
}

/**
 * Why `a` is not an anchor this memory would have written, or undefined when it is one: what a
 * pulled `anchors.set` must pass before it is applied, and what a check asks of a stored anchor.
 */
export function validAnchor(a: unknown): string | undefined {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return 'an anchor is not an object';
  const o = a as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => !ANCHOR_KEYS.has(k));
  if (extra !== undefined) return `an anchor has an unknown field "${extra.slice(0, 40)}"`;
  if (typeof o.root !== 'string' || (!o.root.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(o.root))) return 'its root is not an absolute path';
  if (o.root.length > LIMITS.sourceChars || o.root.includes('\0')) return `its root is over ${LIMITS.sourceChars} characters or has a NUL`;
  const path = anchorPathProblem(o.path);
  if (path) return path;
  if (
    o.symbol !== undefined &&
    (typeof o.symbol !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(o.symbol) || o.symbol.length > LIMITS.nameChars)
  )
    return 'its symbol is not a name';
  const ranged = o.startLine !== undefined || o.endLine !== undefined;
  if (ranged && !(isLine(o.startLine) && isLine(o.endLine) && o.startLine <= o.endLine)) return 'its lines are not a range from 1';
  if (ranged && o.symbol !== undefined) return 'it names both a symbol and lines';
  if (typeof o.hash !== 'string' || !/^[0-9a-f]{16}$/.test(o.hash)) return 'its hash is not 16 hex digits';
  if (typeof o.at !== 'string' || o.at.length > LIMITS.dateChars || Number.isNaN(Date.parse(o.at))) return 'its time is not an ISO time';
  return undefined;
}

/** Why `anchors` is not the list of an `anchors.set` (at most LIMITS.anchorsPerEvent valid anchors), or undefined. */
export function validAnchors(anchors: unknown): string | undefined {
  if (!Array.isArray(anchors)) return 'anchors is not a list';
  if (anchors.length > LIMITS.anchorsPerEvent) return `${anchors.length} anchors, over ${LIMITS.anchorsPerEvent}`;
  for (const [i, a] of anchors.entries()) {
    const problem = validAnchor(a);
    if (problem) return `anchor ${i + 1}: ${problem}`;
  }
  return undefined;
}
