/**
 * What an anchor says of a file's lines now: current, changed or gone, and the anchor re-taken at
 * the text as it is. A changed line range is looked for elsewhere in the file (moved code),
 * nearest places first, within a number of characters hashed and the answer's time.
 */
import { createHash } from 'node:crypto';
import type { CodeAnchor } from '../model/code-anchors.js';
import { LIMITS } from '../model/limits.js';
import { definitionBlock, definitionLine, isSourcePath } from './detect.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

export const hashLines = (lines: string[]): string => sha(lines.map((l) => l.trimEnd()).join('\n'));

/** Whether a hash of `lines` of the file at `path` may be kept: any code, else only a text too long to guess. */
export function hashable(path: string, lines: string[]): boolean {
  if (isSourcePath(path)) return true;
  let chars = 0;
  for (const l of lines) if ((chars += l.replace(/\s/g, '').length) >= LIMITS.anchorMinChars) return true;
  return false;
}

/** Where an anchor points now: its status and, when its code is there, the anchor re-taken at the current text. */
export interface Reading {
  status: 'current' | 'changed' | 'gone';
  /** The anchor at the current text (a moved range moves with it); absent when gone, or too short a text to keep a hash of. */
  now?: Omit<CodeAnchor, 'at'>;
}

/** The reading of `anchor` in `lines` (the file at `root`), or undefined when `stopAt` (ms since the epoch) passed first. */
export function read(anchor: CodeAnchor, root: string, lines: string[], stopAt = Infinity): Reading | undefined {
  const base = { root, path: anchor.path };
  const reading = (status: Reading['status'], hashed: string[], now: Omit<CodeAnchor, 'at' | 'root' | 'path'>): Reading =>
    hashable(anchor.path, hashed) ? { status, now: { ...base, ...now } } : { status };
  if (anchor.symbol !== undefined) {
    const at0 = definitionLine(lines, anchor.symbol);
    if (at0 < 0) return { status: 'gone' };
    const block = definitionBlock(lines, at0);
    const hash = hashLines(block);
    return reading(hash === anchor.hash ? 'current' : 'changed', block, { symbol: anchor.symbol, hash });
  }
  if (anchor.startLine !== undefined && anchor.endLine !== undefined) {
    const range = lines.slice(anchor.startLine - 1, anchor.endLine);
    const there = hashLines(range);
    if (there === anchor.hash) return reading('current', range, { startLine: anchor.startLine, endLine: anchor.endLine, hash: there });
    const moved = findMoved(lines, anchor.startLine - 1, anchor.endLine - anchor.startLine + 1, anchor.hash, stopAt);
    if (moved === undefined) return undefined;
    if (moved >= 0) {
      const span = anchor.endLine - anchor.startLine + 1;
      return reading('current', lines.slice(moved, moved + span), { startLine: moved + 1, endLine: moved + span, hash: anchor.hash });
    }
    if (anchor.startLine > lines.length) return reading('changed', lines, { hash: hashLines(lines) });
    return reading('changed', range, { startLine: anchor.startLine, endLine: Math.min(anchor.endLine, lines.length), hash: there });
  }
  const hash = hashLines(lines);
  return reading(hash === anchor.hash ? 'current' : 'changed', lines, { hash });
}

/** A file's lines trimmed and joined once, with where each line starts, for every range looked for in it. */
interface Joined {
  trimmed: string[];
  text: string;
  starts: number[];
}
const joins = new WeakMap<string[], Joined>();

function joined(lines: string[]): Joined {
  let j = joins.get(lines);
  if (!j) {
    const trimmed = lines.map((l) => l.trimEnd());
    const starts = new Array<number>(trimmed.length);
    for (let i = 0, at = 0; i < trimmed.length; i++) {
      starts[i] = at;
      at += trimmed[i]!.length + 1;
    }
    joins.set(lines, (j = { trimmed, text: trimmed.join('\n'), starts }));
  }
  return j;
}

/**
 * Where `span` lines hashing to `hash` start (0-based), looked for at the offsets nearest `from`
 * first (itself already looked at), hashing at most LIMITS.anchorScanChars characters: -1 when not
 * found within that, undefined when `stopAt` passed.
 */
function findMoved(lines: string[], from: number, span: number, hash: string, stopAt: number): number | undefined {
  const last = lines.length - span;
  if (last < 0) return -1;
  const { trimmed, text, starts } = joined(lines);
  const origin = Math.min(from, last);
  let budget = LIMITS.anchorScanChars;
  for (let d = origin === from ? 1 : 0; origin - d >= 0 || origin + d <= last; d++) {
    for (const i of d === 0 ? [origin] : [origin - d, origin + d]) {
      if (i < 0 || i > last) continue;
      if (Date.now() > stopAt) return undefined;
      const end = starts[i + span - 1]! + trimmed[i + span - 1]!.length;
      if ((budget -= end - starts[i]! + 1) < 0) return -1;
      if (sha(text.slice(starts[i]!, end)) === hash) return i;
    }
  }
  return -1;
}
