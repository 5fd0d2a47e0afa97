/**
 * Which project a folder belongs to: derived, never asked of a model. The key is the git remote
 * of the folder's repository, normalised (`github.com/owner/repo`), so two clones of one
 * repository share their memory; without a remote it is the folder itself (`dir:/abs/path`).
 * `.git/config` is read directly: no `git` process, and it works where git is not installed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Project {
  /** What episodes and facts are stored under: `host/owner/repo` or `dir:/abs/path`. */
  key: string;
  /** A short name for people: the repository's or the folder's. */
  name: string;
  /** The repository's root (or the folder, without one). */
  root: string;
}

/** The project of `dir`: its repository's remote (origin, else the first), else its repository root, else the folder. */
export function deriveProject(dir: string): Project {
  const start = path.resolve(dir);
  const root = gitRoot(start);
  const remote = root ? remoteOf(root) : undefined;
  const key = remote ? normaliseRemote(remote) : undefined;
  if (key) return { key, name: key.split('/').pop()!, root: root! };
  const folder = root ?? start;
  return { key: `dir:${folder}`, name: path.basename(folder) || folder, root: folder };
}

/** `p` with its links resolved, or undefined when it does not exist. */
export function realPath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * `file`'s path under `folder` when it is inside it, both taken through their links (a file not
 * there, just deleted or not yet made, by its folder's), else undefined: the bound a memory file's
 * anchors and a CLAUDE.md's imports are held to.
 */
export function pathWithin(folder: string, file: string): string | undefined {
  const f = realPath(file) ?? path.join(realPath(path.dirname(file)) ?? path.resolve(path.dirname(file)), path.basename(file));
  const rel = path.relative(realPath(folder) ?? path.resolve(folder), f);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : undefined;
}

/** The nearest folder at or above `dir` holding `.git` (a folder, or a file pointing at one). */
export function gitRoot(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

/** The git directory of a work tree: `.git` itself, or where a `.git` file (worktree, submodule) points. */
function gitDir(root: string): string | undefined {
  const dotGit = path.join(root, '.git');
  try {
    if (fs.statSync(dotGit).isDirectory()) return dotGit;
    const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'));
    return m ? path.resolve(root, m[1]!.trim()) : undefined;
  } catch {
    return undefined;
  }
}

/** The URL of `origin`, else of the first remote, from the repository's config. */
function remoteOf(root: string): string | undefined {
  let dir = gitDir(root);
  if (!dir) return undefined;
  // A linked worktree's git dir holds `commondir`: the config (and its remotes) live there.
  const common = path.join(dir, 'commondir');
  if (fs.existsSync(common)) dir = path.resolve(dir, fs.readFileSync(common, 'utf8').trim());
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, 'config'), 'utf8');
  } catch {
    return undefined;
  }
  const remotes = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const section = /^\s*\[\s*remote\s+"([^"]+)"\s*\]/.exec(line);
    if (section) current = section[1];
    else if (/^\s*\[/.test(line)) current = undefined;
    else if (current !== undefined) {
      const url = /^\s*url\s*=\s*(.+?)\s*$/.exec(line);
      if (url && !remotes.has(current)) remotes.set(current, url[1]!.replace(/^"(.*)"$/, '$1'));
    }
  }
  return remotes.get('origin') ?? remotes.values().next().value;
}

/**
 * `https://user:token@GitHub.com/o/r.git/`, `ssh://git@github.com:22/o/r`, `git@github.com:o/r.git`
 * all become `github.com/o/r`: scheme, credentials, port, `.git` and trailing slashes dropped, the
 * host lower-cased. A local path remote stays a path (`dir:`). Undefined for an empty URL.
 */
export function normaliseRemote(url: string): string | undefined {
  const u = url.trim();
  if (!u) return undefined;
  const clean = (p: string): string =>
    p
      .replace(/\\/g, '/')
      .replace(/\/+$/, '')
      .replace(/\.git$/i, '')
      .replace(/\/+$/, '')
      .replace(/^\/+/, '');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?([^/:]*)(?::\d*)?(\/.*)?$/i.exec(u);
  if (scheme) {
    if (scheme[1]!.toLowerCase() === 'file') return `dir:/${clean(scheme[3] ?? '')}`;
    return [scheme[2]!.toLowerCase(), clean(scheme[3] ?? '')].filter(Boolean).join('/');
  }
  // scp-like: [user@]host:path (not a Windows drive letter, not a path).
  const scp = /^(?:[^@/]+@)?([^/:]{2,}):(.+)$/.exec(u);
  if (scp) return `${scp[1]!.toLowerCase()}/${clean(scp[2]!)}`;
  return `dir:${path.resolve(u)}`;
}

/**
 * The project of a memory stored before projects existed, named after where it came from
 * (`source:claude-code`, `source:cli`): a person can move it (`recall project assign`).
 */
export function projectOfSource(source: string | null | undefined): string {
  const s = (source ?? '').replace(/\\/g, '/').toLowerCase();
  const kinds: [RegExp, string][] = [
    [/\/\.claude\/projects\//, 'claude-code'],
    [/\/chatsessions\//, 'copilot'],
    [/\/\.codex\//, 'codex'],
    [/saoudrizwan\.claude-dev/, 'cline'],
    [/rooveterinaryinc\.roo-cline/, 'roo-code'],
    [/\/\.specstory\//, 'specstory'],
    [/aider/, 'aider'],
  ];
  for (const [re, kind] of kinds) if (re.test(s)) return `source:${kind}`;
  if (/^[a-z][a-z0-9-]*$/.test(s)) return `source:${s}`;
  return s ? 'source:file' : 'source:unknown';
}

/**
 * What a read may see. Absent: every project. `{ project: K }`: project K and the person's own
 * (global) memory; `{ project: null }`: the global memory alone.
 */
export interface ProjectScope {
  project: string | null;
}

/** A read's scope from a query's project and scope: 'all' (or no project known) sees everything. */
export function scopeOf(project: string | null | undefined, scope: 'project' | 'all' | undefined): ProjectScope | undefined {
  if (scope === 'all' || project === undefined) return undefined;
  return { project };
}

/** The project of a folder a transcript names (its cwd): derived when the folder is here, else the folder itself. */
export function projectOfFolder(folder: string): string {
  // A Windows path read on another system is absolute all the same, not relative to this folder.
  const abs = path.win32.isAbsolute(folder) && !path.isAbsolute(folder) && /^[A-Za-z]:/.test(folder) ? folder : path.resolve(folder);
  return fs.existsSync(abs) ? deriveProject(abs).key : `dir:${abs}`;
}
