/** Shared test plumbing: throwaway memory folders and the built `recall` CLI run as a real process. */
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Memory } from '../src/core/memory/memory';
import { parseTranscript } from '../src/core/ingest/detect';
import { JournaledGraph } from '../src/core/memory/journaled-graph';

export const ROOT = path.resolve(__dirname, '..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

const made: string[] = [];

/** A fresh memory folder, removed (and its service stopped) by `cleanupMemories`. */
export function tmpMemory(tag = 'mem'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `recall-test-${tag}-`));
  made.push(dir);
  return dir;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function recall(memory: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, '--memory', memory, ...args],
      { env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000', ...opts.env }, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs the CLI and fails loudly unless it exits 0. */
export async function recallOk(memory: string, args: string[]): Promise<string> {
  const r = await recall(memory, args);
  if (r.code !== 0) throw new Error(`recall ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

export async function recallJson<T = any>(memory: string, args: string[]): Promise<T> {
  return JSON.parse(await recallOk(memory, [...args, '--json'])) as T;
}

export function servicePid(memory: string): number | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(memory, 'service.lock'), 'utf8')).pid;
  } catch {
    return undefined;
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(cond: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Stops every service the tests started (SIGKILL is fine: that is what they must survive) and removes folders. */
export async function cleanupMemories(): Promise<void> {
  for (const dir of made.splice(0)) {
    const pid = servicePid(dir);
    if (pid && alive(pid)) {
      process.kill(pid, 'SIGTERM');
      await waitFor(() => !alive(pid), 5000, 'service exit').catch(() => process.kill(pid, 'SIGKILL'));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The store under a memory, for a test that checks or ages what is stored: the memory is closed
 * (with a snapshot, so the store opens as it was) and its folder opened as the journaled graph
 * Memory stands on. Close it when done.
 */
export async function reopenStore(memory: Memory): Promise<JournaledGraph> {
  memory.close({ snapshot: true });
  return JournaledGraph.open(memory.folder, memory.config, () => {});
}

export { spawn };

/** A fresh memory on disk holding one real transcript of test/fixtures/real (a path under it), and its turns' texts. */
export async function transcriptMemory(fixture: string): Promise<{ memory: Memory; texts: string[]; done: () => void }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-transcript-'));
  const memory = await Memory.open(folder);
  const parsed = parseTranscript(fs.readFileSync(path.join(__dirname, 'fixtures', 'real', fixture), 'utf8'), path.basename(fixture));
  memory.ingest(parsed.episodes, { authority: 'user', source: fixture });
  return {
    memory,
    texts: parsed.episodes.map((e) => e.text),
    done: () => {
      memory.close();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
