/**
 * Reading a workspace's files for anchors without ever leaving it. A path is resolved with
 * realpath and must stay under the workspace's realpath, so a symlink (to a file or a folder)
 * leading out is never followed; kernel file systems are refused; a file is opened without
 * following a last link and without blocking, and read only when the opened file is regular and
 * small enough, at most that many bytes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { anchorPathProblem } from '../model/code-anchors.js';
import { LIMITS } from '../model/limits.js';
import { hashLines } from './reading.js';

/** Where a read of /proc/kmsg blocks, or a file describes the machine rather than the code. */
const SYSTEM = ['/proc', '/sys', '/dev'];
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** A regular file under the workspace: its real path and what lstat said of it. */
export interface Located {
  real: string;
  /** The path as given, relative to the workspace, forward slashes. */
  rel: string;
  size: number;
  mtimeMs: number;
  dev: number;
  ino: number;
}

/** Why a path gives no file: nothing there (or no regular file: gone), or out of reach (outside, too big, unreadable: unchecked). */
export type Refused = 'gone' | 'out of reach';

const under = (real: string, dir: string): boolean => real.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
const isSystem = (real: string): boolean => SYSTEM.some((d) => real === d || under(real, d));

/** A workspace folder as given (`root`) and as it really is (`real`). */
export class Workspace {
  private constructor(
    readonly root: string,
    readonly real: string,
  ) {}

  /** The workspace at `root`, or undefined when that is no folder here (or the file system's root, which holds everything). */
  static at(root: string): Workspace | undefined {
    try {
      const real = fs.realpathSync.native(root);
      if (!fs.statSync(real).isDirectory() || path.dirname(real) === real || isSystem(real)) return undefined;
      return new Workspace(root, real);
    } catch {
      return undefined;
    }
  }

  /** `ref` as a text names it (relative, or absolute inside the workspace) as a path relative to it, or undefined outside. */
  relative(ref: string): string | undefined {
    for (const base of [this.root, this.real]) {
      const rel = path.relative(base, path.resolve(base, ref));
      if (path.isAbsolute(rel)) continue;
      const posix = rel.split(path.sep).join('/');
      if (anchorPathProblem(posix) === undefined) return posix;
    }
    return undefined;
  }

  /** The regular file `rel` names, resolved under the workspace; never one reached through a link leading out. */
  locate(rel: string): Located | Refused {
    if (anchorPathProblem(rel) !== undefined) return 'out of reach';
    let real: string;
    try {
      real = fs.realpathSync.native(path.join(this.real, rel));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? 'gone' : 'out of reach';
    }
    if (!under(real, this.real) || isSystem(real)) return 'out of reach';
    let st: fs.Stats;
    try {
      st = fs.lstatSync(real);
    } catch {
      return 'gone';
    }
    if (!st.isFile()) return 'gone';
    if (st.size > LIMITS.anchorFileBytes) return 'out of reach';
    return { real, rel, size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino };
  }

  /**
   * The text of a located file, or undefined when it is no longer that file: opened without
   * following a last link or blocking (a FIFO swapped in), the opened file must be the regular file
   * located, still under the workspace, and is read to at most LIMITS.anchorFileBytes.
   */
  read(file: Located): string | undefined {
    let fd: number;
    try {
      fd = fs.openSync(file.real, OPEN_FLAGS);
    } catch {
      return undefined;
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.dev !== file.dev || st.ino !== file.ino || st.size > LIMITS.anchorFileBytes) return undefined;
      if (!this.holds(fd, file.real)) return undefined;
      const buf = Buffer.alloc(Math.min(st.size, LIMITS.anchorFileBytes) + 1);
      let got = 0;
      for (let n = 1; n > 0 && got < buf.length; got += n) n = fs.readSync(fd, buf, got, buf.length - got, got);
      return got > LIMITS.anchorFileBytes ? undefined : buf.toString('utf8', 0, got);
    } catch {
      return undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Whether the opened `fd` lies under the workspace: where the kernel says it is (Linux), else its folder has not moved since. */
  private holds(fd: number, real: string): boolean {
    try {
      return under(fs.readlinkSync(`/proc/self/fd/${fd}`), this.real);
    } catch {
      try {
        return fs.realpathSync.native(path.dirname(real)) === path.dirname(real);
      } catch {
        return false;
      }
    }
  }
}

/** Splits a file's text into lines (\n or \r\n). */
export const splitLines = (text: string): string[] => text.split(/\r?\n/);

/**
 * Files read for one batch of texts (a transcript's turns name the same files again and again),
 * by real path, so links to one file are read once. Bounded: at most LIMITS.anchorBatchBytes read
 * per batch (past it, no more anchors are taken) and at most LIMITS.anchorHeldBytes of lines held.
 */
export class SourceFiles {
  private readBytes = 0;
  private heldBytes = 0;
  /** Lines by real path, least recently used first. */
  private readonly held = new Map<string, { lines: string[]; bytes: number }>();
  private readonly hashes = new Map<string, string>();
  private readonly workspaces = new Map<string, Workspace | undefined>();

  workspace(root: string): Workspace | undefined {
    if (!this.workspaces.has(root)) this.workspaces.set(root, Workspace.at(root));
    return this.workspaces.get(root);
  }

  /** The file `rel` names in `ws` and its lines, or undefined: no regular file there, out of reach, or the batch's bytes spent. */
  lines(ws: Workspace, rel: string): { file: Located; lines: string[] } | undefined {
    const file = ws.locate(rel);
    if (typeof file === 'string') return undefined;
    const kept = this.held.get(file.real);
    if (kept) {
      this.held.delete(file.real);
      this.held.set(file.real, kept);
      return { file, lines: kept.lines };
    }
    if (this.readBytes + file.size > LIMITS.anchorBatchBytes) return undefined;
    this.readBytes += file.size;
    const text = ws.read(file);
    if (text === undefined) return undefined;
    const lines = splitLines(text);
    for (const [real, old] of this.held) {
      if (this.heldBytes + file.size <= LIMITS.anchorHeldBytes) break;
      this.held.delete(real);
      this.heldBytes -= old.bytes;
    }
    this.held.set(file.real, { lines, bytes: file.size });
    this.heldBytes += file.size;
    return { file, lines };
  }

  /** The whole file's hash, computed once per batch. */
  hashOf(file: Located, lines: string[]): string {
    let h = this.hashes.get(file.real);
    if (h === undefined) this.hashes.set(file.real, (h = hashLines(lines)));
    return h;
  }
}
