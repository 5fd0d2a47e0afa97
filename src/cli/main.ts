/**
 * The `recall` command: a person's way into a memory. It is a client of the memory service like
 * every other surface; its corrections carry human authority because a person typed them.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryError } from '../core/model/errors.js';
import { MemoryClient } from '../service/rpc/client.js';
import { resolveMemoryFolder, socketPath } from '../service/rpc/paths.js';
import { runningServicePid, stopService } from '../service/rpc/launch.js';
import { PRIOR_KINDS } from '../core/model/config.js';
import { RETRIEVAL_MODES } from '../service/rpc/protocol.js';
import * as render from '../tools/render.js';
import { workspaceRoot } from '../core/anchors/workspace.js';
import { USAGE, UsageError } from './usage.js';
import { chooseProject, runProject } from './project.js';
import { renderSync, runSync } from './sync.js';
import { ingestPaths } from './ingest.js';
import * as reads from './reads.js';
import { exportMemory, refuseExportInto } from './transfer.js';
import { exitAfterOutput, runHook, STDIO } from './hook.js';
import { runHooks } from './hooks-install.js';
import { runRule } from './rules.js';
import { runRemember } from './remember.js';

const OPTIONS = {
  memory: { type: 'string' },
  entity: { type: 'string', multiple: true },
  source: { type: 'string' },
  session: { type: 'string' },
  limit: { type: 'string' },
  history: { type: 'boolean' },
  json: { type: 'boolean' },
  since: { type: 'string' },
  until: { type: 'string' },
  depth: { type: 'string' },
  evidence: { type: 'string', multiple: true },
  prior: { type: 'string' },
  wrong: { type: 'boolean' },
  confirm: { type: 'boolean' },
  'same-as': { type: 'string' },
  reason: { type: 'string' },
  out: { type: 'string' },
  data: { type: 'string' },
  k: { type: 'string' },
  episodes: { type: 'string' },
  mode: { type: 'string' },
  model: { type: 'string' },
  'model-path': { type: 'string' },
  'allow-download': { type: 'boolean' },
  'write-docs': { type: 'boolean' },
  'one-memory': { type: 'boolean' },
  without: { type: 'string' },
  set: { type: 'string' },
  conversations: { type: 'string' },
  ranks: { type: 'boolean' },
  'long-turns': { type: 'string' },
  bursts: { type: 'boolean' },
  http: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  project: { type: 'string' },
  global: { type: 'boolean' },
  all: { type: 'boolean' },
  from: { type: 'string' },
  postgres: { type: 'string' },
  author: { type: 'string' },
  share: { type: 'string', multiple: true },
  tokens: { type: 'string' },
  list: { type: 'boolean' },
  scope: { type: 'string' },
  remove: { type: 'boolean' },
  file: { type: 'string' },
  name: { type: 'string' },
  npx: { type: 'boolean' },
  command: { type: 'string', multiple: true },
  path: { type: 'string', multiple: true },
  tool: { type: 'string', multiple: true },
  url: { type: 'string', multiple: true },
  instead: { type: 'string' },
  checked: { type: 'boolean' },
  kind: { type: 'string' },
  subject: { type: 'string' },
  cite: { type: 'string', multiple: true },
  sampling: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

const out = (s: string): void => void process.stdout.write(s.endsWith('\n') ? s : s + '\n');
const err = (s: string): void => void process.stderr.write(s.endsWith('\n') ? s : s + '\n');

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/\. To specify.*$/s, '.'));
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.help || !command || command === 'help') {
    out(USAGE);
    return command || values.help ? 0 : 2;
  }
  const memory = resolveMemoryFolder(values.memory);
  // Every command works in a project: what it writes lands there, what it reads sees it and the global memory.
  const here = chooseProject(values);
  const named = values.project !== undefined || values.global === true;
  const scope = values.all ? ('all' as const) : undefined;
  const connect = (): Promise<MemoryClient> =>
    MemoryClient.connect({
      memory,
      surface: 'cli',
      ...here,
      workspace: here.workspace ?? workspaceRoot(process.cwd()),
      serviceScript: path.join(__dirname, 'service.js'),
      log: err,
    });

  const withClient = async <T>(fn: (c: MemoryClient) => Promise<T>): Promise<T> => {
    const client = await connect();
    try {
      return await fn(client);
    } finally {
      client.close();
    }
  };
  const print = (json: unknown, text: () => string): void => out(values.json ? JSON.stringify(json, null, 2) : text());
  const read = (fn: (ctx: reads.ReadContext) => Promise<void>): Promise<number> =>
    withClient(async (client) => {
      await fn({ client, project: here.project, all: values.all === true, json: values.json === true, out, err });
      return 0;
    });

  switch (command) {
    case 'remember':
      return runRemember(args, values, withClient, out);
    case 'ingest':
      return ingestPaths(args, { json: values.json, project: here.project, named }, connect, out, err);
    case 'query': {
      const query = one(args, 'TEXT', 'query "which database did we choose?"');
      const mode = oneOf(values.mode, RETRIEVAL_MODES, 'mode');
      return read((ctx) => reads.query(ctx, { query, limit: int(values.limit, 'limit'), history: values.history, mode }));
    }
    case 'search': {
      const query = one(args, 'TEXT', 'search sqlite');
      return read((ctx) => reads.search(ctx, { query, limit: int(values.limit, 'limit') }));
    }
    case 'episodes': {
      if (args.length > 1) throw new UsageError('episodes takes at most one TEXT; quote it.');
      const limit = int(values.limit, 'limit');
      const filter = { query: args[0], since: values.since, until: values.until, session: values.session, source: values.source, limit };
      return read((ctx) => reads.episodes(ctx, filter));
    }
    case 'overview': {
      if (args.length) throw new UsageError('overview takes no arguments; use --limit N for its size.');
      const limit = int(values.limit, 'limit');
      return read((ctx) => reads.overview(ctx, limit));
    }
    case 'traverse': {
      const entity = one(args, 'ENTITY', 'traverse Recall --depth 2');
      const r = await withClient((c) => c.call('traverse', { entity, depth: int(values.depth, 'depth'), history: values.history, scope }));
      print(r, () => render.renderTraverse(r));
      return 0;
    }
    case 'relate': {
      if (args.length !== 3) throw new UsageError('relate needs SUBJECT PREDICATE OBJECT, e.g. relate Recall uses sql.js');
      const prior = oneOf(values.prior, PRIOR_KINDS, 'prior');
      const [subject, predicate, object] = args as [string, string, string];
      const r = await withClient((c) => c.call('relate', { subject, predicate, object, evidence: values.evidence, prior }));
      print(r, () => r.id);
      return 0;
    }
    case 'correct': {
      const id = one(args, 'RELATIONSHIP_ID', 'correct --wrong rel_12');
      const same = values['same-as'];
      if ([values.wrong, values.confirm, same !== undefined].filter(Boolean).length !== 1)
        throw new UsageError('correct needs exactly one of --wrong, --confirm or --same-as KEPT_ID.');
      if (same !== undefined) {
        if (values.reason !== undefined) throw new UsageError('--same-as takes no --reason: the item it names is the reason.');
        const r = await withClient((c) => c.call('correct', { id, verdict: 'same', as: same }));
        print(r, () => `${id} said the same as ${r.id}; its evidence is ${r.id}'s now:\n${render.renderFact(r)}`);
        return 0;
      }
      const r = await withClient((c) => c.call('correct', { id, verdict: values.wrong ? 'wrong' : 'confirm', reason: values.reason }));
      print(r, () => render.renderFact(r));
      return 0;
    }
    case 'alias': {
      if (args[0] !== 'remove' || args.length !== 3)
        throw new UsageError('Expected: recall alias remove ENTITY ALIAS, e.g. recall alias remove Joanna Jo');
      const r = await withClient((c) => c.call('unalias', { entity: args[1]!, alias: args[2]! }));
      print(r, () => `Removed "${args[2]}" from ${render.renderEntity(r)}`);
      return 0;
    }
    case 'forget': {
      const entity = one(args, 'ENTITY', 'forget "Old Project" --confirm');
      if (!values.confirm) {
        const plan = await withClient((c) => c.call('forget.plan', { entity }));
        print(plan, () => `${render.renderForgetPlan(plan)}\n\nNothing was removed. To erase all of this, run again with --confirm.`);
        return 0;
      }
      const done = await withClient((c) => c.call('forget', { entity }));
      print(
        done,
        () => `Forgot "${done.entity.name}": ${done.relationships.length} relationship(s), ${done.episodes.length} episode(s) erased.`,
      );
      return 0;
    }
    case 'status': {
      const r = await withClient((c) => c.call('status', {}));
      print(r, () =>
        [
          `memory        ${r.memory}`,
          `episodes      ${r.episodes}`,
          `entities      ${r.entities}`,
          `relationships ${r.relationships} (${r.current_relationships} current)`,
          `last write    ${r.last_write ?? 'never'}`,
          `redactions    ${r.redactions} secret(s) kept out of the memory`,
          `embeddings    ${render.renderEmbeddings(r)}`,
          `service       pid ${r.service_pid}, up since ${r.service_started}, ${r.clients} client(s), version ${r.version}`,
          `journal       ${r.journal_bytes} bytes; snapshot ${r.snapshot_bytes} bytes (${r.events_since_snapshot} event(s) since)`,
          ...(r.recovered ? [`recovered     ${r.recovered}`] : []),
          `sync          ${renderSync(r.sync)}`,
        ].join('\n'),
      );
      return 0;
    }
    case 'export': {
      if (args.length) throw new UsageError('export takes no arguments; use --out FILE to write a file.');
      if (named && values.all)
        throw new UsageError('export takes --project NAME, --global or --all (the whole memory, also the default), not two.');
      if (values.out !== undefined) refuseExportInto(memory, values.out);
      // --project P and --global export that part of the memory alone; without them, or with --all, the whole memory.
      const project = named ? here.project : undefined;
      await withClient((c) => exportMemory(c, { history: values.history, out: values.out, project }, err));
      return 0;
    }
    case 'service':
      return service(args, values, memory, connect);
    case 'project':
      return runProject(args, values, here, withClient, out);
    case 'rule':
    case 'rules':
      return runRule(args, values, { project: here.project, named }, withClient, out);
    case 'embeddings': {
      if (args.length > 1) throw new UsageError('embeddings takes one of: on, off, status.');
      const { runEmbeddings } = await import('./embeddings.js');
      return runEmbeddings({
        action: args[0],
        modelPath: values['model-path'],
        model: values.model,
        allowDownload: values['allow-download'],
        json: values.json,
        memory,
        connect,
        out,
        err,
      });
    }
    case 'sync': {
      return runSync({
        action: args[0],
        target: args[1],
        extra: args.slice(2),
        postgres: values.postgres,
        author: values.author,
        projects: values.share,
        json: values.json,
        memory,
        connect,
        out,
        err,
      });
    }
    case 'mcp': {
      if (args.length) throw new UsageError('mcp takes no arguments; use --http [--port N] [--host H] [--token-file F] for HTTP.');
      const { runMcp } = await import('./mcp.js');
      return runMcp(
        {
          memory,
          http: values.http,
          port: values.port,
          host: values.host,
          token: values.token,
          tokenFile: values['token-file'],
          sampling: values.sampling,
          ...here,
        },
        err,
      );
    }
    case 'setup': {
      const { runSetup } = await import('./setup.js');
      return runSetup({ ...values, args, memory: values.memory }, out, err);
    }
    case 'bench': {
      const { runBench } = await import('./bench.js');
      return runBench(args, values, out, err);
    }
    case 'brief': {
      // Plain text on stdout: a Claude Code SessionStart hook adds it to the session's context.
      if (args.length) throw new UsageError('brief takes no arguments; use --tokens N for its size.');
      const r = await withClient((c) => c.call('brief', { budget_tokens: int(values.tokens, 'tokens') }));
      print(r, () => r.text);
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "${command}". Run \`recall --help\` for the list.`);
  }
}

async function service(args: string[], values: Values, memory: string, connect: () => Promise<MemoryClient>): Promise<number> {
  const action = args[0];
  const print = (json: unknown, text: string): void => out(values.json ? JSON.stringify(json) : text);
  switch (action) {
    case 'start': {
      const client = await connect();
      const s = await client.call('status', {});
      client.close();
      print({ running: true, pid: s.service_pid, memory }, `memory service running (pid ${s.service_pid}) for ${memory}`);
      return 0;
    }
    case 'stop': {
      const stopped = await stopService(memory);
      print({ running: false, stopped }, stopped ? `memory service for ${memory} stopped` : `no memory service was running for ${memory}`);
      return 0;
    }
    case 'status': {
      const pid = runningServicePid(memory);
      print(
        { running: pid !== undefined, pid: pid ?? null, memory, socket: socketPath(memory) },
        pid !== undefined ? `running (pid ${pid}) for ${memory}` : `not running for ${memory}`,
      );
      return 0;
    }
    default:
      throw new UsageError('service needs one of: start, stop, status.');
  }
}

function one(args: string[], what: string, example: string): string {
  if (args.length !== 1) throw new UsageError(`Expected one ${what} (quote it if it has spaces), e.g. recall ${example}`);
  return args[0]!;
}

/** An option that takes one of a few words: undefined when absent, a usage error when not one of them. */
function oneOf<T extends string>(v: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (v === undefined) return undefined;
  const found = allowed.find((a) => a === v);
  if (found === undefined) throw new UsageError(`--${name} is one of ${allowed.join(', ')}.`);
  return found;
}

function int(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got "${v}".`);
  return Number(v);
}

/**
 * `hook` and `hooks` read their own arguments (`--host`, `--project` as a scope): the command
 * after an optional `--memory DIR`, which is passed on.
 */
function ownArgs(argv: string[], command: string): string[] | undefined {
  const at = argv[0] === '--memory' ? 2 : 0;
  if (argv[at] !== command) return undefined;
  return [...argv.slice(at + 1), ...(at ? ['--memory', argv[1]!] : [])];
}

const hookArgv = ownArgs(process.argv.slice(2), 'hook');
const hooksArgv = ownArgs(process.argv.slice(2), 'hooks');
// exitCode, not exit(): exit() can cut off a large piped stdout mid-write.
if (hookArgv) void runHook(hookArgv, STDIO).then(exitAfterOutput);
else
  (hooksArgv ? runHooks(hooksArgv, out, err) : main(process.argv.slice(2))).then(
    (code) => (process.exitCode = code),
    (e: unknown) => {
      if (e instanceof UsageError) {
        err(`recall: ${e.message}\nRun \`recall --help\` for usage.`);
        return void (process.exitCode = 2);
      }
      if (e instanceof MemoryError) {
        err(`recall: ${e.message}${e.hint ? `\n${e.hint}` : ''}`);
        return void (process.exitCode = 1);
      }
      err(`recall: ${(e as Error).message ?? e}`);
      process.exitCode = 1;
    },
  );
