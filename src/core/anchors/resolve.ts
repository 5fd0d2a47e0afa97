/**
 * Anchors against a workspace on disk: taking them (which references in a text name real files
 * under the root, and a hash of what they point at) and checking them later (current, changed
 * since the file's mtime, or gone). Checks are cached by (file, mtime, size) and bounded per
 * answer (files and milliseconds), so a reader never waits long on the file system.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AnchorCheck, AnchorStatus, CodeAnchor, CodeStatus } from '../model/code-anchors.js';
import { LIMITS } from '../model/limits.js';
import { definitionBlock, definitionLine, findCodeRefs, type CodeRef } from './detect.js';

const hashLines = (lines: string[]): string =>
  createHash('sha256')
    .update(lines.map((l) => l.trimEnd()).join('\n'))
    .digest('hex')
    .slice(0, 16);

const splitLines = (text: string): string[] => text.split(/\r?\n/);

/** The file `ref` names under `root` (relative, or absolute inside it), or undefined when there is none. */
function fileUnder(root: string, ref: string): { abs: string; rel: string } | undefined {
  const abs = path.resolve(root, ref);
  const rel = path.relative(root, abs);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  try {
    const st = fs.statSync(abs);
    if (!st.isFile() || st.size > LIMITS.anchorFileBytes) return undefined;
  } catch {
    return undefined;
  }
  return { abs, rel: rel.split(path.sep).join('/') };
}

/**
 * The anchors a text gives, in the workspace at `root`: each path that names a file under it
 * (a bare file name is also looked for beside the other files the text names), with its line
 * range; each backticked symbol defined in one of those files. A file with a symbol anchor gets
 * no whole-file anchor: the symbol is the finer pointer.
 */
/** Files read (as lines) and hashed whole, kept for one batch of texts: turns of a transcript name the same files again and again. */
export class SourceFiles {
  private readonly lines = new Map<string, string[]>();
  private readonly hashes = new Map<string, string>();

  linesOf(abs: string): string[] {
    let l = this.lines.get(abs);
    if (!l) this.lines.set(abs, (l = splitLines(fs.readFileSync(abs, 'utf8'))));
    return l;
  }

  hashOf(abs: string): string {
    let h = this.hashes.get(abs);
    if (h === undefined) this.hashes.set(abs, (h = hashLines(this.linesOf(abs))));
    return h;
  }
}

export function anchorsIn(text: string, root: string, at: string, files = new SourceFiles()): CodeAnchor[] {
  const { paths, symbols } = findCodeRefs(text);
  if (paths.length === 0) return [];
  const found: { ref: CodeRef; abs: string; rel: string }[] = [];
  const unresolved: CodeRef[] = [];
  for (const ref of paths) {
    const file = fileUnder(root, ref.path);
    if (file) found.push({ ref, ...file });
    else if (!ref.path.includes('/')) unresolved.push(ref);
  }
  const dirs = [...new Set(found.map((f) => path.dirname(f.abs)))];
  for (const ref of unresolved) {
    for (const dir of dirs) {
      const file = fileUnder(root, path.join(dir, ref.path));
      if (file) {
        found.push({ ref, ...file });
        break;
      }
    }
  }
  const anchors: CodeAnchor[] = [];
  const linesOf = (abs: string): string[] => files.linesOf(abs);
  const withSymbol = new Set<string>();
  for (const symbol of symbols) {
    for (const f of found) {
      const at0 = definitionLine(linesOf(f.abs), symbol);
      if (at0 < 0) continue;
      anchors.push({ root, path: f.rel, symbol, hash: hashLines(definitionBlock(linesOf(f.abs), at0)), at });
      withSymbol.add(f.rel);
      break;
    }
  }
  const seen = new Set<string>();
  for (const f of found) {
    const { startLine, endLine } = f.ref;
    const key = `${f.rel}:${startLine ?? ''}-${endLine ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (startLine !== undefined && endLine !== undefined) {
      const all = linesOf(f.abs);
      if (endLine > all.length) continue;
      anchors.push({ root, path: f.rel, startLine, endLine, hash: hashLines(all.slice(startLine - 1, endLine)), at });
    } else if (!withSymbol.has(f.rel)) {
      anchors.push({ root, path: f.rel, hash: files.hashOf(f.abs), at });
    }
  }
  return anchors.slice(0, LIMITS.anchorsPerText);
}

/** Where an anchor points now: its status and, when its code is there, the anchor re-taken at the current text. */
interface Reading {
  status: 'current' | 'changed' | 'gone';
  /** The anchor at the current text (a moved range moves with it); absent when gone. */
  now?: Omit<CodeAnchor, 'at'>;
}

function read(anchor: CodeAnchor, root: string, lines: string[]): Reading {
  const base = { root, path: anchor.path };
  if (anchor.symbol !== undefined) {
    const at0 = definitionLine(lines, anchor.symbol);
    if (at0 < 0) return { status: 'gone' };
    const hash = hashLines(definitionBlock(lines, at0));
    return { status: hash === anchor.hash ? 'current' : 'changed', now: { ...base, symbol: anchor.symbol, hash } };
  }
  if (anchor.startLine !== undefined && anchor.endLine !== undefined) {
    const span = anchor.endLine - anchor.startLine + 1;
    const there = hashLines(lines.slice(anchor.startLine - 1, anchor.endLine));
    if (there === anchor.hash)
      return { status: 'current', now: { ...base, startLine: anchor.startLine, endLine: anchor.endLine, hash: there } };
    // The same lines elsewhere in the file: code moved, not changed.
    for (let i = 0; i + span <= lines.length; i++) {
      if (hashLines(lines.slice(i, i + span)) === anchor.hash)
        return { status: 'current', now: { ...base, startLine: i + 1, endLine: i + span, hash: anchor.hash } };
    }
    if (anchor.startLine > lines.length) return { status: 'changed', now: { ...base, hash: hashLines(lines) } };
    const end = Math.min(anchor.endLine, lines.length);
    return { status: 'changed', now: { ...base, startLine: anchor.startLine, endLine: end, hash: there } };
  }
  const hash = hashLines(lines);
  return { status: hash === anchor.hash ? 'current' : 'changed', now: { ...base, hash } };
}

interface Cached {
  mtimeMs: number;
  size: number;
  reading: Reading;
}
/** Readings by anchor, valid while the file's mtime and size stay the same. */
const cache = new Map<string, Cached>();
const CACHE_ENTRIES = 10_000;

/**
 * Checks anchors for one answer: at most `files` distinct files and, past the first few files,
 * `ms` milliseconds; beyond either, an anchor is "unchecked". `fallbackRoot` (the reader's workspace) is used when an
 * anchor's own root is not on this machine.
 */
export class AnchorChecker {
  private readonly deadline: number;
  private readonly files = new Set<string>();
  private readonly roots = new Map<string, boolean>();

  constructor(
    private readonly fallbackRoot?: string,
    private readonly budget: { files: number; ms: number } = { files: LIMITS.anchorFilesPerAnswer, ms: LIMITS.anchorCheckMs },
  ) {
    this.deadline = Date.now() + budget.ms;
  }

  private rootFor(anchor: CodeAnchor): string | undefined {
    for (const root of [anchor.root, this.fallbackRoot]) {
      if (root === undefined) continue;
      if (!this.roots.has(root)) this.roots.set(root, isDirectory(root));
      if (this.roots.get(root)) return root;
    }
    return undefined;
  }

  /** The anchor's status and its reading; undefined reading when unchecked. */
  private reading(anchor: CodeAnchor): { reading?: Reading; mtimeMs?: number } {
    const root = this.rootFor(anchor);
    if (root === undefined) return {};
    const abs = path.join(root, anchor.path);
    if (!this.files.has(abs)) {
      const late = this.files.size >= LIMITS.anchorFilesAlways && Date.now() > this.deadline;
      if (this.files.size >= this.budget.files || late) return {};
      this.files.add(abs);
    }
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch {
      return { reading: { status: 'gone' } };
    }
    if (!st.isFile()) return { reading: { status: 'gone' } };
    if (st.size > LIMITS.anchorFileBytes) return {};
    const key = JSON.stringify([abs, anchor.symbol, anchor.startLine, anchor.endLine, anchor.hash]);
    const hit = cache.get(key);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return { reading: hit.reading, mtimeMs: st.mtimeMs };
    const reading = read(anchor, root, splitLines(fs.readFileSync(abs, 'utf8')));
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(key, { mtimeMs: st.mtimeMs, size: st.size, reading });
    return { reading, mtimeMs: st.mtimeMs };
  }

  check(anchor: CodeAnchor): AnchorCheck {
    const { reading, mtimeMs } = this.reading(anchor);
    const where = { path: anchor.path, symbol: anchor.symbol, startLine: anchor.startLine, endLine: anchor.endLine };
    if (!reading) return { ...where, status: 'unchecked' };
    const changedAt = reading.status === 'changed' && mtimeMs !== undefined ? new Date(mtimeMs).toISOString() : undefined;
    return { ...where, status: reading.status, ...(changedAt ? { changedAt } : {}) };
  }

  /** The fact's code status: the worst of its anchors (gone, changed, unchecked, current). */
  status(anchors: CodeAnchor[]): CodeStatus {
    const checks = anchors.map((a) => this.check(a));
    const status = worst(checks.map((c) => c.status));
    const changed = checks.flatMap((c) => (c.changedAt ? [c.changedAt] : [])).sort();
    return { status, ...(changed.length ? { changedAt: changed[changed.length - 1] } : {}), anchors: checks };
  }

  /** The anchor re-taken at the code as it is now (a person re-confirmed it); undefined when its code is gone or out of reach. */
  retake(anchor: CodeAnchor, at: string): CodeAnchor | undefined {
    const { reading } = this.reading(anchor);
    return reading?.now ? { ...reading.now, at } : undefined;
  }
}

const ORDER: AnchorStatus[] = ['gone', 'changed', 'unchecked', 'current'];

function worst(statuses: AnchorStatus[]): AnchorStatus {
  for (const s of ORDER) if (statuses.includes(s)) return s;
  return 'current';
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
