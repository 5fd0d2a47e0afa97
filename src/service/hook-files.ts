/**
 * Recall's entries in an agent host's hook file, written without a host's own code (the CLI's
 * `recall hooks install` and the VS Code extension's offer share it): merged with what is there
 * (other hooks, other settings and their formatting are left as they are), never twice, and taken
 * out again exactly. Each host's documented file and shape:
 * - Claude Code: `.claude/settings.json` or `~/.claude/settings.json`, `hooks.<Event>` a list of
 *   `{ matcher, hooks: [{ type: "command", command, timeout }] }`;
 * - VS Code: `.github/hooks/*.json`, `hooks.<Event>` a list of `{ type: "command", command, timeout, env }`
 *   (its user hooks are read from Claude Code's user settings: use the Claude Code user file there);
 * - Copilot CLI: `.github/hooks/*.json` or `~/.copilot/hooks/*.json`, `{ version: 1, hooks:
 *   { preToolUse: [{ type: "command", bash, powershell, timeoutSec }] } }`; its sessionStart output is
 *   not read, so only preToolUse and postToolUse are installed.
 * PostToolUse tells that a call Recall asked about ran: the person let it through.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { applyEdits, modify, parse as parseJsonc, type ParseError } from 'jsonc-parser/lib/esm/main.js';
import type { HookEvent, HookHost } from '../core/model/hook-kinds.js';
import { writeConfigText } from './config-text-file.js';

/** A hook file that cannot be edited safely: nothing was written, the message says why. */
export class HookFileError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Seconds the host gives the hook; the hook answers within its own deadline, well inside it. */
const HOST_TIMEOUT_S = 10;

/** Inside desktop VS Code the runtime is Electron, which runs as plain Node only with this set. */
const AS_NODE = 'ELECTRON_RUN_AS_NODE';
/** What the runtime needs in its environment to run the hook bundle: nothing for Node. */
export const RUNTIME_ENV: Readonly<Record<string, string>> = process.versions.electron ? { [AS_NODE]: '1' } : {};

export interface Target {
  file: string;
  /** The host's event name for each of ours it runs. */
  events: Partial<Record<HookEvent, string>>;
  /** The entry to add under an event, given the command line. */
  entry: (command: string, event: HookEvent) => Obj;
  /** A new file's other top-level fields. */
  header?: Obj;
}

/**
 * A host's hook file and entries. `env` is what the runtime running the hooks needs (RUNTIME_ENV):
 * VS Code's entries carry it in their documented `env`, so the command runs in any shell (Windows
 * included); Claude Code's and Copilot CLI's have no such field, so it opens their command lines.
 */
export function targetOf(
  host: HookHost,
  scope: 'project' | 'user',
  root: string,
  home: string,
  env: Readonly<Record<string, string>> = RUNTIME_ENV,
): Target {
  const posix = Object.entries(env)
    .map(([k, v]) => `${k}=${quote(v)} `)
    .join('');
  if (host === 'claude')
    return {
      file: scope === 'user' ? path.join(home, '.claude', 'settings.json') : path.join(root, '.claude', 'settings.json'),
      events: { 'session-start': 'SessionStart', 'pre-tool-use': 'PreToolUse', 'post-tool-use': 'PostToolUse' },
      entry: (command, event) => ({
        ...(event === 'session-start' ? {} : { matcher: '*' }),
        hooks: [{ type: 'command', command: posix + command, timeout: HOST_TIMEOUT_S }],
      }),
    };
  if (host === 'vscode') {
    if (scope === 'user')
      throw new HookFileError(
        "VS Code reads a person's own hooks from Claude Code's user settings: run `recall hooks install --claude --user`.",
      );
    return {
      file: path.join(root, '.github', 'hooks', 'recall.json'),
      events: { 'session-start': 'SessionStart', 'pre-tool-use': 'PreToolUse', 'post-tool-use': 'PostToolUse' },
      entry: (command) => ({ type: 'command', command, timeout: HOST_TIMEOUT_S, ...(Object.keys(env).length ? { env: { ...env } } : {}) }),
    };
  }
  return {
    file:
      scope === 'user' ? path.join(home, '.copilot', 'hooks', 'recall.json') : path.join(root, '.github', 'hooks', 'recall-copilot.json'),
    events: { 'pre-tool-use': 'preToolUse', 'post-tool-use': 'postToolUse' },
    entry: (command) => ({
      type: 'command',
      bash: posix + command,
      powershell: Object.entries(env)
        .map(([k, v]) => `$env:${k}='${v}'; `)
        .join('')
        .concat(`& ${command}`),
      timeoutSec: HOST_TIMEOUT_S,
    }),
    header: { version: 1 },
  };
}

/** Whether a command line is one of Recall's hooks (any host, any memory, any install folder). */
export function isRecallHook(command: unknown): boolean {
  return (
    typeof command === 'string' &&
    /hook\.js["']? (?:session-start|pre-tool-use|post-tool-use) --host (?:claude|vscode|copilot)\b/.test(command)
  );
}

const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`);

/**
 * The command a host runs: this runtime and the lean hook bundle (by default the one beside this
 * bundle), by absolute path. What the runtime needs in its environment the target adds (targetOf).
 */
export function hookCommand(event: HookEvent, host: HookHost, opts: { memory?: string; script?: string } = {}): string {
  const script = opts.script ?? path.join(fs.realpathSync(__dirname), 'hook.js');
  const words = [process.execPath, script, event, '--host', host, ...(opts.memory ? ['--memory', path.resolve(opts.memory)] : [])];
  return words.map(quote).join(' ');
}

/** Whether an event's list entry is ours (Claude Code nests the command in a group). */
function ours(entry: unknown): boolean {
  if (!isObj(entry)) return false;
  if (Array.isArray(entry.hooks)) return entry.hooks.length > 0 && entry.hooks.every((h) => isObj(h) && isRecallHook(h.command));
  return isRecallHook(entry.command) || isRecallHook(entry.bash);
}

function read(file: string): { text: string | undefined; root: Obj } {
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new HookFileError(`${file} cannot be read: ${(e as Error).message}`);
  }
  if (text === undefined || !text.trim()) return { text: undefined, root: {} };
  const errors: ParseError[] = [];
  const root: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length || !isObj(root))
    throw new HookFileError(`${file} is not a JSON object; fix it or add the hooks by hand. Nothing was written.`);
  if (root.hooks !== undefined && !isObj(root.hooks))
    throw new HookFileError(`${file} has "hooks" that is not an object. Nothing was written.`);
  return { text, root };
}

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

/** The edited text, checked by reading it back: it must hold exactly `expected`, else nothing is written. */
function edit(file: string, text: string, pathTo: (string | number)[], value: unknown, expected: Obj): string {
  const next = applyEdits(text, modify(text, pathTo, value, FORMAT));
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(parseJsonc(next))), JSON.parse(JSON.stringify(expected))))
    throw new HookFileError(`Editing ${file} would have changed more than Recall's hooks, so nothing was written.`);
  return next;
}

function write(file: string, text: string | null): void {
  if (text === null) return fs.rmSync(file, { force: true });
  writeConfigText(file, text.endsWith('\n') ? text : text + '\n');
}

/** Adds each event's entry that is not there yet; returns the events added. */
export function install(t: Target, command: (e: HookEvent) => string): string[] {
  const { text: original, root } = read(t.file);
  let text = original ?? '';
  let now: Obj = original ? root : { ...(t.header ?? {}) };
  const added: string[] = [];
  for (const [event, name] of Object.entries(t.events) as [HookEvent, string][]) {
    const hooks = isObj(now.hooks) ? now.hooks : undefined;
    const list = hooks?.[name];
    if (list !== undefined && !Array.isArray(list)) throw new HookFileError(`${t.file}: hooks.${name} is not a list. Nothing was written.`);
    if (list?.some(ours)) continue;
    const entry = t.entry(command(event), event);
    const next: Obj = { ...now, hooks: { ...(hooks ?? {}), [name]: [...(list ?? []), entry] } };
    if (original)
      text = list ? edit(t.file, text, ['hooks', name, list.length], entry, next) : edit(t.file, text, ['hooks', name], [entry], next);
    now = next;
    added.push(name);
  }
  if (added.length) write(t.file, original ? text : JSON.stringify(now, null, 2));
  return added;
}

/** Takes out Recall's entries (and the lists and file they leave empty); returns the events touched. */
export function uninstall(t: Target): string[] {
  const { text: original, root } = read(t.file);
  if (!original || !isObj(root.hooks)) return [];
  let text = original;
  let now: Obj = root;
  const removed: string[] = [];
  for (const name of Object.keys(root.hooks)) {
    const list = (now.hooks as Obj)[name];
    if (!Array.isArray(list) || !list.some(ours)) continue;
    const kept = list.filter((e) => !ours(e));
    const hooks = { ...(now.hooks as Obj) };
    if (kept.length) hooks[name] = kept;
    else delete hooks[name];
    const next: Obj = { ...now, hooks };
    if (!kept.length) text = edit(t.file, text, ['hooks', name], undefined, next);
    else
      for (let i = list.length - 1; i >= 0; i--)
        if (ours(list[i])) text = edit(t.file, text, ['hooks', name, i], undefined, stepTo(now, name, list, i));
    now = next;
    removed.push(name);
  }
  if (!removed.length) return [];
  if (Object.keys(now.hooks as Obj).length === 0) {
    const { hooks: _gone, ...rest } = now;
    text = edit(t.file, text, ['hooks'], undefined, rest);
    now = rest;
  }
  const left = Object.keys(now).filter((k) => !(t.header && k in t.header && isDeepStrictEqual(now[k], t.header[k])));
  write(t.file, left.length ? text : null);
  return removed;
}

/**
 * Recall's entries whose hook script is gone (an update moved the extension to a new folder) run
 * `command` instead; returns the events re-pointed. Entries whose script is there are left alone.
 */
export function repoint(t: Target, command: (e: HookEvent) => string): string[] {
  const { text: original, root } = read(t.file);
  if (!original || !isObj(root.hooks)) return [];
  let text = original;
  let now: Obj = root;
  const moved: string[] = [];
  for (const [event, name] of Object.entries(t.events) as [HookEvent, string][]) {
    const list = (now.hooks as Obj)[name];
    if (!Array.isArray(list)) continue;
    const i = list.findIndex((e) => ours(e) && scriptGone(e as Obj));
    if (i < 0) continue;
    const entry = t.entry(command(event), event);
    const next: Obj = { ...now, hooks: { ...(now.hooks as Obj), [name]: list.map((e, j) => (j === i ? entry : e)) } };
    text = edit(t.file, text, ['hooks', name, i], entry, next);
    now = next;
    moved.push(name);
  }
  if (moved.length) write(t.file, text);
  return moved;
}

/** Whether an entry of ours runs a hook script that is no longer there. */
function scriptGone(entry: Obj): boolean {
  const commands = Array.isArray(entry.hooks) ? entry.hooks.map((h) => (isObj(h) ? h.command : undefined)) : [entry.command ?? entry.bash];
  return commands.some((c) => {
    const script = typeof c === 'string' ? scriptOf(c) : undefined;
    return script !== undefined && !fs.existsSync(script);
  });
}

/** The hook script a command line runs, unquoted as `quote` quoted it. */
function scriptOf(command: string): string | undefined {
  const m = command.match(/(?:^|\s)(?:"((?:[^"\\]|\\.)*?hook\.js)"|([^\s"]*hook\.js))(?=\s)/);
  return m ? (m[1]?.replace(/\\(.)/g, '$1') ?? m[2]) : undefined;
}

/** The file's content after removing entries from index `i` up (one edit of a removal from the end). */
function stepTo(now: Obj, name: string, list: unknown[], i: number): Obj {
  const rest = list.filter((e, j) => j < i || !ours(e));
  return { ...now, hooks: { ...(now.hooks as Obj), [name]: rest } };
}
