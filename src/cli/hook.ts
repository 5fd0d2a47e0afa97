/**
 * `recall hook session-start|pre-tool-use|post-tool-use [--host claude|vscode|copilot] [--memory DIR]`:
 * what an agent host runs at a session's start, before each tool call and after it (a call that
 * ran after Recall asked about it was let through by the person: recorded as overridden). It reads the host's JSON on
 * stdin, asks the memory service (started if none runs) for the brief of the working folder's
 * project, or for a decision on the call from the project's rules with checks, and answers in
 * the host's shape (hook-hosts.ts). A hook never breaks its host: when the memory cannot be
 * reached, does not answer within the deadline, or the input is not one it knows, it allows and
 * adds nothing (empty stdout, exit 0) and says why on stderr. This file is also the lean bundle's
 * entry (dist/hook.js), so it imports only the client side of the service.
 */
import * as path from 'node:path';
import { LIMITS } from '../core/model/limits.js';
import { deriveProject } from '../core/model/project.js';
import { MemoryClient } from '../service/rpc/client.js';
import { resolveMemoryFolder } from '../service/rpc/paths.js';
import {
  HOOK_EVENTS,
  HOOK_HOSTS,
  preToolUseOutput,
  readHookInput,
  sessionStartOutput,
  type HookEvent,
  type HookHost,
  type HookInput,
} from './hook-hosts.js';

/** Overrides the deadline (milliseconds), e.g. for a host with a tighter limit. */
const DEADLINE_ENV = 'RECALL_HOOK_DEADLINE_MS';

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
  let client: MemoryClient | undefined;
  let timer: NodeJS.Timeout | undefined;
  const work = answer(args.event!, args, io, (c) => (client = c));
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${deadlineMs} ms`), deadlineMs);
  });
  try {
    const result = await Promise.race([work.then((text) => ({ text })), late.then((why) => ({ why }))]);
    if ('why' in result) say(`${result.why}; allowing, nothing added`);
    else if (result.text) io.out(result.text);
  } catch (e) {
    say(`${(e as Error).message}; allowing, nothing added`);
  } finally {
    clearTimeout(timer);
    client?.close();
  }
  if (process.env.RECALL_HOOK_TIMING) say(`answered in ${Date.now() - started} ms`);
  return 0;
}

async function answer(
  event: HookEvent,
  args: { host?: HookHost; memory?: string },
  io: HookIo,
  opened: (c: MemoryClient) => void,
): Promise<string> {
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
  const client = await MemoryClient.connect({
    memory: resolveMemoryFolder(args.memory),
    surface: 'hook',
    project: project.key,
    workspace: project.root,
    serviceScript: path.join(__dirname, 'service.js'),
  });
  opened(client);
  if (event === 'session-start') {
    const brief = await client.call('brief', {});
    return sessionStartOutput(input.host, brief.text);
  }
  const decided = await client.call('hook.check', { ...callOf(input, cwd), event: event === 'pre-tool-use' ? 'pre' : 'post' });
  return event === 'pre-tool-use' ? preToolUseOutput(input.host, decided.decision, decided.reason) : '';
}

const callOf = (input: HookInput, cwd: string) => ({
  host: input.host,
  tool: input.tool!,
  input: input.input,
  session: input.session,
  call_id: input.callId,
  cwd,
});

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
