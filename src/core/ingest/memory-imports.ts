/**
 * Claude Code's imports: a CLAUDE.md names other files with `@path` (relative to itself, `~/` for
 * the home folder, or absolute), outside code, and Claude Code reads them as part of it, importing
 * theirs in turn up to five hops. Recall reads them too, each as a memory file of its own kind
 * ("CLAUDE.md import"), so a CLAUDE.md that only imports (`@.claude/conventions.md`) is not empty.
 *
 * Within a bound, so a repository's CLAUDE.md cannot pull the person's other files into a memory
 * that may be synced: an import stays inside the repository the CLAUDE.md is in (its folder when it
 * is in none), and ~/.claude/CLAUDE.md's inside ~/.claude; links are followed before the check. Only
 * text files (.md, .mdc, .markdown, .txt) are read; a memory file by its own name (`@AGENTS.md`) is
 * read as itself. A file no CLAUDE.md imports any more is dropped (droppedImports): its items end.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LIMITS } from '../model/limits.js';
import { gitRoot, pathWithin, realPath } from '../model/project.js';
import { memoryFileType, readMemoryFileText, RECALL_INSTRUCTIONS_FILE, type MemoryFileType } from './memory-files.js';

/** The memory files that import others (Claude Code's): CLAUDE.md, CLAUDE.local.md, ~/.claude/CLAUDE.md. */
const IMPORTERS = new Set(['CLAUDE.md', 'CLAUDE.local.md', '~/.claude/CLAUDE.md']);
const TEXT_FILE = /\.(?:md|mdc|markdown|txt)$/i;
/** `@path` not inside a word, an e-mail address or a package name (`@types/node` has no text extension and is dropped). */
const IMPORT = /(?<![\w.@/\\`-])@((?:~\/|\/|\.{1,2}\/)?[\w.-]+(?:\/[\w.-]+)*)/g;

/** The `@path`s of a memory file's text, outside fenced blocks, code spans and HTML comments, in order. */
export function importedPaths(text: string): string[] {
  const prose = text
    .replace(/^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n\1?\2[^\n]*|$)/gm, '\n')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/`[^`\n]*`/g, ' ');
  return [...prose.matchAll(IMPORT)].map((m) => m[1]!.replace(/\.+$/, ''));
}

/** Whether a memory file is one that imports (see IMPORTERS). */
export const importsFiles = (type: MemoryFileType | undefined): boolean => type !== undefined && IMPORTERS.has(type.label);

/** The folder a memory file's imports must stay in (see the file's comment). */
function boundary(importer: string, type: MemoryFileType, home?: string): string {
  if (type.global && home) return path.join(home, '.claude');
  const dir = path.dirname(importer);
  return gitRoot(dir) ?? dir;
}

/** Whether `file` may be read as an import kept within `bound`: text, not Recall's own, no memory file by its own name. */
function importable(file: string, bound: string, home?: string): boolean {
  const name = path.basename(file);
  return TEXT_FILE.test(name) && name !== RECALL_INSTRUCTIONS_FILE && !memoryFileType(file, home) && pathWithin(bound, file) !== undefined;
}

/**
 * What `file` is when `importer` (a CLAUDE.md) imports it: a "CLAUDE.md import" (the importer's
 * global memory when the importer is), or undefined when it may not be read so (not text, outside
 * the bound, Recall's own instructions, or a memory file by its own name, read as itself).
 */
export function importedFileType(file: string, importer: string, home?: string): MemoryFileType | undefined {
  const type = memoryFileType(importer, home);
  if (!type || !importsFiles(type) || !importable(file, boundary(importer, type, home), home)) return undefined;
  return { label: `${type.label} import`, instructions: true, ...(type.global ? { global: true } : {}) };
}

/** Where an `@path` points from the file that names it. */
function resolved(p: string, from: string, home?: string): string | undefined {
  if (p.startsWith('~/')) return home ? path.join(home, p.slice(2)) : undefined;
  return path.isAbsolute(p) ? p : path.resolve(path.dirname(from), p);
}

/**
 * The files `importer` (whose text is `text`) imports, and theirs, breadth first within LIMITS.claudeImportHops hops and
 * LIMITS.claudeImportFiles files: each that may be read (importedFileType), and the memory files by
 * their own name within the same bound. A file that cannot be read is skipped.
 */
export function claudeImports(importer: string, text: string, home?: string): string[] {
  return importClosure(importer, text, home).found;
}

/** claudeImports, and whether the closure is whole: no file in it was unreadable, the file limit not reached. */
function importClosure(importer: string, text: string, home?: string): { found: string[]; whole: boolean } {
  const type = memoryFileType(importer, home);
  if (!type || !importsFiles(type)) return { found: [], whole: true };
  const bound = boundary(importer, type, home);
  const found: string[] = [];
  let whole = true;
  const seen = new Set([realPath(importer)]);
  let level = [importer];
  for (let hop = 1; hop <= LIMITS.claudeImportHops && level.length; hop++) {
    const next: string[] = [];
    for (const from of level) {
      let said: string;
      try {
        said = from === importer ? text : readMemoryFileText(from).text;
      } catch {
        whole = false;
        continue;
      }
      for (const p of importedPaths(said)) {
        const file = resolved(p, from, home);
        const key = file && realPath(file);
        if (!file || !key || seen.has(key) || !fs.statSync(key).isFile()) continue;
        seen.add(key);
        const ownName = memoryFileType(file, home) !== undefined && pathWithin(bound, file) !== undefined;
        if (!ownName && !importable(file, bound, home)) continue;
        found.push(file);
        next.push(file);
        if (found.length >= LIMITS.claudeImportFiles) return { found, whole: false };
      }
    }
    level = next;
  }
  return { found, whole };
}

/** A path as compared: its real path when it exists, else resolved. */
const sameFileKey = (f: string): string => realPath(f) ?? path.resolve(f);

/**
 * Of `held` (the files the memory holds items from), the ones read as imports within `importer`'s
 * bound that no CLAUDE.md there imports any more: not `importer` as its `text` says now, nor another
 * of `held` sharing its bound as its file says now (gone: imports nothing).
 */
export function droppedImports(importer: string, text: string, held: string[], home?: string): string[] {
  const type = memoryFileType(importer, home);
  if (!type || !importsFiles(type)) return [];
  const bound = boundary(importer, type, home);
  const imports = held.filter((f) => !memoryFileType(f, home) && pathWithin(bound, f) !== undefined);
  if (!imports.length) return [];
  const mine = importClosure(importer, text, home);
  if (!mine.whole) return []; // Part of what it imports cannot be told: nothing is ended on a guess.
  const still = new Set(mine.found.map(sameFileKey));
  const self = sameFileKey(importer);
  for (const other of held) {
    const t = memoryFileType(other, home);
    if (!t || !importsFiles(t) || sameFileKey(other) === self || boundary(other, t, home) !== bound) continue;
    let said = '';
    try {
      said = fs.existsSync(other) ? readMemoryFileText(other).text : '';
    } catch {
      return [];
    }
    const theirs = importClosure(other, said, home);
    if (!theirs.whole) return [];
    for (const f of theirs.found) still.add(sameFileKey(f));
  }
  return imports.filter((f) => !still.has(sameFileKey(f)));
}
