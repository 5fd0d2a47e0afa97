/**
 * `recall ingest` as a newcomer uses it, through the built CLI against a real memory: pointed at a
 * folder, at two copies of one session, at a session held in another folder, at a file that does not
 * say when it happened. Fixtures are the real public transcripts of test/fixtures/real.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTranscript } from '../src/core/ingest/detect';
import { MemoryClient } from '../src/service/rpc/client';
import { CLI, ROOT, tmpFolder } from './helpers';

const REAL = path.join(ROOT, 'test', 'fixtures', 'real');
const work = tmpFolder('ingest-folder');

function run(memory: string, cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [CLI, '--memory', memory, ...args],
      { cwd, env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    ),
  );
}

/** A folder under the test's work folder with the given fixtures (or texts) at the given paths. */
function folder(name: string, files: Record<string, string | { fixture: string }>): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [rel, what] of Object.entries(files)) {
    const to = path.join(dir, rel);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (typeof what === 'string') fs.writeFileSync(to, what);
    else fs.copyFileSync(path.join(REAL, what.fixture), to);
  }
  return dir;
}

test('recall ingest DIR walks the folder: transcripts stored and reported, other files left alone, a bad one exits 1', async () => {
  const memory = tmpFolder('walk');
  const dir = folder('walk', {
    'projects/-home-aiscend-work-vibelife/e37920e6.jsonl': { fixture: 'claude-code/meta-commands-synthetic-reply.jsonl' },
    'repo/.specstory/history/2025-04-27_21-51-project-initialization-task-for-minsky.md': {
      fixture: 'specstory/2025-04-27_21-51-project-initialization-task-for-minsky.md',
    },
    'repo/chat/architect.aider.chat.history.md': { fixture: 'aider/architect-echo-heading.aider.chat.history.md' },
    'repo/README.md': '# A project\n\nUser: not a chat, a README.\n',
    'repo/src/index.ts': 'export const x = 1;\n',
    'repo/node_modules/pkg/session.jsonl': '{"role":"user","content":"never read"}\n',
    'repo/old/broken.aider.chat.history.md': 'this file was cut off\n',
  });
  const r = await run(memory, work, ['ingest', dir]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /walk: 4 transcript file\(s\), 2 other file\(s\) left alone/);
  assert.match(r.stdout, /e37920e6\.jsonl: claude-code, 1 turns, 1 added/);
  assert.match(r.stdout, /2025-04-27_21-51-project-initialization-task-for-minsky\.md: specstory, 11 turns, 11 added/);
  assert.match(r.stdout, /architect\.aider\.chat\.history\.md: aider, 27 turns, 27 added/);
  assert.match(r.stdout, /total: 39 turns, 39 added, 0 already there; 1 of 4 files failed/);
  assert.match(r.stderr, /broken\.aider\.chat\.history\.md: not a transcript format Recall reads/);
  assert.doesNotMatch(r.stdout + r.stderr, /EISDIR|never read|README/);

  const empty = folder('no-transcripts', { 'notes.txt': 'just notes\n' });
  const none = await run(memory, work, ['ingest', empty]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no transcript found in this folder \(1 file\(s\) looked at\)[\s\S]*\.specstory\/history/);
});

test('the same session from two copies (the JSONL and a pretty-printed copy, two folders) is stored once', async () => {
  const memory = tmpFolder('copies');
  const a = folder('copies/a', { 'session.jsonl': { fixture: 'claude-code/queued-command-slice.jsonl' } });
  const b = folder('copies/b', { 'session-pretty.json': { fixture: 'claude-code/queued-command-slice.PRETTY-BUILT.json' } });
  const first = await run(memory, work, ['ingest', path.join(a, 'session.jsonl'), '--json']);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(JSON.parse(first.stdout).added, 6);
  const second = await run(memory, work, ['ingest', path.join(b, 'session-pretty.json')]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /session-pretty\.json: claude-code, 6 turns, 0 added, 6 already there/);
  const again = await run(memory, work, ['ingest', path.join(a, 'session.jsonl'), '--json']);
  assert.equal(JSON.parse(again.stdout).added, 0, 're-importing stays idempotent');
  const all = await run(memory, work, ['episodes', '--all', '--limit', '50', '--json']);
  assert.equal(JSON.parse(all.stdout).length, 6);
});

test('a file stored before turns had keys is not stored again when imported now', async () => {
  const memory = tmpFolder('legacy');
  const file = path.join(REAL, 'codex/long-session-slice.jsonl');
  // What an earlier version sent: the parsed turns, without keys (hashed on file name and line).
  const unkeyed = parseTranscript(fs.readFileSync(file, 'utf8'), file).episodes;
  const client = await MemoryClient.connect({ memory, surface: 'cli', serviceScript: path.join(ROOT, 'dist', 'service.js') });
  try {
    assert.equal((await client.call('ingest', { episodes: unkeyed })).added, 7);
  } finally {
    client.close();
  }
  const r = await run(memory, work, ['ingest', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /long-session-slice\.jsonl: codex, 7 turns, 0 added, 7 already there/);
});

test('the report names the project a file went to and why; a read that finds nothing here says where to look', async () => {
  const memory = tmpFolder('where');
  const here = folder('where-here', {});
  const file = path.join(REAL, 'claude-code/background-bash-task-notification.jsonl');
  const r = await run(memory, here, ['ingest', file]);
  assert.equal(r.code, 0, r.stderr);
  const held = JSON.parse(
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.includes('"cwd"'))!,
  ).cwd as string;
  assert.match(r.stdout, new RegExp(`in project dir:${held.replace(/[/\\]/g, '.')} \\(the folder it was held in, `));
  assert.match(r.stdout, /not in project dir:.*where-here where this folder's reads look: read them with --project dir:/);

  const q = await run(memory, here, ['query', 'discover页仍然报错']);
  assert.equal(q.code, 0, q.stderr);
  assert.match(q.stdout, /Nothing in memory matches/);
  assert.match(
    q.stdout,
    /Nothing in project dir:.*where-here or the global memory; \d+ in other projects \(dir:[^)]*\): run again with --project dir:/,
  );
  const e = await run(memory, here, ['episodes', '--json']);
  assert.deepEqual(JSON.parse(e.stdout), [], 'JSON keeps the answer as it is');
  assert.match(e.stderr, /in other projects/, 'and says where the rest is beside it');
  const there = await run(memory, here, ['query', 'discover页仍然报错', '--all', '--json']);
  assert.ok(JSON.parse(there.stdout).episodes.length > 0);

  const named = await run(memory, here, ['ingest', path.join(REAL, 'codex/legacy-bare-messages.jsonl'), '--global', '--json']);
  assert.deepEqual(
    JSON.parse(named.stdout).reports.map((x: { project: string | null; because: string }) => [x.project, x.because]),
    [[null, 'as named']],
  );
});

test('the report says how turns were dated: from the file, or by its modification time when it does not say', async () => {
  const memory = tmpFolder('dated');
  const dir = folder('dated', { 'team-sync.md': '**User:** should we move to Postgres?\n\n**Assistant:** Yes, for the JSON columns.\n' });
  const file = path.join(dir, 'team-sync.md');
  const when = new Date('2024-02-10T09:30:00Z');
  fs.utimesSync(file, when, when);
  const r = await run(memory, dir, ['ingest', file, path.join(REAL, 'aider/multiline-prompts.aider.chat.history.md')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /team-sync\.md: markdown, 2 turns[^\n]*\n {2}in project dir:[^;]*; 2 by its modification time \(the file does not say when\)/,
  );
  assert.match(r.stdout, /multiline-prompts\.aider\.chat\.history\.md: aider, 24 turns[^\n]*\n[^\n]*dated from the file/);
  const window = await run(memory, dir, ['episodes', '--since', '2024-02-10', '--until', '2024-02-10', '--json']);
  assert.deepEqual(
    JSON.parse(window.stdout).map((e: { time: string }) => e.time),
    [when.toISOString(), when.toISOString()],
  );
});

test('a turn over 32 KB is reported as suspect in the summary', async () => {
  const memory = tmpFolder('suspect');
  // Written here: one reply far longer than replies are, as a misread marker leaves one.
  const dir = folder('suspect', { 'long.md': `**User:** go\n\n**Assistant:** ${'a line of the reply\n'.repeat(2000)}` });
  const r = await run(memory, dir, ['ingest', path.join(dir, 'long.md')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /1 turn\(s\) over 32 KB \(line 3\): a speaker marker may have been misread/);
});
