/**
 * A check on a rule: a small structured condition on an agent's tool call, so a rule can be a
 * barrier, not only an instruction. Each kind lists patterns; a call meets the check when any
 * pattern of a kind that applies to it matches:
 * - `command`: shell commands, as words. The first word names the program (`npm` is not `pnpm`,
 *   `/usr/bin/git` is `git`); other words must appear in order, flags (`--force*`, `-f`) anywhere
 *   after the program, and `*` alone is any words. `-f` also matches a cluster such as `-fu`.
 *   `git push --force*` matches `git push origin main --force`, not `git push origin main`.
 * - `path`: files a call edits, globs from the workspace root (`src/generated/**`; a pattern
 *   without `/` matches a name at any depth; a folder named matches what is under it).
 * - `tool`: the tool's name (`WebFetch`, `mcp__github__*`), case-insensitive.
 * - `url`: URLs a call fetches: with a scheme the whole URL, else the host and path
 *   (`*.internal.example.com`).
 * `instead` says what to do instead ("pnpm"): shown with the decision, and a call of it counts as
 * following the rule. Pure: no I/O, no clock.
 */
import * as path from 'node:path';
import { invalid } from './errors.js';
import { LIMITS } from './limits.js';
import { commandsOf, programName, wordsOf } from './shell-words.js';

export const CHECK_KINDS = ['command', 'path', 'tool', 'url'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

export type Check = { [K in CheckKind]?: string[] } & { instead?: string };

/** Who set a rule's check: a person of this memory, a reading of the rule's statement, or another memory (team sync). */
export type CheckSetter = 'person' | 'statement' | 'peer';
export const CHECK_SETTERS: readonly CheckSetter[] = ['person', 'statement', 'peer'];

/**
 * What happened to a call a rule's check was about, recorded as evidence of its use (not of its
 * truth: confidence does not move): the agent kept to it, the person was asked, the call was
 * blocked, or the person let through a call they were asked about.
 */
export const CHECK_OUTCOMES = ['complied', 'asked', 'blocked', 'overridden'] as const;
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];

/** A tool call as checks see it (tool-call.ts reads each host's tool input into this). */
export interface ToolCall {
  tool: string;
  /** Shell command lines the call runs. */
  commands: string[];
  /** Files it touches, relative to the workspace root when inside it, with `/`. */
  paths: string[];
  /** Whether it writes those files (edit, create, delete, move); path checks apply only then. */
  edits: boolean;
  urls: string[];
}

export interface CheckMatch {
  kind: CheckKind;
  pattern: string;
  /** The part of the call that matched: a simple command, a path, a URL, the tool's name. */
  what: string;
}

/** A check as stored: every pattern trimmed and bounded, duplicates dropped; an invalid_input error says what is wrong. */
export function checkOf(v: unknown): Check {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw invalid('A check is an object: { command?, path?, tool?, url?: [patterns], instead? }.');
  const given = v as Record<string, unknown>;
  const unknown = Object.keys(given).filter((k) => !(CHECK_KINDS as readonly string[]).includes(k) && k !== 'instead');
  if (unknown.length) throw invalid(`A check has no "${unknown[0]}"; it takes command, path, tool, url and instead.`);
  const out: Check = {};
  let total = 0;
  for (const kind of CHECK_KINDS) {
    const list = given[kind];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw invalid(`The check's ${kind} is a list of patterns.`);
    const patterns = [...new Set(list.map((p) => pattern(p, kind)))];
    if (patterns.length) out[kind] = patterns;
    total += patterns.length;
  }
  if (total === 0) throw invalid('A check needs at least one pattern.', 'e.g. --command "git push --force*" or --path "src/generated/**".');
  if (total > LIMITS.checkPatterns) throw invalid(`A check has ${total} patterns; at most ${LIMITS.checkPatterns}.`);
  if (given.instead !== undefined) {
    const instead = pattern(given.instead, 'instead');
    out.instead = instead;
  }
  return out;
}

function pattern(v: unknown, kind: string): string {
  if (typeof v !== 'string' || !v.trim()) throw invalid(`A ${kind} pattern is a non-empty text.`);
  const p = v.trim();
  if (p.length > LIMITS.checkPatternChars)
    throw invalid(`A ${kind} pattern has ${p.length} characters; at most ${LIMITS.checkPatternChars}.`);
  if (/[\u0000-\u001f\u007f]/.test(p)) throw invalid(`A ${kind} pattern is one line of text.`);
  if (kind === 'command' && wordsOf(p).length === 0) throw invalid(`The command pattern "${p}" names no program.`);
  return p;
}

/** "command `git push --force*` or `git push -f`; path `src/generated/**`" */
export function describeCheck(c: Check): string {
  const kinds = CHECK_KINDS.filter((k) => c[k]?.length).map((k) => `${k} ${c[k]!.map((p) => `\`${p}\``).join(' or ')}`);
  return kinds.join('; ') + (c.instead ? ` (instead: ${c.instead})` : '');
}

/** The first pattern of the check the call meets, if any. */
export function matchCheck(check: Check, call: ToolCall): CheckMatch | undefined {
  for (const p of check.tool ?? []) if (glob(p, true).test(call.tool)) return { kind: 'tool', pattern: p, what: call.tool };
  for (const p of check.command ?? []) {
    const hit = commandHit(p, call.commands, false);
    if (hit) return { kind: 'command', pattern: p, what: hit };
  }
  if (call.edits)
    for (const p of check.path ?? []) {
      const hit = call.paths.find((f) => pathRegex(p).test(f));
      if (hit) return { kind: 'path', pattern: p, what: hit };
    }
  for (const p of check.url ?? []) {
    const hit = call.urls.find((u) => urlMatches(p, u));
    if (hit) return { kind: 'url', pattern: p, what: hit };
  }
  return undefined;
}

/**
 * Whether a call that does not meet the check is one the rule is about and it kept to: the same
 * program and words as a command pattern without its flags (`git push` under `git push --force*`),
 * or what the rule says to use instead.
 */
export function followsCheck(check: Check, call: ToolCall): boolean {
  if (matchCheck(check, call)) return false;
  const near = (check.command ?? []).map((p) =>
    wordsOf(p)
      .filter((w, i) => i === 0 || !w.startsWith('-'))
      .join(' '),
  );
  if (near.some((p) => p !== '' && commandHit(p, call.commands, true))) return true;
  return check.instead !== undefined && commandHit(check.instead, call.commands, true) !== undefined;
}

/** The simple command of the lines that a command pattern matches, joined as words. */
function commandHit(pattern: string, lines: string[], plain: boolean): string | undefined {
  const pw = wordsOf(pattern);
  if (pw.length === 0) return undefined;
  for (const line of lines)
    for (const words of commandsOf(line)) if (commandMatches(pw, words, plain)) return words.join(' ').slice(0, LIMITS.hookCallChars);
  return undefined;
}

function commandMatches(pw: string[], words: string[], plain: boolean): boolean {
  if (!glob(programName(pw[0]!), false).test(programName(words[0]!))) return false;
  const rest = words.slice(1);
  const end = rest.indexOf('--');
  const flags = (end < 0 ? rest : rest.slice(0, end)).filter(isFlag);
  const positionals = rest.filter((w, i) => (end >= 0 && i > end) || (!isFlag(w) && i !== end));
  let at = 0;
  for (const p of pw.slice(1)) {
    if (p === '*' || p === '**') continue;
    if (isFlag(p)) {
      if (plain) continue;
      if (!flags.some((f) => flagMatches(p, f))) return false;
      continue;
    }
    const re = glob(p, false);
    while (at < positionals.length && !re.test(positionals[at]!)) at++;
    if (at === positionals.length) return false;
    at++;
  }
  return true;
}

const isFlag = (w: string): boolean => w.length > 1 && w.startsWith('-') && w !== '--';

/** `-f` also matches a cluster of short flags that holds it (`-fu`, `-uf`). */
function flagMatches(p: string, flag: string): boolean {
  if (glob(p, false).test(flag)) return true;
  return /^-[A-Za-z0-9]$/.test(p) && /^-[A-Za-z0-9]{2,}$/.test(flag) && flag.includes(p[1]!);
}

const reEscape = (s: string): string => s.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** `*` any characters, `?` one; the whole text must match. */
function glob(p: string, ci: boolean): RegExp {
  const body = [...p].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : reEscape(c))).join('');
  return new RegExp(`^${body}$`, ci ? 'i' : '');
}

/** A path glob from the workspace root: `**` any folders, `*` within a name; a pattern without `/` matches at any depth. */
function pathRegex(p: string): RegExp {
  const pat = p.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  let re = '';
  for (let i = 0; i < pat.length; i++) {
    const c = pat[i]!;
    if (c === '*' && pat[i + 1] === '*') {
      if (pat[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i++;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += reEscape(c);
  }
  return new RegExp(`${pat.includes('/') ? '^' : '(?:^|/)'}${re}(?:/.*)?$`, 'i');
}

/**
 * A path as checks compare it: `/`-separated, `.` and `..` resolved, a relative one read from
 * `cwd` (default `root`), and relative to `root` when inside it.
 */
export function checkedPath(file: string, root: string | undefined, cwd = root): string {
  const slash = (p: string): string => p.replace(/\\/g, '/');
  const abs = (p: string): boolean => p.startsWith('/') || /^[A-Za-z]:\//.test(p);
  const f = slash(file);
  const base = cwd === undefined ? undefined : slash(cwd);
  const full = path.posix.normalize(abs(f) || base === undefined ? f : path.posix.join(base, f));
  const r = root === undefined ? undefined : slash(root).replace(/\/+$/, '');
  if (r && (full === r || full.startsWith(r + '/'))) return full.slice(r.length + 1) || '.';
  return full.replace(/^\.\//, '');
}

function urlMatches(p: string, url: string): boolean {
  if (p.includes('://')) return glob(p, true).test(url);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const target = p.includes('/') ? `${u.host}${u.pathname}${u.search}` : u.hostname;
  return glob(p, true).test(target);
}
