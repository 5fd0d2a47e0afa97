import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { isClaudeCodeJsonl, parseClaudeCode } from '../src/core/ingest/claude';
import { isCopilotChatSession, parseCopilotChat } from '../src/core/ingest/copilot';

const FIX = path.join(__dirname, 'fixtures');
const read = (...p: string[]): string => fs.readFileSync(path.join(FIX, ...p), 'utf8');

const CLAUDE_SESSION = '7b3f0c2e-5d41-4e8a-9c6b-2f1d8a7e4b90';
const claudeFile = `${CLAUDE_SESSION}.jsonl`;

test('Claude Code: user and assistant text turns, with session, uuid, time, role and authority', () => {
  const parsed = parseClaudeCode(read('claude-code', claudeFile), claudeFile);
  assert.equal(parsed.format, 'claude-code');
  assert.deepEqual(
    parsed.episodes.map((e) => e.role),
    ['user', 'assistant', 'assistant', 'user', 'assistant', 'user', 'user'],
  );
  for (const e of parsed.episodes) {
    assert.equal(e.session, CLAUDE_SESSION);
    assert.equal(e.source, claudeFile);
    assert.match(e.ref!, /^a1b2c3d4-0000-4000-8000-\d{12}$/, 'ref is the event uuid');
    assert.ok(e.time && !Number.isNaN(Date.parse(e.time)), 'time is the event timestamp');
    assert.equal(e.speaker, e.role);
    assert.equal(e.authority, e.role === 'assistant' ? 'agent' : 'user');
  }
  const first = parsed.episodes[0]!;
  assert.match(first.text, /^We use pnpm workspaces in this repo\./);
  assert.equal(first.time, '2025-06-03T09:14:30.118Z');
  assert.equal(first.ref, 'a1b2c3d4-0000-4000-8000-000000000004');
  // A system reminder appended to the person's text is not their words.
  assert.equal(parsed.episodes[3]!.text, "Looks good. Let's go with exponential backoff, max 3 attempts.");
  // An image part is dropped, its caption kept; a slash command keeps its arguments.
  assert.equal(parsed.episodes[5]!.text, 'Here is the Grafana panel: the 503s stopped after the deploy.');
  assert.equal(parsed.episodes[6]!.text, '/review focus on the retry logic');
});

test('Claude Code: tool noise, meta lines, sidechains, errors and a torn last line are skipped and counted', () => {
  const content = read('claude-code', claudeFile);
  const parsed = parseClaudeCode(content, claudeFile);
  const lines = content.split('\n').filter((l) => l.trim()).length;
  assert.equal(parsed.episodes.length + parsed.skipped, lines, 'every line is either a turn or counted as skipped');
  assert.equal(parsed.skipped, 17);
  const all = parsed.episodes.map((e) => e.text).join('\n');
  for (const noise of [
    'toolu_',
    'tool_result',
    'The file /home',
    'Caveat:',
    'local-command',
    '/clear',
    'API Error',
    'Found 3 callers',
    'interrupted',
    'system-reminder',
    'TodoWrite',
    'pnpm test --filter',
    'PASS src',
    'PostToolUse',
    'should read the client first',
    'Retry logic for the invoice client',
  ]) {
    assert.ok(!all.includes(noise), `"${noise}" must not be ingested`);
  }
  const agentFile = parseClaudeCode(read('claude-code', 'agent-9c41e0a2.jsonl'), 'agent-9c41e0a2.jsonl');
  assert.equal(agentFile.episodes.length, 0, 'a sub-agent transcript is all sidechain');
  assert.equal(agentFile.skipped, 3);
});

test('Claude Code: defensive on garbage and on lines without ids', () => {
  const garbage = [
    'not json',
    '{"type":"user"}',
    '[1,2]',
    'null',
    '{"type":"user","message":{"role":"user","content":42}}',
    '{"type":"assistant","message":{"role":"user","content":"role mismatch"}}',
    '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"x"}]}}',
  ].join('\n');
  const parsed = parseClaudeCode(garbage, 'broken.jsonl');
  assert.equal(parsed.episodes.length, 0);
  assert.equal(parsed.skipped, 7);
  const bare = parseClaudeCode('\n{"type":"user","message":{"role":"user","content":"hello there"}}\n', '/x/y/abc.jsonl');
  assert.equal(bare.episodes.length, 1);
  assert.equal(bare.episodes[0]!.session, 'abc', 'session falls back to the file name');
  assert.equal(bare.episodes[0]!.ref, 'line 2', 'ref falls back to the line');
  assert.equal(bare.episodes[0]!.time, undefined);
  assert.deepEqual(parseClaudeCode('', 'empty.jsonl'), { format: 'claude-code', episodes: [], skipped: 0 });
});

test('Claude Code detection: its own lines yes; generic JSONL, Copilot logs and garbage no', () => {
  const claude = read('claude-code', claudeFile);
  assert.equal(isClaudeCodeJsonl(claude.split('\n').slice(0, 5)), true);
  assert.equal(isClaudeCodeJsonl(claude), true);
  assert.equal(isClaudeCodeJsonl(read('claude-code', 'agent-9c41e0a2.jsonl')), true);
  assert.equal(isClaudeCodeJsonl('{"role":"user","text":"hi"}\n{"role":"assistant","text":"hello"}'), false);
  assert.equal(isClaudeCodeJsonl('{"speaker":"Dana","text":"hi","session":"s1"}'), false);
  assert.equal(isClaudeCodeJsonl(read('copilot', '0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b.jsonl')), false);
  assert.equal(isClaudeCodeJsonl(['garbage', '{']), false);
  assert.equal(isClaudeCodeJsonl([]), false);
});

const COPILOT_JSON = '6a1f9c3e-2b7d-4e0a-8c5f-1d2e3f4a5b6c.json';
const COPILOT_JSONL = '0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b.jsonl';

test('Copilot JSON session: a user and an assistant episode per request, with session, time and role', () => {
  const parsed = parseCopilotChat(read('copilot', COPILOT_JSON), COPILOT_JSON);
  assert.equal(parsed.format, 'copilot');
  assert.deepEqual(
    parsed.episodes.map((e) => [e.role, e.authority]),
    [
      ['user', 'user'],
      ['assistant', 'agent'],
      ['user', 'user'],
      ['assistant', 'agent'],
      ['user', 'user'],
    ],
  );
  for (const e of parsed.episodes) assert.equal(e.session, '6a1f9c3e-2b7d-4e0a-8c5f-1d2e3f4a5b6c');
  const [q, a, fix, done, canceled] = parsed.episodes;
  assert.equal(q!.text, 'Why does the settlement job run twice on Mondays?');
  assert.equal(q!.ref, 'request_3d0a6f8e-1c2b-4d5e-9f60-7a8b9c0d1e2f');
  assert.equal(q!.time, '2025-05-20T14:02:30.000Z');
  assert.equal(a!.ref, 'request_3d0a6f8e-1c2b-4d5e-9f60-7a8b9c0d1e2f/response');
  assert.equal(a!.time, '2025-05-20T14:02:36.120Z', 'the answer is dated at request time + totalElapsed');
  assert.equal(
    a!.text,
    'The cron expression in `scheduler.ts` is `0 2 * * 1,1-5`, so Monday matches both the list and the range. Use `0 2 * * 1-5` instead.',
  );
  assert.equal(fix!.text, 'Fix it and add a test in test/jobs/scheduler.test.ts');
  // Tool invocations, edits and code-block URIs are noise between two runs of prose.
  assert.equal(done!.text, 'I changed the schedule to weekdays only.\n\nAdded a test that checks Monday fires once.');
  // A canceled request keeps what the person said; its empty answer is skipped.
  assert.equal(canceled!.text, 'Actually, also make it skip bank holidays');
  // The system-initiated request (a terminal notification) is not the person's words.
  assert.ok(!parsed.episodes.some((e) => e.text.includes('exit code') || e.text === 'Tests pass.'));
  assert.equal(parsed.skipped, 3);
});

test('Copilot early export: string and object shapes, no ids, session from the file name and its first request', () => {
  const parsed = parseCopilotChat(read('copilot', 'early-export.json'), 'early-export.json');
  assert.deepEqual(
    parsed.episodes.map((e) => [e.ref, e.role, e.text]),
    [
      ['request 1', 'user', '@workspace where is the retry policy configured?'],
      ['request 1/response', 'assistant', 'The retry policy lives in `packages/http/src/retry.ts` and is read from `RETRY_MAX_ATTEMPTS`.'],
      ['request 2', 'user', 'and the default?'],
      ['request 2/response', 'assistant', 'Three attempts.'],
    ],
  );
  const session = parsed.episodes[0]!.session;
  assert.match(session!, /^early-export [0-9a-f]{12}$/);
  assert.ok(parsed.episodes.every((e) => e.session === session && e.time === undefined));
  assert.equal(parsed.skipped, 2, 'the empty third request: no message, no answer');
  // Two exports under VS Code's default name must not merge into one session.
  const other = parseCopilotChat(
    JSON.stringify({ responderUsername: 'GitHub Copilot', requests: [{ message: 'another chat' }] }),
    'early-export.json',
  );
  assert.notEqual(other.episodes[0]!.session, session);
});

test('Copilot JSONL operation log: replayed to its final state (splices, truncations, deletes), torn line skipped', () => {
  const content = read('copilot', COPILOT_JSONL);
  const parsed = parseCopilotChat(content, COPILOT_JSONL);
  assert.deepEqual(
    parsed.episodes.map((e) => [e.role, e.text]),
    [
      ['user', 'We use Vitest, not Jest. Convert test/ledger.spec.js please.'],
      [
        'assistant',
        'Converting the spec to Vitest: replacing `jest.fn` with `vi.fn` and importing from `vitest`.\n\nDone. Run `pnpm vitest run` to check.',
      ],
      ['user', 'Now the snapshot tests in test/snapshots too'],
      ['assistant', 'Converted 4 snapshot tests; `toMatchSnapshot` works the same in Vitest.'],
    ],
  );
  assert.ok(parsed.episodes.every((e) => e.session === '0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b'));
  assert.equal(parsed.episodes[0]!.time, '2025-11-02T08:30:05.000Z');
  assert.equal(parsed.episodes[1]!.time, '2025-11-02T08:30:17.000Z');
  assert.equal(
    parsed.episodes[2]!.ref,
    'request_11111111-aaaa-4bbb-8ccc-000000000003',
    'the edited-and-resent request replaced the original',
  );
  assert.equal(parsed.skipped, 2, 'the torn last line and a set on a request that does not exist');
  // The same session compacted to a single snapshot line gives the same turns.
  const snapshot = JSON.stringify({ kind: 0, v: JSON.parse(JSON.stringify(replayForTest(content))) });
  assert.deepEqual(parseCopilotChat(snapshot, COPILOT_JSONL).episodes, parsed.episodes);
});

test('Copilot: a grown session re-parses its earlier turns identically (so re-import adds only new turns)', () => {
  const lines = read('copilot', COPILOT_JSONL).split('\n');
  const early = parseCopilotChat(lines.slice(0, 9).join('\n'), COPILOT_JSONL);
  const full = parseCopilotChat(lines.join('\n'), COPILOT_JSONL);
  assert.equal(early.episodes.length, 2);
  // The session's title is the file's at the time it is read (Copilot names a session after its first answer);
  // it is not part of a turn's identity (the content hash), so a re-import still adds only new turns.
  const turn = ({ sessionTitle: _title, ...rest }: { sessionTitle?: string }) => rest;
  for (const e of early.episodes) assert.deepEqual(turn(full.episodes.find((f) => f.ref === e.ref)!), turn(e));
  // Read mid-stream (response parts written, no result yet): the person's turn now, the answer once finished.
  const streaming = parseCopilotChat(lines.slice(0, 7).join('\n'), COPILOT_JSONL);
  assert.deepEqual(
    streaming.episodes.map((e) => e.role),
    ['user'],
  );
  assert.deepEqual(turn(streaming.episodes[0]!), turn(full.episodes[0]!));
  assert.equal(full.episodes[0]!.sessionTitle, 'Convert Jest spec to Vitest');
});

test('Copilot detection and defensive parsing', () => {
  assert.equal(isCopilotChatSession(JSON.parse(read('copilot', COPILOT_JSON))), true);
  assert.equal(isCopilotChatSession(JSON.parse(read('copilot', 'early-export.json'))), true);
  assert.equal(isCopilotChatSession(JSON.parse(read('copilot', COPILOT_JSONL).split('\n')[0]!)), true);
  assert.equal(isCopilotChatSession(read('copilot', COPILOT_JSONL)), true, 'raw JSONL content');
  assert.equal(isCopilotChatSession(read('copilot', COPILOT_JSON)), true, 'raw JSON content');
  assert.equal(isCopilotChatSession({ version: 3, sessionId: 's', requests: [] }), true, 'an empty session');
  assert.equal(isCopilotChatSession(read('claude-code', claudeFile)), false);
  assert.equal(isCopilotChatSession([{ conversation: { speaker_a: 'A', session_1: [] } }]), false);
  assert.equal(isCopilotChatSession({ requests: 'nope' }), false);
  assert.equal(isCopilotChatSession({ requests: [{ foo: 1 }], sessionId: 'x' }), false);
  assert.equal(isCopilotChatSession('garbage'), false);
  assert.equal(isCopilotChatSession(null), false);

  assert.deepEqual(parseCopilotChat('{"requests": "nope"}', 'a.json'), { format: 'copilot', episodes: [], skipped: 1 });
  assert.doesNotThrow(() => parseCopilotChat('garbage\n{', 'b.jsonl'));
  assert.equal(parseCopilotChat('', 'c.json').skipped, 0);
  const odd = parseCopilotChat(
    JSON.stringify({
      sessionId: 's',
      requests: [null, 7, { message: { parts: [{ text: 'from ' }, { text: 'parts' }] }, response: [{ kind: 'mystery' }, { value: 42 }] }],
    }),
    'd.json',
  );
  assert.deepEqual(
    odd.episodes.map((e) => e.text),
    ['from parts'],
  );
  assert.equal(odd.skipped, 5);
  // A mutation log cannot reach the prototype.
  parseCopilotChat(
    [
      '{"kind":0,"v":{"sessionId":"s","requests":[]}}',
      '{"kind":1,"k":["__proto__","polluted"],"v":true}',
      '{"kind":2,"k":["constructor","prototype","x"],"v":[1]}',
    ].join('\n'),
    'e.jsonl',
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

/** Minimal independent replay of the fixture's log, to build its compacted snapshot form. */
function replayForTest(content: string): unknown {
  let state: Record<string, unknown> = {};
  for (const line of content.split('\n')) {
    let e: { kind: number; k?: (string | number)[]; v?: unknown; i?: number };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (e.kind === 0) {
      state = e.v as Record<string, unknown>;
      continue;
    }
    const k = e.k!;
    let parent: Record<string | number, unknown> = state;
    for (const key of k.slice(0, -1)) parent = (parent?.[key] ?? undefined) as Record<string | number, unknown>;
    if (!parent) continue;
    const last = k[k.length - 1]!;
    if (e.kind === 1) parent[last] = e.v;
    if (e.kind === 3) delete parent[last];
    if (e.kind === 2) {
      const arr = (parent[last] ??= []) as unknown[];
      if (typeof e.i === 'number') arr.length = Math.min(arr.length, e.i);
      arr.push(...((e.v as unknown[]) ?? []));
    }
  }
  return state;
}
