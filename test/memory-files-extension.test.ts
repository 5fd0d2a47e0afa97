/**
 * The extension reads the workspace's memory files at start and when they change
 * (src/extension/ingest/memory-files.ts): its own code, bundled against test/vscode-stub.ts (whose
 * file watchers the test fires as a file system would), with a real memory service and a real git
 * repository in a temp folder. Recall's own instructions file in the same workspace is never read.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { workspaceMemoryFiles } from '../src/core/ingest/memory-files';
import { loadExtension, type Bundle } from './extension-host';
import { CLI, ROOT, tmpFolder } from './helpers';

const FIX = path.join(__dirname, 'fixtures', 'memory-files');
const GIT_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const OWN = '.github/instructions/recall.instructions.md';

let ext: Bundle;
const savedHome = process.env.RECALL_HOME;
before(async () => (ext = await loadExtension()));
after(() => {
  if (savedHome === undefined) delete process.env.RECALL_HOME;
  else process.env.RECALL_HOME = savedHome;
});

const git = (cwd: string, args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=other@example.com', '-c', 'user.name=x', ...args], {
    cwd,
    env: { ...process.env, ...GIT_ENV },
    encoding: 'utf8',
  });

function exported(memory: string): Promise<{ id: string; statement?: string; authority: string; status: string }[]> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [CLI, '--memory', memory, 'export', '--history'],
      { env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => (err ? reject(err) : resolve((JSON.parse(stdout).facts as any[]).filter((f) => f.statement !== undefined))),
    ),
  );
}

/** Polls `cond` until it holds or the attempts run out (the extension reads a moment after an event, off the test's thread). */
async function eventually(cond: () => Promise<boolean>, attempts = 60): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await cond().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The parts of an ExtensionContext RecallExtension uses. */
const context = () => ({
  subscriptions: [] as { dispose(): unknown }[],
  extensionPath: ROOT,
  extensionUri: ext.vscode.Uri.file(ROOT),
  extension: { packageJSON: { version: 'test' } },
  globalState: { get: () => undefined, update: async () => {}, keys: () => [] },
  workspaceState: { get: () => undefined, update: async () => {}, keys: () => [] },
});

test('the workspace’s memory files are listed by where they sit; Recall’s own instructions and other files are not', () => {
  const ws = tmpFolder('mfx-list');
  for (const rel of ['AGENTS.md', '.cursor/rules/api/style.mdc', 'memory-bank/activeContext.md', OWN, 'README.md', 'docs/AGENTS.txt']) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), '- Use tabs everywhere.\n');
  }
  assert.deepEqual(
    workspaceMemoryFiles(ws).map((f) => path.relative(ws, f)),
    ['.cursor/rules/api/style.mdc', 'AGENTS.md', 'memory-bank/activeContext.md'],
  );
});

test('the extension reads them at start as their committers’ words, follows an edit, and ends a deleted file’s items', async () => {
  const ws = tmpFolder('mfx-ws');
  const memory = tmpFolder('mfx-memory');
  process.env.RECALL_HOME = memory;
  git(ws, ['init', '-q']);
  const agents = path.join(ws, 'AGENTS.md');
  fs.copyFileSync(path.join(FIX, 'wxvx/AGENTS.md'), agents);
  fs.mkdirSync(path.join(ws, '.github/instructions'), { recursive: true });
  fs.writeFileSync(path.join(ws, OWN), "---\napplyTo: '**'\n---\n- Before starting a task, always call #recallBrief first.\n");
  git(ws, ['add', '.']);
  git(ws, ['commit', '-q', '-m', 'rules']);

  ext.host.reset();
  ext.host.folders = [ws];
  const ctx = new ext.ctx.RecallExtension(context());
  const files = new ext.memoryFiles.WorkspaceMemoryFiles(ctx);
  try {
    await eventually(async () => (await exported(memory)).length >= 22);
    let facts = await exported(memory);
    assert.equal(facts.length, 22, ext.host.log.join('\n'));
    assert.ok(
      facts.every((f) => f.authority === 'external'),
      'committed by others: the repository’s words',
    );
    assert.ok(!facts.some((f) => /recallBrief/.test(f.statement!)), 'Recall’s own instructions are never read back');
    const watcher = ext.host.watchers.find((w: any) => w.base === ws);
    assert.ok(watcher && watcher.pattern.includes('AGENTS.md'), 'the workspace is watched for its memory files');

    const ask = facts.find((f) => f.statement!.startsWith('Always ask the developer'))!;
    fs.writeFileSync(agents, fs.readFileSync(agents, 'utf8').replace(/^- Always ask the developer.*\n/m, ''));
    watcher.change.fire(ext.vscode.Uri.file(agents));
    const retracted = async (id: string): Promise<boolean> => (await exported(memory)).find((f) => f.id === id)?.status === 'retracted';
    await eventually(() => retracted(ask.id));
    assert.ok(await retracted(ask.id), 'the line deleted: its item ends');

    fs.rmSync(agents);
    watcher.delete.fire(ext.vscode.Uri.file(agents));
    const current = async (): Promise<number> => (await exported(memory)).filter((f) => f.status === 'current').length;
    await eventually(async () => (await current()) === 0);
    assert.equal(await current(), 0, 'the file deleted: every item it held ends');
    facts = await exported(memory);
    assert.equal(facts.length, 22, 'kept under history');
  } finally {
    files.dispose();
    ctx.dispose();
  }
});
