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
import { claudeProjectName, workspaceMemoryFiles } from '../src/core/ingest/memory-files';
import { LIMITS } from '../src/core/model/limits';
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

function exported(
  memory: string,
): Promise<{ id: string; statement?: string; authority: string; status: string; project?: string | null }[]> {
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

/** The extension's reader of memory files started on the workspace `ws`, as the extension starts it. */
function readWorkspace(ws: string): { stop(): void; added: number } {
  ext.host.reset();
  ext.host.folders = [ws];
  const ctx = new ext.ctx.RecallExtension(context());
  // Told each time a read adds items (the extension asks a model then which items say the same).
  const told = { added: 0 };
  const files = new ext.memoryFiles.WorkspaceMemoryFiles(ctx, () => told.added++);
  return {
    get added() {
      return told.added;
    },
    stop: () => {
      files.dispose();
      ctx.dispose();
    },
  };
}

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

  const reading = readWorkspace(ws);
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

    assert.equal(reading.added, 1, 'the read that added items says so');
    const ask = facts.find((f) => f.statement!.startsWith('Always ask the developer'))!;
    fs.writeFileSync(agents, fs.readFileSync(agents, 'utf8').replace(/^- Always ask the developer.*\n/m, ''));
    watcher.change.fire(ext.vscode.Uri.file(agents));
    const retracted = async (id: string): Promise<boolean> => (await exported(memory)).find((f) => f.id === id)?.status === 'retracted';
    await eventually(() => retracted(ask.id));
    assert.ok(await retracted(ask.id), 'the line deleted: its item ends');
    assert.equal(reading.added, 1, 'a read that only ends items adds none');

    fs.rmSync(agents);
    watcher.delete.fire(ext.vscode.Uri.file(agents));
    const current = async (): Promise<number> => (await exported(memory)).filter((f) => f.status === 'current').length;
    await eventually(async () => (await current()) === 0);
    assert.equal(await current(), 0, 'the file deleted: every item it held ends');
    facts = await exported(memory);
    assert.equal(facts.length, 22, 'kept under history');
  } finally {
    reading.stop();
  }
});

const KFIX = path.join(__dirname, 'fixtures', 'knowledge', 'instructions');
const put = (root: string, rel: string, from: string): void => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.copyFileSync(from, path.join(root, rel));
};

test('nested AGENTS.md and CLAUDE.md are listed within bounds; dependencies, build output, ignored and hidden folders are not', () => {
  const ws = tmpFolder('mfx-nested');
  const rule = path.join(FIX, 'wxvx/AGENTS.md');
  for (const rel of [
    'AGENTS.md',
    'backend/CLAUDE.md',
    'packages/api/AGENTS.md',
    'packages/api/CLAUDE.local.md',
    'a/b/c/d/AGENTS.md', // four folders down: the deepest read
    'a/b/c/d/e/AGENTS.md',
    'node_modules/left-pad/AGENTS.md',
    'dist/CLAUDE.md',
    '.venv/lib/CLAUDE.md',
    'generated/CLAUDE.md',
    'docs/agents.md',
  ])
    put(ws, rel, rule);
  fs.writeFileSync(path.join(ws, '.gitignore'), '/generated/\n*.log\n');
  assert.deepEqual(
    workspaceMemoryFiles(ws).map((f) => path.relative(ws, f)),
    ['AGENTS.md', 'a/b/c/d/AGENTS.md', 'backend/CLAUDE.md', 'packages/api/AGENTS.md', 'packages/api/CLAUDE.local.md'],
  );
  // A tree of many packages: the shallowest files, up to the bound.
  for (let i = 0; i < LIMITS.nestedMemoryFiles + 10; i++) put(ws, `many/p${String(i).padStart(3, '0')}/AGENTS.md`, rule);
  const nested = workspaceMemoryFiles(ws).filter((f) => path.relative(ws, f).includes(path.sep));
  assert.equal(nested.length, LIMITS.nestedMemoryFiles);
  assert.ok(
    nested.some((f) => f.endsWith(path.join('backend', 'CLAUDE.md'))),
    'a shallow one is kept',
  );
  assert.ok(!nested.some((f) => f.includes(`${path.sep}d${path.sep}`)), 'the deepest go first when over the bound');
});

test('the extension reads nested files as the repository’s, and the person’s ~/.claude/CLAUDE.md and auto memory as theirs', async () => {
  const home = tmpFolder('mfx-home');
  const ws = tmpFolder('mfx-ws-nested');
  const memory = tmpFolder('mfx-memory-nested');
  const savedUserHome = process.env.HOME;
  process.env.HOME = home;
  process.env.RECALL_HOME = memory;
  git(ws, ['init', '-q']);
  // Real files (origins in test/fixtures/knowledge/SOURCES.md) where a monorepo keeps them.
  put(ws, 'backend/CLAUDE.md', path.join(KFIX, 'mozgoslav/backend/CLAUDE.md'));
  put(ws, 'frontend/CLAUDE.md', path.join(KFIX, 'mozgoslav/frontend/CLAUDE.md'));
  put(ws, 'node_modules/pkg/AGENTS.md', path.join(FIX, 'wxvx/AGENTS.md'));
  git(ws, ['add', '-f', '.']);
  git(ws, ['commit', '-q', '-m', 'rules']);
  // The person's own: a global CLAUDE.md (a real file's words) and Claude Code's notes for this project.
  put(home, '.claude/CLAUDE.md', path.join(KFIX, 'company-library/CLAUDE.md'));
  const notes = path.join(home, '.claude', 'projects', claudeProjectName(ws), 'memory', 'MEMORY.md');
  fs.mkdirSync(path.dirname(notes), { recursive: true });
  fs.writeFileSync(notes, '# Notes\n\n- Always run the backend tests with `--settings UnitTests.runsettings`.\n');
  const other = path.join(home, '.claude', 'projects', '-somewhere-else', 'memory', 'MEMORY.md');
  fs.mkdirSync(path.dirname(other), { recursive: true });
  fs.writeFileSync(other, '- Never deploy on Fridays.\n');

  const reading = readWorkspace(ws);
  try {
    const said = async (re: RegExp) => (await exported(memory)).find((f) => re.test(f.statement!));
    await eventually(
      async () => !!(await said(/Always run the backend tests/)) && !!(await said(/日本語で記述すること/)) && !!(await said(/plop/)),
    );
    const facts = await exported(memory);
    const backend = facts.find((f) => /^One class per file/.test(f.statement!));
    const frontend = facts.find((f) => /never hand-scaffold/.test(f.statement!));
    assert.ok(backend && frontend, ext.host.log.join('\n'));
    assert.deepEqual([backend.authority, frontend.authority], ['external', 'external'], 'committed by others: the repository’s');
    assert.ok(!facts.some((f) => /git commit/.test(f.statement!)), 'a dependency’s AGENTS.md is not read');
    assert.ok(!facts.some((f) => /Fridays/.test(f.statement!)), 'another project’s auto memory is not read');

    const global = facts.find((f) => /日本語で記述すること/.test(f.statement!))!;
    assert.deepEqual([global.authority, global.project], ['user', null], '~/.claude/CLAUDE.md: the person’s, for every project');
    const note = (await said(/Always run the backend tests/))!;
    assert.equal(note.authority, 'user', 'auto memory: the person’s');
    assert.equal(note.project, backend.project, 'in this workspace’s project');
    assert.notEqual(note.project, null);
    const watched = ext.host.watchers.map((w: any) => path.join(w.base, w.pattern));
    assert.ok(watched.includes(path.join(home, '.claude', 'CLAUDE.md')), 'the global file is watched');
    assert.ok(watched.includes(path.join(path.dirname(notes), '*.md')), 'this project’s auto memory is watched');
  } finally {
    reading.stop();
    if (savedUserHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedUserHome;
  }
});

test('the extension reads what a CLAUDE.md imports (`@path`) with it, at start, when the CLAUDE.md changes, and when an import does', async () => {
  const ws = tmpFolder('mfx-imports');
  const memory = tmpFolder('mfx-imports-memory');
  process.env.RECALL_HOME = memory;
  git(ws, ['init', '-q']);
  // pico-go-lan-robot's AGENTS.md (test/fixtures/knowledge, origin in its SOURCES.md) under a name no memory file has.
  put(ws, 'docs/claude/code-style.md', path.join(KFIX, 'pico-go-lan-robot', 'AGENTS.md'));
  const claude = path.join(ws, 'CLAUDE.md');
  fs.writeFileSync(claude, '# CLAUDE.md\n\n## Code Style Guidelines\n\n@docs/claude/code-style.md\n');

  const reading = readWorkspace(ws);
  try {
    const said = async (start: string): Promise<boolean> => (await exported(memory)).some((f) => f.statement!.startsWith(start));
    await eventually(() => said('Functions, modules, and files use `snake_case`'));
    assert.ok(await said('Functions, modules, and files use `snake_case`'), ext.host.log.join('\n'));
    assert.ok(
      ext.host.log.some((l: string) => l.includes('imported') && l.includes('code-style.md')),
      ext.host.log.join('\n'),
    );
    // A second import added to the CLAUDE.md is read when the CLAUDE.md changes.
    fs.writeFileSync(path.join(ws, 'docs/claude/testing.md'), '- Always flash the firmware with `mpremote` before a smoke test.\n');
    fs.appendFileSync(claude, '\n@docs/claude/testing.md\n');
    const watcher = ext.host.watchers.find((w: any) => w.base === ws);
    assert.ok(watcher, 'the workspace is watched');
    watcher.change.fire(ext.vscode.Uri.file(claude));
    await eventually(() => said('Always flash the firmware with `mpremote`'));
    assert.ok(await said('Always flash the firmware with `mpremote`'));

    // The imported file is watched itself: an edit is read, and its deletion ends its items.
    const testing = path.join(ws, 'docs/claude/testing.md');
    const importWatcher = (): any => {
      const w = ext.host.watchers.filter((x: any) => x.base === path.dirname(testing) && x.pattern === 'testing.md').at(-1);
      assert.ok(w, 'the import is watched');
      return w;
    };
    await eventually(async () => importWatcher() !== undefined);
    fs.writeFileSync(testing, '- Never run the smoke test on battery power.\n');
    importWatcher().change.fire(ext.vscode.Uri.file(testing));
    const status = async (start: string) => (await exported(memory)).find((f) => f.statement!.startsWith(start))?.status;
    await eventually(async () => (await status('Never run the smoke test on battery power')) === 'current');
    assert.equal(await status('Never run the smoke test on battery power'), 'current');
    assert.equal(await status('Always flash the firmware with `mpremote`'), 'retracted', 'the line it replaced ends');
    fs.rmSync(testing);
    importWatcher().delete.fire(ext.vscode.Uri.file(testing));
    await eventually(async () => (await status('Never run the smoke test on battery power')) === 'retracted');
    assert.equal(await status('Never run the smoke test on battery power'), 'retracted', 'the import deleted: its items end');

    // The CLAUDE.md stops importing the style guide (the file stays): its items end when the CLAUDE.md is read.
    fs.writeFileSync(claude, '# CLAUDE.md\n\nNo imports any more.\n');
    watcher.change.fire(ext.vscode.Uri.file(claude));
    const style = 'Functions, modules, and files use `snake_case`';
    await eventually(async () => (await status(style)) === 'retracted');
    assert.equal(await status(style), 'retracted', 'no longer imported: its items end');
  } finally {
    reading.stop();
  }
});
