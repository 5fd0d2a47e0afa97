/**
 * Code anchors: where an episode or a fact points into a workspace (a file, a symbol in it, a
 * line range) and a hash of what it pointed at, so a reader can tell whether the code moved on.
 */

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
