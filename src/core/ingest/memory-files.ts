/**
 * The memory files people already keep for their agents, known by where they sit (never by what
 * they hold, so a README or a transcript is never read as one): AGENTS.md, CLAUDE.md (a project's
 * and ~/.claude/CLAUDE.md), Copilot's instructions, Cursor's, Cline's and Windsurf's rules, Cline's
 * memory bank, Claude Code's auto memory and the files of VS Code's (Copilot's) memory tool. A file
 * is read whole, within LIMITS.memoryFileBytes; memory-file-items.ts turns it into knowledge items.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { invalid, MemoryError } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import { gitRoot } from '../model/project.js';

export interface MemoryFileType {
  /** What the file is, for a person: "AGENTS.md", "Cursor rule", "Cline memory bank". */
  label: string;
  /** Instructions to agents (their bullets are read as rules unless they describe); else notes (read as facts unless they instruct). */
  instructions: boolean;
  /** The person's own, for every project (~/.claude/CLAUDE.md, the memory tool's user memories): the global memory. */
  global?: boolean;
}

/** The instructions file Recall itself writes (src/extension/chat/instructions.ts): never read back as the person's. */
export const RECALL_INSTRUCTIONS_FILE = 'recall.instructions.md';

/** The names memory files go by, for a person told a file is not one. */
export const MEMORY_FILE_NAMES =
  'AGENTS.md, CLAUDE.md, CLAUDE.local.md, .github/copilot-instructions.md, .github/instructions/*.instructions.md, ' +
  '.cursor/rules/*.mdc, .cursorrules, .clinerules (or .clinerules/*), .windsurfrules, memory-bank/*.md, ' +
  '~/.claude/projects/<project>/memory/*.md, and the files of VS Code’s memory tool (memory-tool/memories/…)';

/** Files a memory-file folder may hold (Cline's .clinerules/, Cursor's rules, the memory tool's). */
const TEXT_NAME = /\.(md|mdc|markdown|txt|json)$|^[^.]+$/i;

/**
 * What kind of memory file `file` is, by its path alone; undefined when it is none. `home`: the
 * person's home folder, where ~/.claude/CLAUDE.md is the person's global memory.
 */
export function memoryFileType(file: string, home?: string): MemoryFileType | undefined {
  const p = path.resolve(file).split(path.sep).join('/');
  const name = path.posix.basename(p);
  const dir = path.posix.dirname(p);
  const parent = path.posix.basename(dir);
  if (name === 'AGENTS.md') return { label: 'AGENTS.md', instructions: true };
  if (name === 'CLAUDE.md' || name === 'CLAUDE.local.md') {
    const own = home !== undefined && p === `${path.resolve(home).split(path.sep).join('/')}/.claude/CLAUDE.md`;
    return { label: own ? '~/.claude/CLAUDE.md' : name, instructions: true, ...(own ? { global: true } : {}) };
  }
  if (name === 'copilot-instructions.md' && parent === '.github') return { label: 'Copilot instructions', instructions: true };
  if (name.endsWith('.instructions.md') && parent === 'instructions' && path.posix.basename(path.posix.dirname(dir)) === '.github') {
    return name === RECALL_INSTRUCTIONS_FILE ? undefined : { label: 'Copilot instructions', instructions: true };
  }
  if (/\/\.cursor\/rules(\/|$)/.test(dir) && /\.mdc?$/.test(name)) return { label: 'Cursor rule', instructions: true };
  if (name === '.cursorrules') return { label: '.cursorrules', instructions: true };
  if (name === '.windsurfrules') return { label: '.windsurfrules', instructions: true };
  if (name === '.clinerules' || (parent === '.clinerules' && TEXT_NAME.test(name))) return { label: 'Cline rules', instructions: true };
  if (parent === 'memory-bank' && /\.md$/i.test(name)) return { label: 'Cline memory bank', instructions: false };
  if (/\/\.claude\/projects\/[^/]+\/memory$/.test(dir) && /\.md$/i.test(name)) return { label: 'Claude Code memory', instructions: false };
  // VS Code's memory tool: user memories in memory-tool/memories/, the repository's in memories/repo/; a chat's own
  // (memories/<session>/) are its scratchpad, cleared with it.
  if (TEXT_NAME.test(name) && (dir.endsWith('/memory-tool/memories') || dir.endsWith('/memory-tool/memories/repo'))) {
    const user = dir.endsWith('/memories');
    return { label: 'VS Code memory', instructions: false, ...(user ? { global: true } : {}) };
  }
  return undefined;
}

/** Why `file` is not read as a memory file, for a clear error; undefined when it is one. */
export function notMemoryFile(file: string, home?: string): string | undefined {
  if (memoryFileType(file, home)) return undefined;
  if (path.basename(file) === RECALL_INSTRUCTIONS_FILE)
    return `${file} is the instructions file Recall writes for Copilot; it is never read back as your words.`;
  return `${file} is not a memory file (those are ${MEMORY_FILE_NAMES}).`;
}

/** A memory file's text, read whole within LIMITS.memoryFileBytes; a clear error for a file too big, not text, or unreadable. */
export function readMemoryFileText(file: string): { text: string; mtimeMs: number } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    throw cannotRead(file, e);
  }
  if (!stat.isFile()) throw invalid(`${file} is not a file.`);
  checkMemoryFileSize(file, stat.size);
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    throw cannotRead(file, e);
  }
  checkMemoryFileSize(file, buf.length); // it may have grown since the stat
  if (buf.includes(0)) throw invalid(`${file} is not a text file (it holds NUL bytes); a memory file is markdown or plain text.`);
  return { text: buf.toString('utf8'), mtimeMs: stat.mtimeMs };
}

/** The size bound of a memory file, in one place for the client that reads it and the service that takes its text. */
export function checkMemoryFileSize(file: string, bytes: number): void {
  if (bytes <= LIMITS.memoryFileBytes) return;
  throw invalid(
    `${file} is ${Math.ceil(bytes / 1024)} KB; memory files are read up to ${LIMITS.memoryFileBytes / 1024} KB.`,
    'Split it into smaller files (Copilot reads .github/instructions/*.instructions.md, Cursor .cursor/rules/*.mdc, Claude Code imports @path files) and point Recall at them.',
  );
}

/** A plain file (not a link to elsewhere). */
function isFile(p: string): boolean {
  try {
    return fs.lstatSync(p).isFile();
  } catch {
    return false;
  }
}

function cannotRead(file: string, e: unknown): MemoryError {
  const code = (e as NodeJS.ErrnoException).code;
  return invalid(`Cannot read ${file}${code ? ` (${code})` : ''}.`, code === 'ENOENT' ? 'Check the path.' : undefined);
}

/** The places a workspace keeps its memory files, as one glob for a file watcher (relative to the workspace folder). */
export const WORKSPACE_MEMORY_GLOB =
  '{**/AGENTS.md,**/CLAUDE.md,**/CLAUDE.local.md,.claude/CLAUDE.md,.github/copilot-instructions.md,.github/instructions/*.instructions.md,' +
  '.cursor/rules/**/*.mdc,.cursor/rules/**/*.md,.cursorrules,.clinerules,.clinerules/*,.windsurfrules,memory-bank/*.md}';

/** The memory files a subfolder keeps for the code below it (a monorepo's packages, Claude Code's nested CLAUDE.md). */
const NESTED_NAMES = new Set(['AGENTS.md', 'CLAUDE.md', 'CLAUDE.local.md']);
/** Folders never looked in for them: dependencies and build output (hidden folders, .git among them, are skipped too). */
const SKIPPED_FOLDERS = new Set(
  'node_modules bower_components jspm_packages vendor third_party dist build out target coverage __pycache__ venv env site-packages Pods DerivedData bin obj'.split(
    ' ',
  ),
);

/** Folders under a workspace that hold memory files, and how deep their files are looked for. */
const MEMORY_FOLDERS: [string, number][] = [
  ['.github/instructions', 0],
  ['.cursor/rules', 3],
  ['.clinerules', 0],
  ['memory-bank', 0],
];
const WORKSPACE_FILES = ['AGENTS.md', 'CLAUDE.md', 'CLAUDE.local.md', '.claude/CLAUDE.md', '.github/copilot-instructions.md'];
const ROOT_FILES = ['.cursorrules', '.clinerules', '.windsurfrules'];

/** The memory files at a workspace's own places (WORKSPACE_MEMORY_GLOB), in a stable order; Recall's own instructions left out. */
export function workspaceMemoryFiles(root: string): string[] {
  const found: string[] = [];
  for (const rel of [...WORKSPACE_FILES, ...ROOT_FILES]) if (isFile(path.join(root, rel))) found.push(path.join(root, rel));
  const walk = (dir: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory() && depth > 0) walk(full, depth - 1);
      else if (e.isFile() && memoryFileType(full)) found.push(full);
    }
  };
  for (const [rel, depth] of MEMORY_FOLDERS) walk(path.join(root, rel), depth);
  found.push(...nestedMemoryFiles(root));
  return found.filter((f) => memoryFileType(f)).sort();
}

/** Folders the workspace's .gitignore names plainly ("dist/", "/build", "out"): build output, not the person's. */
function ignoredFolders(root: string): Set<string> {
  let text = '';
  try {
    text = fs.readFileSync(path.join(root, '.gitignore'), 'utf8');
  } catch {
    return new Set();
  }
  const names = text.split(/\r?\n/).map((l) => l.trim().replace(/^\//, '').replace(/\/$/, ''));
  return new Set(names.filter((n) => n && /^[\w.-]+$/.test(n)));
}

/** Whether a folder under a workspace is looked in for nested memory files (see SKIPPED_FOLDERS). */
function skipped(name: string, ignored: Set<string>): boolean {
  return name.startsWith('.') || SKIPPED_FOLDERS.has(name) || ignored.has(name);
}

/**
 * AGENTS.md, CLAUDE.md and CLAUDE.local.md in the workspace's subfolders, breadth first (the
 * shallowest first), within LIMITS.nestedMemoryDepth folders down, LIMITS.nestedMemoryFolders
 * folders looked in and LIMITS.nestedMemoryFiles files; dependencies, hidden and ignored folders left out.
 */
export function nestedMemoryFiles(root: string): string[] {
  const ignored = ignoredFolders(root);
  const found: string[] = [];
  let level = [root];
  let looked = 0;
  for (let depth = 0; depth <= LIMITS.nestedMemoryDepth && level.length; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (looked++ >= LIMITS.nestedMemoryFolders) return found;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of entries) {
        const full = path.join(dir, e.name);
        if (e.isDirectory() && !skipped(e.name, ignored)) next.push(full);
        else if (dir !== root && e.isFile() && NESTED_NAMES.has(e.name)) {
          found.push(full);
          if (found.length >= LIMITS.nestedMemoryFiles) return found;
        }
      }
    }
    level = next;
  }
  return found;
}

/** Whether `file` is one of the workspace's memory files by the same rules as workspaceMemoryFiles (a watcher's event). */
export function isWorkspaceMemoryFile(root: string, file: string): boolean {
  if (!memoryFileType(file)) return false;
  const rel = path.relative(root, file);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return false;
  const folders = rel.split(path.sep).slice(0, -1);
  if (!NESTED_NAMES.has(path.basename(file)) || folders.length === 0 || (folders.length === 1 && folders[0] === '.claude')) return true;
  const ignored = ignoredFolders(root);
  return folders.length <= LIMITS.nestedMemoryDepth && !folders.some((f) => skipped(f, ignored));
}

/** Claude Code's name for a project's folder under ~/.claude/projects: its path, every character but letters and digits a "-". */
export const claudeProjectName = (folder: string): string => path.resolve(folder).replace(/[^A-Za-z0-9]/g, '-');

/** Where Claude Code keeps its auto memory for a workspace: named after the folder, or the repository it is in. */
export function autoMemoryFolders(workspace: string, claudeProjects: string): string[] {
  const names = new Set([workspace, gitRoot(workspace)].filter((f): f is string => !!f).map(claudeProjectName));
  return [...names].map((name) => path.join(claudeProjects, name, 'memory'));
}

/**
 * The person's own memory files for a workspace: ~/.claude/CLAUDE.md (global: for every project)
 * and Claude Code's auto memory of the workspace's project (`<claudeProjects>/<name>/memory/*.md`,
 * named after the workspace folder or the repository it is in). Read as the person's words.
 */
export function userMemoryFiles(
  workspace: string,
  home: string,
  claudeProjects = path.join(home, '.claude', 'projects'),
): { file: string; global: boolean }[] {
  const out: { file: string; global: boolean }[] = [];
  const global = path.join(home, '.claude', 'CLAUDE.md');
  if (isFile(global)) out.push({ file: global, global: true });
  for (const dir of autoMemoryFolders(workspace, claudeProjects)) {
    let entries: string[] = [];
    try {
      entries = fs.readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const n of entries) if (/\.md$/i.test(n) && isFile(path.join(dir, n))) out.push({ file: path.join(dir, n), global: false });
  }
  return out;
}
