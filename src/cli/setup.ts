/**
 * `recall setup HOST`: puts Recall's MCP server into an agent host's configuration (setup-hosts.ts
 * says where and in which shape), merging into what is there; `--remove` takes that entry out
 * again. An entry of the same name that is not Recall's, or that a person changed, is never
 * overwritten or removed: setup says so and leaves the file as it was.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { workspaceRoot } from '../core/anchors/workspace.js';
import { SetupError, type Entry } from './setup-edit.js';
import { findHost, HOSTS, SCOPES, where, type Host, type Launch, type Scope, type Where } from './setup-hosts.js';
import { realTarget, writeConfigText } from '../service/config-text-file.js';
import { UsageError } from './usage.js';

/** The npm package that `npx -y` fetches. */
export const PACKAGE_NAME = 'recall-memory';
const DEFAULT_NAME = 'recall';

export interface SetupOptions {
  args: string[];
  list?: boolean;
  scope?: string;
  remove?: boolean;
  file?: string;
  name?: string;
  npx?: boolean;
  /** Only an explicit --memory goes into the entry; otherwise the host's own default applies. */
  memory?: string;
  json?: boolean;
}

type Out = (s: string) => void;

/** This CLI bundle: what a host runs when it is not reached through npx or the PATH. */
const thisCli = (): string => path.join(__dirname, 'cli.js');

export async function runSetup(opts: SetupOptions, out: Out, err: Out): Promise<number> {
  const w = where(workspaceRoot(process.cwd()));
  const name = opts.name ?? DEFAULT_NAME;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new UsageError('--name takes letters, digits, - and _ (at most 64).');
  if (opts.list) return list(w, name, opts.json === true, out);
  if (opts.args.length !== 1) {
    throw new UsageError(
      `setup needs one HOST: ${HOSTS.map((h) => h.id).join(', ')} (recall setup --list shows where each keeps its servers).`,
    );
  }
  const host = findHost(opts.args[0]!);
  if (!host) throw new UsageError(`Unknown host "${opts.args[0]}". Hosts: ${HOSTS.map((h) => h.id).join(', ')}.`);
  const scope = (opts.scope ?? 'user') as Scope;
  if (!SCOPES.includes(scope)) throw new UsageError('--scope is user or project.');
  const fileOf = host.files[scope];
  if (!fileOf) throw new UsageError(`${host.title} keeps its MCP servers only per user; use --scope user.`);
  const refused = opts.file ? undefined : host.refuse?.(w, scope);
  if (refused) {
    err(`recall setup: ${refused}`);
    return 1;
  }
  const file = opts.file ? path.resolve(opts.file) : fileOf(w, name);
  const launch = launchCommand({ npx: opts.npx, memory: opts.memory });
  const entry = host.entry(launch, name);
  const report = (action: string, lines: string[]): number => {
    if (opts.json) out(JSON.stringify({ host: host.id, scope, file, name, action, entry }, null, 2));
    else out([`${host.title} (${scope}): ${action}`, ...lines].join('\n'));
    return 0;
  };
  try {
    return opts.remove ? remove(host, scope, file, name, report, err) : add(host, scope, file, name, entry, launch, report, err);
  } catch (e) {
    if (!(e instanceof SetupError)) throw e;
    err(`recall setup: ${file}: ${e.message}\nThe entry for "${name}":\n${JSON.stringify(entry, null, 2)}`);
    return 1;
  }
}

type Report = (action: string, lines: string[]) => number;

function add(host: Host, scope: Scope, file: string, name: string, entry: Entry, launch: Launch, report: Report, err: Out): number {
  const text = readIfThere(file);
  const format = host.format(scope);
  const found = text === undefined ? undefined : format.find(text, name);
  if (found !== undefined) {
    if (isDeepStrictEqual(found, entry)) return report(`already set up in ${file}; nothing changed.`, []);
    err(
      isRecallEntry(found)
        ? `recall setup: ${file} already has "${name}", starting Recall another way (${show(found)}); it was left as it is. ` +
            `Run \`recall setup ${host.id}${scope === 'project' ? ' --scope project' : ''} --remove\` first to replace it, or pass --name.`
        : `recall setup: ${file} already has a server called "${name}" that is not Recall (${show(found)}); it was left as it is. Pass --name to add Recall beside it.`,
    );
    return 1;
  }
  writeConfigText(file, format.add(text, name, entry));
  return report(`${text === undefined ? 'created' : 'added the MCP server "' + name + '" to'} ${file}`, [
    ...(text === undefined ? [`  with the MCP server "${name}"`] : []),
    `  runs:   ${commandLine(launch)}`,
    `  memory: ${launch.args.includes('--memory') ? launch.args[launch.args.indexOf('--memory') + 1] : 'the default (~/.recall, or $RECALL_HOME as the host sees it)'}`,
    host.reload,
    ...(host.id === 'claude-code' ? claudeExtras(scope, name, launch) : []),
    `Undo: recall setup ${host.id}${scope === 'project' ? ' --scope project' : ''}${name === DEFAULT_NAME ? '' : ` --name ${name}`} --remove`,
  ]);
}

function remove(host: Host, scope: Scope, file: string, name: string, report: Report, err: Out): number {
  const text = readIfThere(file);
  const format = host.format(scope);
  const found = text === undefined ? undefined : format.find(text, name);
  if (text === undefined || found === undefined) return report(`nothing to remove: ${file} has no server called "${name}".`, []);
  if (!isRecallEntry(found)) {
    err(`recall setup: the server "${name}" in ${file} is not one setup wrote (${show(found)}); it was left as it is.`);
    return 1;
  }
  const next = format.remove(text, name);
  if (next === null) {
    fs.rmSync(realTarget(file));
    return report(`removed ${file} (it held only Recall's entry).`, []);
  }
  writeConfigText(file, next);
  return report(`removed the MCP server "${name}" from ${file}; the rest of the file is as it was.`, []);
}

function list(w: Where, name: string, json: boolean, out: Out): number {
  const rows = HOSTS.flatMap((host) =>
    SCOPES.filter((s) => host.files[s]).map((scope) => {
      const file = host.files[scope]!(w, name);
      let state: string;
      try {
        const text = readIfThere(file);
        const found = text === undefined ? undefined : host.format(scope).find(text, name);
        state =
          text === undefined
            ? 'no file'
            : found === undefined
              ? 'not set up'
              : isRecallEntry(found)
                ? 'set up'
                : `"${name}" is another server`;
      } catch (e) {
        state = e instanceof SetupError ? 'unreadable' : `unreadable (${(e as Error).message})`;
      }
      return { host: host.id, title: host.title, scope, file, state };
    }),
  );
  if (json) out(JSON.stringify(rows, null, 2));
  else {
    out('recall setup HOST [--scope user|project] [--remove]   (default scope: user)\n');
    for (const r of rows) out(`${r.host.padEnd(12)} ${r.scope.padEnd(8)} ${r.state.padEnd(12)} ${r.file}`);
  }
  return 0;
}

// ---- how the host starts Recall

/**
 * `npx -y recall-memory mcp` when asked or when this CLI itself runs from npx's cache; `recall mcp`
 * when the `recall` on the PATH is this CLI (a global install); else this Node and this bundle by
 * absolute path (a clone), which needs nothing on the PATH.
 */
export function launchCommand(opts: { npx?: boolean; memory?: string }): Launch {
  const tail = ['mcp', ...(opts.memory ? ['--memory', path.resolve(opts.memory)] : [])];
  const cli = thisCli();
  if (opts.npx || cli.split(path.sep).includes('_npx')) {
    const npx = ['npx', '-y', PACKAGE_NAME, ...tail];
    // On Windows npx is a .cmd script, which hosts cannot start directly.
    return process.platform === 'win32' ? { command: 'cmd', args: ['/c', ...npx] } : { command: npx[0]!, args: npx.slice(1) };
  }
  if (onPath('recall') === realpath(cli)) return { command: 'recall', args: tail };
  return { command: process.execPath, args: [cli, ...tail] };
}

function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const ext of process.platform === 'win32' ? ['.cmd', '.exe', ''] : ['']) {
      const candidate = path.join(dir, program + ext);
      if (fs.existsSync(candidate)) return realpath(candidate);
    }
  }
  return undefined;
}

const realpath = (p: string): string => {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
};

/** Whether an entry starts Recall's MCP server in one of the ways setup writes (whatever the host added beside). */
export function isRecallEntry(entry: Entry): boolean {
  const { command, args } = entry;
  if (typeof command !== 'string' || !Array.isArray(args) || !args.every((a) => typeof a === 'string')) return false;
  let argv = [command, ...(args as string[])];
  if (/^cmd(\.exe)?$/i.test(path.basename(command)) && argv[1]?.toLowerCase() === '/c') argv = argv.slice(2);
  const program = path.basename(argv[0] ?? '').replace(/\.(cmd|exe)$/i, '');
  let rest: string[];
  if (program === 'npx' && argv[1] === '-y' && new RegExp(`^${PACKAGE_NAME}(@\\S+)?$`).test(argv[2] ?? '')) rest = argv.slice(3);
  else if (program === 'recall') rest = argv.slice(1);
  else if (/^node/.test(program) && isRecallCli(argv[1])) rest = argv.slice(2);
  else return false;
  return rest[0] === 'mcp' && (rest.length === 1 || (rest.length === 3 && rest[1] === '--memory'));
}

/** This bundle, or the cli.js of another copy of this package (another clone or install). */
function isRecallCli(script: string | undefined): boolean {
  if (!script || path.basename(script) !== 'cli.js') return false;
  if (realpath(script) === realpath(thisCli())) return true;
  try {
    return JSON.parse(fs.readFileSync(path.join(path.dirname(script), '..', 'package.json'), 'utf8')).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

function claudeExtras(scope: Scope, name: string, launch: Launch): string[] {
  const brief = commandLine({ command: launch.command, args: launch.args.map((a) => (a === 'mcp' ? 'brief' : a)) });
  const hook = { hooks: { SessionStart: [{ matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: brief }] }] } };
  return [
    `The same with Claude Code's own command: claude mcp add --scope ${scope} ${name} -- ${commandLine(launch)}`,
    `Offered, not written: a SessionStart hook puts Recall's brief into every session. To have it, merge this into`,
    `${scope === 'project' ? '.claude/settings.json' : '~/.claude/settings.json'}:`,
    `  ${JSON.stringify(hook)}`,
    `Or have Recall write its hooks (that brief, and your rules checked before each tool runs): recall hooks install --claude --${scope}`,
  ];
}

// ---- files

function readIfThere(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SetupError(`it cannot be read (${(e as Error).message}).`);
  }
}

function commandLine(l: Launch): string {
  return [l.command, ...l.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

const show = (entry: Entry): string =>
  'command' in entry
    ? commandLine({ command: String(entry.command), args: ((entry.args as unknown[]) ?? []).map(String) })
    : JSON.stringify(entry);
