/**
 * Plumbing for the fault suite: memories in temp folders, the real client library talking to the
 * built dist/service.js, and the checks every fault test ends with (every acknowledged write
 * present once, nothing hung). Everything started here is stopped in `cleanup`. Running the CLI,
 * reading a service's lock and a process's state are the other suites' (helpers.ts), re-exported.
 */
import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryClient } from '../../src/service/rpc/client';
import { alive, lockOf, ROOT, waitFor } from '../helpers';

export { alive, CLI, lockOf, procParent, procState, recall, ROOT, spawn, waitFor, type CliResult } from '../helpers';
export const SERVICE = path.join(ROOT, 'dist', 'service.js');

const folders: string[] = [];
const children: ChildProcess[] = [];
const cleanups: (() => void)[] = [];

export function tmpMemory(tag: string, base = os.tmpdir()): string {
  return trackMemory(fs.mkdtempSync(path.join(base, `recall-fault-${tag}-`)));
}

/** A memory folder made by the test itself (inside a tracked one): its service is stopped at cleanup too. */
export function trackMemory(dir: string): string {
  folders.push(dir);
  return dir;
}

/** A child process killed at cleanup (SIGKILL: nothing here needs a graceful end). */
export function track<T extends ChildProcess>(child: T): T {
  children.push(child);
  return child;
}

export function onCleanup(fn: () => void): void {
  cleanups.push(fn);
}

export async function connect(memory: string, startTimeoutMs = 20_000): Promise<MemoryClient> {
  return MemoryClient.connect({ memory, surface: 'cli', serviceScript: SERVICE, startTimeoutMs });
}

/** Runs `fn` with a fresh client, always closed. */
export async function withClient<T>(memory: string, fn: (c: MemoryClient) => Promise<T>): Promise<T> {
  const client = await connect(memory);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** Kills the folder's service outright and waits until it no longer runs (a zombie counts as gone). */
export async function killService(memory: string): Promise<number> {
  const pid = lockOf(memory)!.pid;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !alive(pid), 10_000, `service ${pid} to die`);
  return pid;
}

/** Every acknowledged text is in the export exactly once, and no id is used twice. */
export async function assertAllOnce(memory: string, acknowledged: string[]): Promise<{ episodes: { id: string; text: string }[] }> {
  const exported = await withClient(memory, (c) => c.call('export', {}));
  const count = new Map<string, number>();
  for (const e of exported.episodes) count.set(e.text, (count.get(e.text) ?? 0) + 1);
  for (const text of acknowledged)
    assert.equal(count.get(text), 1, `acknowledged "${text.slice(0, 60)}" should be there once, found ${count.get(text) ?? 0}`);
  const ids = exported.episodes.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, 'no id used twice');
  for (const [text, n] of count) assert.equal(n, 1, `"${text.slice(0, 60)}" stored ${n} times`);
  return exported;
}

export async function cleanup(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      fn();
    } catch (err) {
      process.stderr.write(`cleanup: ${(err as Error).message}\n`);
    }
  }
  const dirs = folders.splice(0);
  // Every service is dead before any folder goes: one still writing makes the removal fail.
  const services = dirs.map((dir) => lockOf(dir)?.pid).filter((pid): pid is number => !!pid && pid !== process.pid && alive(pid));
  for (const pid of services) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
  await waitFor(() => services.every((pid) => !alive(pid)), 10_000, 'the services to die');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** A connection that speaks the service's wire protocol by hand: what a client library would hide (hello, rid) is ours to send. */
export interface WireConnection {
  /** Sends one request; `extra` goes beside method and params (e.g. rid). Rejects on an error answer. */
  call(method: string, params?: object, extra?: object): Promise<any>;
  close(): void;
}

export async function wire(memory: string): Promise<WireConnection> {
  const socket = net.connect(lockOf(memory)!.socket!);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let buffered = '';
  socket.on('data', (chunk) => {
    buffered += chunk.toString('utf8');
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const msg = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      const p = pending.get(msg.id);
      if (!p) continue;
      pending.delete(msg.id);
      if (msg.error) p.reject(Object.assign(new Error(msg.error.message), { data: msg.error.data }));
      else p.resolve(msg.result);
    }
  });
  let nextId = 1;
  return {
    call: (method, params = {}, extra = {}) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params, ...extra }) + '\n');
      }),
    close: () => socket.destroy(),
  };
}
