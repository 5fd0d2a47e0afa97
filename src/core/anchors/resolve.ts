/**
 * Anchors against a workspace on disk: taking them (which references in a text name real files
 * under the root, and a hash of what they point at) and checking them later (current, changed
 * since the file's mtime, or gone). Only files inside the asker's workspace are read (files.ts),
 * whatever root an anchor names. Checks are cached by (file, mtime, size) and bounded per answer
 * (anchors, files and milliseconds, inside a file too), so a reader never waits long on the disk.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { validAnchor, type AnchorCheck, type AnchorStatus, type CodeAnchor, type CodeStatus } from '../model/code-anchors.js';
import { LIMITS } from '../model/limits.js';
import { definitionBlock, definitionLine, findCodeRefs, type CodeRef } from './detect.js';
import { SourceFiles, splitLines, Workspace, type Located } from './files.js';
import { hashable, hashLines, read, type Reading } from './reading.js';

export { SourceFiles };

/**
 * The anchors a text gives, in the workspace at `root`: each path that names a regular file under
 * it (a bare file name is also looked for beside the other files the text names), with its line
 * range; each backticked symbol defined in one of those files. A file with a symbol anchor gets
 * no whole-file anchor: the symbol is the finer pointer. A text of a file that is not code is
 * anchored only when long enough that its hash cannot be guessed (reading.ts `hashable`).
 */
export function anchorsIn(text: string, root: string, at: string, files = new SourceFiles()): CodeAnchor[] {
  const { paths, symbols } = findCodeRefs(text);
  if (paths.length === 0) return [];
  const ws = files.workspace(root);
  if (!ws) return [];
  const found: { ref: CodeRef; file: Located; lines: string[] }[] = [];
  const open = (ref: CodeRef, rel: string | undefined): boolean => {
    const read = rel === undefined ? undefined : files.lines(ws, rel);
    if (read) found.push({ ref, ...read });
    return read !== undefined;
  };
  const unresolved = paths.filter((ref) => !open(ref, ws.relative(ref.path)) && !ref.path.includes('/'));
  const dirs = [...new Set(found.map((f) => path.posix.dirname(f.file.rel)))];
  for (const ref of unresolved) dirs.some((dir) => open(ref, ws.relative(path.posix.join(dir, ref.path))));

  const anchors: CodeAnchor[] = [];
  const withSymbol = new Set<string>();
  for (const symbol of symbols) {
    for (const f of found) {
      const at0 = definitionLine(f.lines, symbol);
      if (at0 < 0) continue;
      const block = definitionBlock(f.lines, at0);
      if (!hashable(f.file.rel, block)) continue;
      anchors.push({ root, path: f.file.rel, symbol, hash: hashLines(block), at });
      withSymbol.add(f.file.rel);
      break;
    }
  }
  const seen = new Set<string>();
  for (const f of found) {
    const { startLine, endLine } = f.ref;
    const key = `${f.file.rel}:${startLine ?? ''}-${endLine ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (startLine !== undefined && endLine !== undefined) {
      if (endLine > f.lines.length) continue;
      const range = f.lines.slice(startLine - 1, endLine);
      if (hashable(f.file.rel, range)) anchors.push({ root, path: f.file.rel, startLine, endLine, hash: hashLines(range), at });
    } else if (!withSymbol.has(f.file.rel) && hashable(f.file.rel, f.lines)) {
      anchors.push({ root, path: f.file.rel, hash: files.hashOf(f.file, f.lines), at });
    }
  }
  return anchors.slice(0, LIMITS.anchorsPerText);
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
 * Checks anchors for one answer, in the asker's `workspace` only: an anchor taken there, or in a
 * folder that is not on this machine (a teammate's checkout of the same repository), is read
 * there; one whose root is another folder here, or whose path leaves the workspace, is
 * "unchecked", never read. At most `files` distinct files, LIMITS.anchorsPerAnswer anchors and,
 * past the first few readings, `ms` milliseconds (a search inside a file included); beyond them,
 * an anchor is "unchecked". Without a workspace nothing is read.
 */
export class AnchorChecker {
  private readonly deadline: number;
  private readonly files = new Set<string>();
  private readonly roots = new Map<string, Workspace | undefined>();
  private ws?: Workspace | null;
  /** Anchors looked at, and readings made (not from the cache). */
  private looked = 0;
  private work = 0;
  /** The last file read, for the next anchor on it. */
  private last?: { real: string; mtimeMs: number; size: number; lines: string[] };

  constructor(
    private readonly workspace?: string,
    private readonly budget: { files: number; ms: number } = { files: LIMITS.anchorFilesPerAnswer, ms: LIMITS.anchorCheckMs },
  ) {
    this.deadline = Date.now() + budget.ms;
  }

  private late(): boolean {
    return Date.now() > this.deadline;
  }

  /** Where `anchor` is read, or undefined when nowhere this connection stands in. */
  private workspaceFor(anchor: CodeAnchor): Workspace | undefined {
    if (this.workspace === undefined) return undefined;
    if (this.ws === undefined) this.ws = Workspace.at(this.workspace) ?? null;
    const ws = this.ws;
    if (!ws) return undefined;
    if (anchor.root === ws.root || anchor.root === ws.real) return ws;
    if (!this.roots.has(anchor.root)) this.roots.set(anchor.root, elsewhere(anchor.root, ws));
    return this.roots.get(anchor.root);
  }

  /** The anchor's status and its reading; undefined reading when unchecked. */
  private reading(anchor: CodeAnchor): { reading?: Reading; mtimeMs?: number } {
    if (++this.looked > LIMITS.anchorsPerAnswer || validAnchor(anchor) !== undefined) return {};
    const ws = this.workspaceFor(anchor);
    if (!ws) return {};
    const named = `${ws.real}\0${anchor.path}`;
    if (!this.files.has(named)) {
      const late = this.files.size >= LIMITS.anchorFilesAlways && this.late();
      if (this.files.size >= this.budget.files || late) return {};
      this.files.add(named);
    }
    const file = ws.locate(anchor.path);
    if (file === 'gone') return { reading: { status: 'gone' } };
    if (file === 'out of reach') return {};
    const key = JSON.stringify([ws.root, anchor.path, file.real, anchor.symbol, anchor.startLine, anchor.endLine, anchor.hash]);
    const hit = cache.get(key);
    if (hit && hit.mtimeMs === file.mtimeMs && hit.size === file.size) return { reading: hit.reading, mtimeMs: file.mtimeMs };
    // Past the answer's time only the first few readings go ahead; any other stops when it is up.
    const always = this.work < LIMITS.anchorFilesAlways;
    if (!always && this.late()) return {};
    this.work++;
    const lines = this.linesOf(ws, file);
    const reading = lines && read(anchor, ws.root, lines, always ? Infinity : this.deadline);
    if (!reading) return {};
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(key, { mtimeMs: file.mtimeMs, size: file.size, reading });
    return { reading, mtimeMs: file.mtimeMs };
  }

  private linesOf(ws: Workspace, file: Located): string[] | undefined {
    const l = this.last;
    if (l && l.real === file.real && l.mtimeMs === file.mtimeMs && l.size === file.size) return l.lines;
    const text = ws.read(file);
    this.last = text === undefined ? undefined : { real: file.real, mtimeMs: file.mtimeMs, size: file.size, lines: splitLines(text) };
    return this.last?.lines;
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

/**
 * The workspace an anchor from another root is read in: this one when that root is not on this
 * machine (a teammate's checkout) or is this folder under another name; none when it is another
 * folder here, which this connection does not stand in.
 */
function elsewhere(root: string, ws: Workspace): Workspace | undefined {
  try {
    return fs.realpathSync.native(root) === ws.real ? ws : undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? ws : undefined;
  }
}

const ORDER: AnchorStatus[] = ['gone', 'changed', 'unchecked', 'current'];

function worst(statuses: AnchorStatus[]): AnchorStatus {
  for (const s of ORDER) if (statuses.includes(s)) return s;
  return 'current';
}
