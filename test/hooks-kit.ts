/**
 * Running the agent hooks as a host does, for the hook tests: the built bundle (dist/hook.js) as a
 * real process, each host's documented payloads (fixtures/hooks/payloads.json, origins in
 * fixtures/hooks/SOURCES.md), and reading the answer the way each host reads it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, ROOT, tmpFolder, type CliResult } from './helpers';

export const HOOK = path.join(ROOT, 'dist', 'hook.js');
export const FIXTURES = path.join(__dirname, 'fixtures', 'hooks');
const PAYLOADS = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'payloads.json'), 'utf8')) as Record<string, Record<string, object>>;
export const HOSTS = ['claude', 'vscode', 'copilot'] as const;
export type Host = (typeof HOSTS)[number];

/** A script run as the host runs it: stdin the payload, in `cwd`; a run past `timeoutMs` is killed. */
export function run(script: string, args: string[], o: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) {
  const started = Date.now();
  return new Promise<CliResult>((resolve) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: o.cwd,
      // A roomy deadline: these tests are about answers, not speed, on a busy machine.
      env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000', RECALL_HOOK_DEADLINE_MS: '30000', ...o.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr, ms: Date.now() - started });
    });
    child.stdin.end(o.stdin ?? '');
  });
}

export const payload = (host: Host, event: string, cwd: string, patch: Record<string, unknown> = {}): string =>
  JSON.stringify({ ...JSON.parse(JSON.stringify(PAYLOADS[host]![event]).replaceAll('$CWD', cwd)), ...patch });

export const hook = (memory: string, event: string, stdin: string, host?: Host, env?: NodeJS.ProcessEnv) =>
  run(HOOK, [event, ...(host ? ['--host', host] : []), '--memory', memory], { stdin, env });

/** The decision and reason a host reads from the hook's stdout (allow: nothing printed). */
export function decisionOf(host: Host, r: CliResult): { decision: string; reason: string } {
  assert.equal(r.code, 0, r.stderr);
  if (!r.stdout.trim()) return { decision: 'allow', reason: '' };
  const o = JSON.parse(r.stdout);
  if (host === 'copilot') return { decision: o.permissionDecision, reason: o.permissionDecisionReason };
  assert.equal(o.hookSpecificOutput.hookEventName, 'PreToolUse');
  return { decision: o.hookSpecificOutput.permissionDecision, reason: o.hookSpecificOutput.permissionDecisionReason };
}

export function contextOf(host: Host, r: CliResult): string {
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout);
  if (host === 'copilot') return o.additionalContext;
  assert.equal(o.hookSpecificOutput.hookEventName, 'SessionStart');
  return o.hookSpecificOutput.additionalContext;
}

/** A memory and a project folder (its key `dir:<folder>`), the service started by the first command. */
export function project(tag: string): { memory: string; cwd: string; cli: (args: string[]) => Promise<CliResult> } {
  const memory = tmpFolder(`${tag}-memory`);
  const cwd = tmpFolder(`${tag}-project`);
  return { memory, cwd, cli: (args) => run(CLI, ['--memory', memory, ...args], { cwd }) };
}

/** Runs a hook command line as a host does: through the shell, the payload on stdin. */
export function shell(command: string, stdin: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env: { ...process.env, RECALL_HOOK_DEADLINE_MS: '30000' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
    child.stdin.end(stdin);
  });
}
