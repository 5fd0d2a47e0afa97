/**
 * The vscode-free half of chat-session auto-ingest (src/extension/ingest/common/transcript-files.ts):
 * which files are listed, which count as changed, and which turns of a grown session are still to be sent.
 * Real files in a temp folder and the shipped session fixtures; the state store is a Map, standing
 * in for VS Code's Memento (workspaceState / globalState), which needs a running VS Code.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { readTranscriptFile } from '../src/core/ingest/files';
import {
  listTranscripts,
  SeenFiles,
  SentTurns,
  TRANSCRIPT_PATTERNS,
  type StateStore,
} from '../src/extension/ingest/common/transcript-files';
import { tmpFolder } from './helpers';

const FIX = path.join(__dirname, 'fixtures');
const COPILOT_JSONL = '0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b.jsonl';
const CLAUDE = '7b3f0c2e-5d41-4e8a-9c6b-2f1d8a7e4b90.jsonl';
const REAL = path.join(FIX, 'real');
const realFixture = (rel: string): string => fs.readFileSync(path.join(REAL, rel), 'utf8');

const tmp = tmpFolder('auto-ingest');

/** A Map standing in for vscode.Memento; counts writes. */
class MapStore implements StateStore {
  readonly values = new Map<string, unknown>();
  writes = 0;
  get<T>(key: string): T | undefined {
    return structuredClone(this.values.get(key)) as T | undefined;
  }
  update(key: string, value: unknown): Promise<void> {
    this.writes++;
    this.values.set(key, structuredClone(value));
    return Promise.resolve();
  }
}

function folder(name: string, files: Record<string, string>): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

test('listTranscripts: depth 0 lists session files of the folder; depth 1 the files of its subfolders', async () => {
  const chat = folder('chatSessions', { 'a.json': '{}', 'b.JSONL': '', 'notes.txt': 'x', 'sub/c.json': '{}' });
  fs.mkdirSync(path.join(chat, 'dir.json'));
  const listed = await listTranscripts(chat, { depth: 0, extensions: ['.json', '.jsonl'] });
  assert.deepEqual(
    listed.map((f) => path.relative(chat, f.file)),
    ['a.json', 'b.JSONL'],
    'only files, extension case-insensitive, no subfolders',
  );
  assert.equal(listed[0]!.stamp.size, 2);
  assert.ok(listed[0]!.stamp.mtimeMs > 0);

  const projects = folder('projects', {
    'p1/s1.jsonl': '{}',
    'p1/deep/s2.jsonl': '{}',
    'p2/s3.jsonl': '',
    'top.jsonl': '',
    'p2/s4.json': '',
  });
  const claude = await listTranscripts(projects, { depth: 1, extensions: ['.jsonl'] });
  assert.deepEqual(
    claude.map((f) => path.relative(projects, f.file)),
    ['p1/s1.jsonl', 'p2/s3.jsonl'],
  );

  assert.deepEqual(
    await listTranscripts(path.join(tmp, 'missing'), { depth: 1, extensions: ['.jsonl'] }),
    [],
    'a missing folder lists nothing',
  );
});

test('SeenFiles: new, grown and touched files are changed; a recorded file is not, across instances (restarts)', async () => {
  const dir = folder('seen', { 'a.jsonl': 'one\n', 'b.jsonl': 'two\n' });
  const store = new MapStore();
  const key = 'recall.autoIngest.claudeCode:/mem';
  let files = await listTranscripts(dir, { depth: 0, extensions: ['.jsonl'] });
  let seen = new SeenFiles(store, key);
  assert.equal(seen.changed(files).length, 2, 'never seen: both changed');
  for (const f of files) await seen.record(f.file, f.stamp);

  seen = new SeenFiles(store, key); // a new window or a restart reads the same state
  assert.deepEqual(seen.changed(files), []);

  fs.appendFileSync(path.join(dir, 'a.jsonl'), 'three\n'); // grown
  const b = path.join(dir, 'b.jsonl');
  const t = new Date(Date.now() + 5000);
  fs.utimesSync(b, t, t); // same size, newer mtime (an edit that keeps the length)
  files = await listTranscripts(dir, { depth: 0, extensions: ['.jsonl'] });
  assert.deepEqual(
    seen.changed(files).map((f) => path.basename(f.file)),
    ['a.jsonl', 'b.jsonl'],
  );

  assert.equal(
    new SeenFiles(store, 'recall.autoIngest.claudeCode:/other-memory').changed(files).length,
    2,
    'another memory folder has stored nothing',
  );
});

test('SeenFiles.prune forgets deleted files and writes only when something went', async () => {
  const dir = folder('prune', { 'a.json': '{}', 'b.json': '{}' });
  const store = new MapStore();
  const seen = new SeenFiles(store, 'k');
  for (const f of await listTranscripts(dir, { depth: 0, extensions: ['.json'] })) await seen.record(f.file, f.stamp);
  const writes = store.writes;
  await seen.prune(await listTranscripts(dir, { depth: 0, extensions: ['.json'] }));
  assert.equal(store.writes, writes, 'nothing gone, nothing written');
  fs.rmSync(path.join(dir, 'b.json'));
  await seen.prune(await listTranscripts(dir, { depth: 0, extensions: ['.json'] }));
  assert.deepEqual(
    Object.keys(store.get<Record<string, unknown>>('k')!).map((f) => path.basename(f)),
    ['a.json'],
  );
});

test('SentTurns: a grown Copilot session sends only its new turns; an edited turn is sent again', () => {
  const lines = fs.readFileSync(path.join(FIX, 'copilot', COPILOT_JSONL), 'utf8').split('\n');
  const dir = path.join(tmp, 'grow');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, COPILOT_JSONL);
  fs.writeFileSync(file, lines.slice(0, 9).join('\n'));
  const sent = new SentTurns();
  const early = readTranscriptFile(file).episodes;
  assert.equal(early.length, 2);
  assert.deepEqual(sent.unsent(file, early), early, 'nothing sent yet');
  sent.remember(file, early);
  assert.deepEqual(sent.unsent(file, early), []);

  fs.writeFileSync(file, lines.join('\n'));
  const full = readTranscriptFile(file).episodes;
  const rest = sent.unsent(file, full);
  assert.deepEqual(
    rest.map((e) => e.ref),
    full.slice(2).map((e) => e.ref),
    'only the turns after the first two',
  );
  assert.equal(rest.length, 2);

  const edited = full.map((e, i) => (i === 0 ? { ...e, text: `${e.text} (edited)` } : e));
  assert.deepEqual(
    sent.unsent(file, edited).map((e) => e.text),
    [edited[0]!.text, ...rest.map((e) => e.text)],
  );
  assert.equal(sent.unsent(path.join(dir, 'other.jsonl'), early).length, 2, 'per file');
  sent.clear();
  assert.equal(sent.unsent(file, early).length, 2, 'cleared (another memory folder)');
});

test('the files auto-ingest finds parse as the right formats (Copilot JSON and JSONL, Claude Code)', async () => {
  const ws = folder('workspaceStorage', {});
  const chat = path.join(ws, 'chatSessions');
  fs.mkdirSync(chat, { recursive: true });
  for (const f of fs.readdirSync(path.join(FIX, 'copilot'))) fs.copyFileSync(path.join(FIX, 'copilot', f), path.join(chat, f));
  const projects = folder('claude-projects', {});
  fs.mkdirSync(path.join(projects, '-home-dana-ledger'));
  fs.copyFileSync(path.join(FIX, 'claude-code', CLAUDE), path.join(projects, '-home-dana-ledger', CLAUDE));

  const copilot = await listTranscripts(chat, { depth: 0, extensions: ['.json', '.jsonl'] });
  assert.equal(copilot.length, 3);
  for (const { file } of copilot) {
    const parsed = readTranscriptFile(file);
    assert.equal(parsed.format, 'copilot', file);
    assert.ok(parsed.episodes.length > 0);
    assert.ok(parsed.episodes.every((e) => (e.role === 'user' ? e.authority === 'user' : e.authority === 'agent') && e.session));
  }
  const [claude] = await listTranscripts(projects, { depth: 1, extensions: ['.jsonl'] });
  const parsed = readTranscriptFile(claude!.file);
  assert.equal(parsed.format, 'claude-code');
  assert.ok(!parsed.episodes.some((e) => e.text.includes('toolu_')), 'tool use is not a turn');
});

/** The person's turns at user authority, everyone else's at agent. */
function assertAuthorities(file: string, format: string, session: string): number {
  const parsed = readTranscriptFile(file, { allowEmpty: true });
  assert.equal(parsed.format, format, file);
  assert.ok(parsed.episodes.length > 0, file);
  for (const e of parsed.episodes) {
    assert.equal(e.session, session, file);
    assert.equal(e.authority, e.speaker === 'user' ? 'user' : 'agent', `${file}: ${e.speaker}`);
  }
  return parsed.episodes.length;
}

test('Cline and Roo Code: the api_conversation_history.json of each task folder, nothing else; the task is the session', async () => {
  const cline = realFixture('cline/feedback-resumption-api_conversation_history.slice.json');
  const tasks = folder('cline-global/tasks', {
    '1761234567890/api_conversation_history.json': cline,
    '1761234567890/ui_messages.json': realFixture('cline/gmfstu-ui_messages.slice.json'),
    '1761234567890/task_metadata.json': '{"files_in_context":[]}',
    '1761299999999/api_conversation_history.json': cline,
    '1761299999999/nested/api_conversation_history.json': cline,
    'api_conversation_history.json': cline,
  });
  for (const pattern of [TRANSCRIPT_PATTERNS.cline, TRANSCRIPT_PATTERNS.rooCode]) {
    const listed = await listTranscripts(tasks, pattern);
    assert.deepEqual(
      listed.map((f) => path.relative(tasks, f.file)),
      ['1761234567890/api_conversation_history.json', '1761299999999/api_conversation_history.json'],
    );
  }
  const [first] = await listTranscripts(tasks, TRANSCRIPT_PATTERNS.cline);
  assert.equal(assertAuthorities(first!.file, 'cline', '1761234567890'), 11);
});

test('Codex: rollout files three folders down (YYYY/MM/DD), not above or below', async () => {
  const long = realFixture('codex/long-session-slice.jsonl');
  const sessions = folder('codex-sessions', {
    '2026/11/30/rollout-2026-11-30T10-00-00-c61729d4.jsonl': long,
    '2026/12/01/rollout-2026-12-01T09-00-00-019b223e.jsonl': realFixture('codex/vscode-ide-context-turn-context.jsonl'),
    '2026/11/rollout-too-shallow.jsonl': long,
    '2026/11/30/extra/rollout-too-deep.jsonl': long,
    '2026/11/30/notes.txt': 'x',
  });
  const listed = await listTranscripts(sessions, TRANSCRIPT_PATTERNS.codex);
  assert.deepEqual(
    listed.map((f) => path.relative(sessions, f.file)),
    ['2026/11/30/rollout-2026-11-30T10-00-00-c61729d4.jsonl', '2026/12/01/rollout-2026-12-01T09-00-00-019b223e.jsonl'],
  );
  assertAuthorities(listed[0]!.file, 'codex', 'c61729d4-da6d-46a4-9a29-ec2c614e5e23');
  assertAuthorities(listed[1]!.file, 'codex', '019b223e-0dc7-7f72-94d5-2a5a495afaef');
});

test("SpecStory: the workspace's .specstory/history/*.md", async () => {
  const history = folder('workspace/.specstory/history', {
    '2026-11-30_10-00Z-ledger.md': realFixture('specstory/legacy-user-assistant.md'),
    '2026-11-30_11-00Z-think.md': realFixture('specstory/user-timestamp-think-details.md'),
    '.what-is-this.txt': 'SpecStory explainer',
  });
  const listed = await listTranscripts(history, TRANSCRIPT_PATTERNS.specstory);
  assert.deepEqual(
    listed.map((f) => path.basename(f.file)),
    ['2026-11-30_10-00Z-ledger.md', '2026-11-30_11-00Z-think.md'],
  );
  assertAuthorities(listed[0]!.file, 'specstory', '2026-11-30_10-00Z-ledger');
});
