/**
 * Shared test plumbing: throwaway folders and memories, cleaned up once a file's tests are done,
 * and the built `recall` CLI run as a real process. The fault suite adds its own (faults/kit.ts).
 */
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { parseTranscript } from '../src/core/ingest/detect';
import { JournaledGraph } from '../src/core/memory/journaled-graph';
import { Memory } from '../src/core/memory/memory';
import type { ConfigOverride } from '../src/core/model/config';
import type { EpisodeInput, Provenance } from '../src/core/model/events';
import { DEFAULT_RECIPE, type RetrievalRecipe } from '../src/core/retrieval/recipe';

export const ROOT = path.resolve(__dirname, '..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

const folders: string[] = [];
const steps: (() => unknown)[] = [];
const memories = new Set<Memory>();
const stores: JournaledGraph[] = [];

// Once per test file, after its tests: the file's own steps, then what was opened here, then the folders.
after(async () => {
  for (const step of steps.splice(0).reverse()) {
    try {
      await step();
    } catch (err) {
      process.stderr.write(`cleanup: ${(err as Error).message}\n`);
    }
  }
  for (const memory of memories) memory.close();
  memories.clear();
  for (const store of stores.splice(0)) store.close();
  for (const dir of folders.splice(0)) {
    const pid = lockOf(dir)?.pid;
    if (pid && pid !== process.pid && alive(pid)) {
      process.kill(pid, 'SIGTERM');
      await waitFor(() => !alive(pid), 5000, 'service exit').catch(() => process.kill(pid, 'SIGKILL'));
    }
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
});

/**
 * Runs `step` once the file's tests are done, before the folders are removed: close there the
 * clients and servers that use them (the last registered runs first).
 */
export function onCleanup(step: () => unknown): void {
  steps.push(step);
}

/** A fresh folder (its real path), removed after the file's tests; a memory service running in it is stopped first. */
export function tmpFolder(tag = 'tmp'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `recall-test-${tag}-`)));
  folders.push(dir);
  return dir;
}

export interface BuiltMemory {
  memory: Memory;
  folder: string;
  /** The turns' ids and texts, in the order given. */
  ids: string[];
  texts: string[];
}

/**
 * A memory in a fresh folder holding `turns`, or the turns of a real transcript (`fixture`: a path
 * under test/fixtures/real, stored with it as their source), ingested in one call as `by` sends
 * them (default: a person's conversation, `user`). It is closed and removed after the file's
 * tests: leave closing it to that, or to `reopenStore`.
 */
export async function memoryWith(
  turns: EpisodeInput[] | { fixture: string },
  opts: { config?: ConfigOverride; by?: Provenance; tag?: string } = {},
): Promise<BuiltMemory> {
  const folder = tmpFolder(opts.tag ?? 'memory');
  const memory = await Memory.open(folder, opts.config);
  memories.add(memory);
  const fixture = Array.isArray(turns) ? undefined : turns.fixture;
  const inputs = fixture
    ? parseTranscript(fs.readFileSync(path.join(__dirname, 'fixtures', 'real', fixture), 'utf8'), path.basename(fixture)).episodes
    : (turns as EpisodeInput[]);
  const by = opts.by ?? { authority: 'user', source: fixture ?? 'test' };
  const ids = inputs.length > 0 ? memory.ingest(inputs, by).results.map((r) => r.id) : [];
  return { memory, folder, ids, texts: inputs.map((t) => t.text) };
}

/** The i-th minute of 2024 as an ISO time: turns stamped with it keep the order they are given in. */
export const minute = (i: number): string => new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString();

/**
 * Turns of a conversation ([session, speaker, text], a minute apart) as its parsers give them:
 * each mentions its speaker (ingest/locomo.ts), unless `mentions` is false.
 */
export const conversation = (turns: [string, string, string][], mentions = true): EpisodeInput[] =>
  turns.map(([session, speaker, text], i) => ({ session, speaker, text, entities: mentions ? [speaker] : undefined, time: minute(i) }));

/** The episodes a question finds without the vector channel (keyword and graph), by text, with their scores, best first. */
export const keywordScores = (memory: Memory, query: string, recipe: RetrievalRecipe = DEFAULT_RECIPE, limit = 10): Map<string, number> =>
  new Map(
    memory
      .query({ query, limit, mode: 'keyword' }, { ...recipe, channels: { ...recipe.channels, vector: false } })
      .episodes.map((e) => [e.text, e.score ?? 0]),
  );

/** The texts of those episodes, best first. */
export const keywordTexts = (memory: Memory, query: string, recipe: RetrievalRecipe = DEFAULT_RECIPE, limit = 10): string[] => [
  ...keywordScores(memory, query, recipe, limit).keys(),
];

/**
 * The store under a memory made here, for a test that checks or ages what is stored: the memory is
 * closed (with a snapshot, so the store opens as it was) and its folder opened as the journaled
 * graph Memory stands on. Closed after the file's tests.
 */
export async function reopenStore(memory: Memory): Promise<JournaledGraph> {
  if (!memories.delete(memory)) throw new Error('reopenStore takes a memory made by memoryWith');
  memory.close({ snapshot: true });
  const store = await JournaledGraph.open(memory.folder, memory.config, () => {});
  stores.push(store);
  return store;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs the built CLI on `memory` (from `cwd`, whose project it then reads); a run that outlives
 * `timeoutMs` is killed (a hang fails, not stalls).
 */
export function recall(memory: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 180_000, cwd?: string): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, '--memory', memory, ...args],
      { cwd, env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000', ...env }, timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, ms: Date.now() - started }),
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

/** The memory service's lock file in a folder: its pid and how to reach it. */
export function lockOf(memory: string): { pid: number; nonce?: string; ticks?: number; socket?: string } | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(memory, 'service.lock'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether a process runs (a zombie, dead but not yet reaped, does not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return procState(pid) !== 'Z';
}

/** The kernel's state letter for a pid (Linux), e.g. S, R, Z. */
export function procState(pid: number): string | undefined {
  return statFields(pid)?.[0];
}

/** The pid's parent (Linux). */
export function procParent(pid: number): number | undefined {
  const ppid = statFields(pid)?.[1];
  return ppid === undefined ? undefined : Number(ppid);
}

/** /proc/<pid>/stat after the command name: state, ppid, ... */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

export async function waitFor(cond: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export { spawn };
