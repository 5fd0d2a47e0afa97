/**
 * `recall hook session-start|pre-tool-use|post-tool-use [--host claude|vscode|copilot] [--memory DIR]`:
 * what an agent host runs at a session's start, before each tool call and after it (a call that
 * ran after Recall asked about it was let through by the person: recorded as overridden). It
 * reads the host's JSON on stdin, asks the running memory service for the brief of the working
 * folder's project, or for a decision on the call from the project's rules with checks, and
 * answers in the host's shape (hook-hosts.ts). When no service runs, or it does not answer within
 * the deadline, the answer comes from the hooks' cache (hook-cold.ts) and a service is started for
 * the next call. A hook never breaks its host: without a cache, or on input it does not know, it
 * allows and adds nothing (empty stdout, exit 0) and says why on stderr. This file is also the
 * lean bundle's entry (dist/hook.js), so it imports only the client side of the service.
 */
import * as path from 'node:path';
import { LIMITS } from '../core/model/limits.js';
import { deriveProject } from '../core/model/project.js';
import { MemoryClient } from '../service/rpc/client.js';
import { isLiveOwner, readLock } from '../service/rpc/lock.js';
import { lockPath, resolveMemoryFolder } from '../service/rpc/paths.js';
import { answerFromCache, hookCallOf, type HookRequest } from './hook-cold.js';
import { HOOK_EVENTS, HOOK_HOSTS, type HookEvent, type HookHost } from '../core/model/hook-kinds.js';
import { preToolUseOutput, readHookInput, sessionStartOutput } from './hook-hosts.js';

/** Overrides the deadline (milliseconds), e.g. for a host with a tighter limit. */
const DEADLINE_ENV = 'RECALL_HOOK_DEADLINE_MS';
/** The longest a cold hook waits for the service it starts to be spawned (another may be starting it). */
const SPAWN_WAIT_MS = 150;

export interface HookIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  out: (s: string) => void;
  err: (s: string) => void;
}

const line = (s: string): string => (s.endsWith('\n') ? s : s + '\n');
export const STDIO: HookIo = {
  stdin: process.stdin,
  out: (s) => void process.stdout.write(line(s)),
  err: (s) => void process.stderr.write(line(s)),
};

/** Exits once stdout is flushed: a service start the deadline cut short must not hold the host. */
export function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

/** Parses the hook's own arguments; an unknown one is reported and the hook allows. */
export function hookArgs(argv: string[]): { event?: HookEvent; host?: HookHost; memory?: string; problem?: string } {
  const r: { event?: HookEvent; host?: HookHost; memory?: string; problem?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string | undefined => argv[++i];
    if (a === '--host') {
      const h = value();
      if (!HOOK_HOSTS.includes(h as HookHost)) return { problem: `--host is one of ${HOOK_HOSTS.join(', ')}` };
      r.host = h as HookHost;
    } else if (a === '--memory') r.memory = value();
    else if (!r.event && HOOK_EVENTS.includes(a as HookEvent)) r.event = a as HookEvent;
    else return { problem: `unknown argument "${a}" (expected ${HOOK_EVENTS.join(' or ')} [--host H] [--memory DIR])` };
  }
  if (!r.event) return { problem: `name the event: ${HOOK_EVENTS.join(' or ')}` };
  return r;
}

/** Runs one hook to its answer; always resolves 0 (a non-zero exit can block a host). */
export async function runHook(argv: string[], io: HookIo): Promise<number> {
  const started = Date.now();
  const args = hookArgs(argv);
  const say = (why: string): void => io.err(`recall hook: ${why}`);
  if (args.problem) {
    say(`${args.problem}; allowing, nothing added`);
    return 0;
  }
  const deadlineMs = Number(process.env[DEADLINE_ENV]) > 0 ? Number(process.env[DEADLINE_ENV]) : LIMITS.hookDeadlineMs;
  const state: { client?: MemoryClient; request?: HookRequest } = {};
  let timer: NodeJS.Timeout | undefined;
  const work = answer(args.event!, args, io, state);
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the memory service did not answer within ${deadlineMs} ms`), deadlineMs);
  });
  try {
    const result = await Promise.race([work.then((r) => r), late.then((why) => fromCache(state.request, why))]);
    if (result.why) say(`${result.why}${result.cached ? '; answered from the hooks cache' : '; allowing, nothing added'}`);
    if (result.text) io.out(result.text);
  } catch (e) {
    say(`${(e as Error).message}; allowing, nothing added`);
  } finally {
    clearTimeout(timer);
    state.client?.close();
  }
  if (process.env.RECALL_HOOK_TIMING) say(`answered in ${Date.now() - started} ms`);
  return 0;
}

interface HookResult {
  text: string;
  /** Why the answer is not the service's (it came from the cache, or is empty). */
  why?: string;
  cached?: boolean;
}

/** The cache's answer in place of the service's, or nothing when the input was not read yet. */
function fromCache(request: HookRequest | undefined, why: string): HookResult {
  if (!request) return { text: '', why };
  const cached = answerFromCache(request);
  return { text: cached.text, cached: cached.cached, why: cached.why ? `${why}; ${cached.why}` : why };
}

/**
 * The service's answer when one runs; else the cache's at once, and the service started for the
 * next call (a large memory takes seconds to open, more than a host should wait).
 */
async function answer(
  event: HookEvent,
  args: { host?: HookHost; memory?: string },
  io: HookIo,
  state: { client?: MemoryClient; request?: HookRequest },
): Promise<HookResult> {
  const payload = await readStdin(io.stdin);
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    throw new Error('the input is not JSON');
  }
  const input = readHookInput(event, parsed, args.host);
  if (!input) throw new Error(`the input is not a ${event} payload this reads`);
  const cwd = input.cwd && path.isAbsolute(input.cwd) ? input.cwd : process.cwd();
  const project = deriveProject(cwd);
  const request: HookRequest = {
    event,
    input,
    cwd,
    project: { key: project.key, root: project.root },
    memory: resolveMemoryFolder(args.memory),
  };
  state.request = request;
  const options = {
    memory: request.memory,
    surface: 'hook' as const,
    project: project.key,
    workspace: project.root,
    serviceScript: path.join(__dirname, 'service.js'),
  };
  let client = await MemoryClient.connect({ ...options, autostart: false }).catch(() => undefined);
  if (!client) {
    const cold = answerFromCache(request);
    if (cold.cached) {
      const holder = readLock(lockPath(request.memory));
      const starting = holder && isLiveOwner(holder) ? `pid ${holder.pid} is starting` : await startInBackground(options);
      return { ...cold, why: `no memory service answered (${starting})${cold.why ? `; ${cold.why}` : ''}` };
    }
    // Nothing to answer from yet (or what is there is older than the memory): wait for the service.
    client = await MemoryClient.connect(options);
  }
  state.client = client;
  try {
    if (event === 'session-start') {
      const brief = await client.call('brief', {});
      return { text: sessionStartOutput(input.host, brief.text) };
    }
    const decided = await client.call('hook.check', hookCallOf(request));
    return { text: event === 'pre-tool-use' ? preToolUseOutput(input.host, decided.decision, decided.reason) : '' };
  } catch (err) {
    return fromCache(request, `the memory service failed: ${(err as Error).message}`);
  }
}

/**
 * Starts the memory service and returns once it is spawned (it runs on, detached, after this
 * process exits), or after a moment when another process is starting it; resolves to what
 * happened, for the log.
 */
function startInBackground(options: Parameters<typeof MemoryClient.connect>[0]): Promise<string> {
  return new Promise((resolve) => {
    const done = (what: string): void => (clearTimeout(spawned), resolve(what));
    const spawned = setTimeout(() => done('started one for the next call'), SPAWN_WAIT_MS);
    const log = (msg: string): void => {
      // Logged just before the spawn, in the same turn: the next turn it has happened.
      if (msg.startsWith('starting the memory service')) setImmediate(() => done('started one for the next call'));
    };
    MemoryClient.connect({ ...options, log }).then(
      (c) => (c.close(), done('one started meanwhile')),
      (err: Error) => done(`it could not start: ${err.message}`),
    );
  });
}

/** All of stdin, up to the input limit (a larger payload is not one this reads). */
async function readStdin(stdin: HookIo['stdin']): Promise<string> {
  if (stdin.isTTY) throw new Error('nothing on stdin');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > LIMITS.hookInputBytes) throw new Error(`the input is over ${LIMITS.hookInputBytes} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
