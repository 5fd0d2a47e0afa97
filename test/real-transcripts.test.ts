/**
 * Real transcripts from public repositories (test/fixtures/real, origins in SOURCES.md): each is read
 * through the parsers and must give exactly the hand-counted turns and user turns (expected.json),
 * with only the person's turns at user authority and none of them at agent authority, dated from the
 * file when it says when; files that are no transcript must be errors. A few go through the real
 * CLI, with the error paths.
 */
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readTranscriptFile } from '../src/core/ingest/files';
import { parseTranscript } from '../src/core/ingest/detect';
import type { EpisodeInput } from '../src/core/model/events';
import { ROOT, tmpFolder, recall, recallJson } from './helpers';

interface Expected {
  format: string;
  turns: number;
  userTurns: number;
  sessions: number;
  dated: boolean;
  userTexts: string[];
}
const REAL = path.join(ROOT, 'test', 'fixtures', 'real');
const expected = JSON.parse(fs.readFileSync(path.join(REAL, 'expected.json'), 'utf8')) as Record<string, Expected>;
const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** User-authority turns that are none of the person's turns (by their opening words), and the person's turns found inside the agent's. */
function authorityErrors(episodes: EpisodeInput[], userTexts: string[]): { modelAsUser: string[]; personAsAgent: string[] } {
  const left = userTexts.map(flat);
  const modelAsUser: string[] = [];
  for (const e of episodes.filter((x) => x.authority === 'user')) {
    const at = left.findIndex((o) => flat(e.text).startsWith(o));
    if (at < 0) modelAsUser.push(flat(e.text).slice(0, 60));
    else left.splice(at, 1);
  }
  const agentText = episodes.filter((x) => x.authority !== 'user').map((x) => flat(x.text));
  return { modelAsUser, personAsAgent: left.filter((o) => agentText.some((t) => t.includes(o))) };
}

describe('real transcripts are read with the hand-counted turns', () => {
  for (const [file, want] of Object.entries(expected)) {
    if (want.format === 'none') {
      test(`${file} is refused with an error naming what was tried`, () => {
        assert.throws(() => readTranscriptFile(path.join(REAL, file)), /not a transcript format Recall reads|no turn was found/);
      });
      continue;
    }
    test(`${file}: ${want.turns} turns, ${want.userTurns} by the person`, () => {
      const { episodes, dating } = readTranscriptFile(path.join(REAL, file));
      const user = episodes.filter((e) => e.authority === 'user').length;
      assert.equal(episodes.length, want.turns, 'turns');
      assert.equal(user, want.userTurns, 'user turns');
      assert.deepEqual(authorityErrors(episodes, want.userTexts), { modelAsUser: [], personAsAgent: [] }, 'whose words');
      if (want.dated) assert.equal(dating?.modified, 0, 'a file that says when dates every turn itself');
      // aider's count includes a session whose only lines are commands: it has no turn to carry it.
      const sessions = new Set(episodes.map((e) => e.session)).size;
      assert.ok(
        sessions <= want.sessions && sessions >= Math.min(1, want.sessions),
        `sessions: expected ${want.sessions}, got ${sessions}`,
      );
      for (const e of episodes) {
        assert.ok(e.text.trim(), 'no empty turn');
        assert.equal(e.authority, e.role === 'user' ? 'user' : 'agent', 'only the person is user authority');
        if (e.time !== undefined) assert.ok(!Number.isNaN(Date.parse(e.time)), `a real time: ${e.time}`);
      }
    });
  }
});

test('no tool output, thinking or injected context reaches a stored turn', () => {
  const texts = Object.keys(expected)
    .filter((f) => expected[f]!.format !== 'none')
    .flatMap((f) => readTranscriptFile(path.join(REAL, f)).episodes);
  for (const e of texts) {
    assert.doesNotMatch(
      e.text,
      /<tool-use\b|<think>|<environment_context>|<task-notification>|\*\*Tool Response\*\*|\[\w+ for '[^']*'\] Result:/,
      e.text.slice(0, 80),
    );
  }
});

test('per-turn times and sessions come from the content, not the ingest clock or the file name alone', () => {
  const spec = readTranscriptFile(path.join(REAL, 'specstory/user-timestamp-think-details.md')).episodes;
  assert.equal(spec[0]!.time, '2025-10-14T22:25:00.000Z');
  const aider = readTranscriptFile(path.join(REAL, 'aider/multi-session-slice.aider.chat.history.md')).episodes;
  assert.equal(aider[0]!.time, new Date('2026-06-24T00:29:34').toISOString());
  assert.equal(aider.filter((e) => e.text.startsWith('/')).length, 0, 'aider commands are not turns');
  const codex = readTranscriptFile(path.join(REAL, 'codex/vscode-ide-context-turn-context.jsonl')).episodes;
  assert.equal(codex[0]!.session, '019b223e-0dc7-7f72-94d5-2a5a495afaef');
  assert.equal(codex[0]!.text, 'traduci README.dm in inflese', 'only the request, not the IDE context');
});

test('a Claude Code transcript committed pretty-printed is read like its JSONL', () => {
  const lines = fs.readFileSync(path.join(REAL, 'claude-code/queued-command-slice.jsonl'), 'utf8').split('\n').filter(Boolean);
  const pretty = lines.map((l) => JSON.stringify(JSON.parse(l), null, 2)).join('\n');
  const a = parseTranscript(lines.join('\n'), 'session.jsonl').episodes;
  const b = parseTranscript(pretty, 'session.json').episodes;
  assert.equal(a.length, 6);
  assert.deepEqual(
    b.map((e) => [e.authority, e.text]),
    a.map((e) => [e.authority, e.text]),
  );
});

test('error paths: empty, unknown, no turn; each says what was tried or what is missing', () => {
  assert.throws(() => parseTranscript('  \n', 'empty.md'), /empty\.md is empty/);
  assert.throws(
    () => parseTranscript('just some notes\nwith no speakers at all\n', 'notes.md'),
    (e: Error & { hint?: string }) =>
      /none of the speaker markers below/.test(e.message) &&
      /SpecStory \("_\*\*User\*\*_"/.test(e.hint ?? '') &&
      /Claude Code terminal text \("❯ " or "> " prompts with "● " or "⏺ " replies\)/.test(e.hint ?? '') &&
      /"\*\*User:\*\*" \/ "\*\*Model:\*\*" with "> " quoted bodies/.test(e.hint ?? ''),
  );
  assert.throws(
    () => parseTranscript('[{"a":1},{"b":2}]', 'data.json'),
    (e: Error & { hint?: string }) => /items are not messages with a "role"/.test(e.message) && /Copilot Chat/.test(e.hint ?? ''),
  );
  assert.throws(
    () => parseTranscript(fs.readFileSync(path.join(REAL, 'none/cline-task_metadata.json'), 'utf8'), 'task_metadata.json'),
    /api_conversation_history\.json/,
  );
  // A recognised format whose every line is tool noise: an error, not "0 turns".
  const noise = JSON.stringify({
    type: 'user',
    sessionId: 's',
    uuid: 'u',
    message: { role: 'user', content: [{ type: 'tool_result', content: 'ok' }] },
  });
  assert.throws(() => parseTranscript(noise, 'tools.jsonl'), /read as claude-code, but no turn was found in it \(1 part skipped/);
  // A watched session with no turn yet (auto-ingest) is not a failure.
  assert.equal(parseTranscript(noise, 'tools.jsonl', { allowEmpty: true }).episodes.length, 0);
  const emptyChat = JSON.stringify({ version: 3, sessionId: 'c1', requests: [] });
  assert.equal(parseTranscript(emptyChat, 'c1.json', { allowEmpty: true }).format, 'copilot');
  assert.throws(() => parseTranscript('{"hello": 1}', 'x.json', { allowEmpty: true }), /not a transcript format/);
});

test('a speaker whose role cannot be known is stored at agent authority', () => {
  const parsed = parseTranscript('**Dana:** ship it\n\n**Sam:** not yet\n\n**Dana:** why\n\n**Sam:** tests\n', 'meeting.md');
  assert.deepEqual(
    parsed.episodes.map((e) => e.authority),
    ['agent', 'agent', 'agent', 'agent'],
  );
  const headings = parseTranscript(
    '**User:** plan?\n\n**Assistant:** Here it is.\n\n## Summary\n\nStep one.\n\n**WARNING** careful\n',
    'chat.md',
  );
  assert.deepEqual(
    headings.episodes.map((e) => [e.authority, e.text.split('\n')[0]]),
    [
      ['user', 'plan?'],
      ['agent', 'Here it is.'],
    ],
    'headings and bold words inside a reply are not speakers',
  );
});

test('a markdown turn dated under its marker keeps that date; others keep the preamble date', () => {
  const md =
    '# Chat 2025-01-01\n\n## User\n> 12/1/2025, 12:39:01 AM\n\nhello\n\n## Assistant\n> 2025-12-01T00:40:00Z\nhi there\n\n## User\nno date\n';
  assert.deepEqual(
    parseTranscript(md, 'x.md').episodes.map((e) => [e.authority, e.time, e.text]),
    [
      ['user', new Date('12/1/2025, 12:39:01 AM').toISOString(), 'hello'],
      ['agent', '2025-12-01T00:40:00.000Z', 'hi there'],
      ['user', '2025-01-01', 'no date'],
    ],
  );
});

describe('the CLI stores the good files of a batch and reports each', () => {
  let memory: string;
  before(() => {
    memory = tmpFolder('real');
  });

  test('one bad file among good ones: the good are stored, every file reported, exit 1', async () => {
    const good = [
      'aider/multiline-prompts.aider.chat.history.md',
      'codex/long-session-slice.jsonl',
      'cline/feedback-resumption-api_conversation_history.slice.json',
    ];
    const bad = path.join(REAL, 'none/terminal-paste-gemini-startup.md');
    const r = await recall(memory, ['ingest', ...good.map((f) => path.join(REAL, f)), bad]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /multiline-prompts\.aider\.chat\.history\.md: aider, 24 turns, 24 added, 0 already there; \d+ parts? not turns/);
    assert.match(r.stdout, /long-session-slice\.jsonl: codex, 7 turns, 7 added/);
    assert.match(r.stdout, /api_conversation_history\.slice\.json: cline, 11 turns, 11 added/);
    assert.match(r.stdout, /total: 42 turns, 42 added, 0 already there; 1 of 4 files failed/);
    assert.match(r.stderr, /terminal-paste-gemini-startup\.md: not a transcript format Recall reads[\s\S]*Formats tried:/);
    const status = await recallJson(memory, ['status']);
    assert.equal(status.episodes, 42);
  });

  test('a file that yields nothing exits non-zero and stores nothing', async () => {
    const r = await recall(memory, ['ingest', '--json', path.join(REAL, 'none/cline-task_metadata.json')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /task_metadata\.json.*holds no conversation/);
    assert.deepEqual(JSON.parse(r.stdout).failed.length, 1);
  });
});
