/**
 * Every `recall` command, as a person types it, against a real memory folder on disk.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { recall, recallJson, recallOk, ROOT, lockOf, tmpFolder } from './helpers';

const EXAMPLES = path.join(ROOT, 'examples', 'transcripts');
const exampleFiles = fs.readdirSync(EXAMPLES).map((f) => path.join(EXAMPLES, f));

describe('a memory filled from the shipped transcripts', () => {
  let memory: string;
  before(async () => {
    memory = tmpFolder('cli');
  });

  test('ingest prints counts per file and re-importing adds nothing', async () => {
    const first = await recallOk(memory, ['ingest', ...exampleFiles]);
    assert.match(first, /storage-choice\.jsonl: jsonl, 5 turns, 5 added, 0 already there/);
    assert.match(first, /frontend-style\.md: markdown, 5 turns, 5 added, 0 already there/);
    const again = await recallJson(memory, ['ingest', ...exampleFiles]);
    assert.deepEqual({ ...again, reports: undefined }, { files: 3, turns: 15, added: 0, skipped: 15, reports: undefined });
    assert.deepEqual(
      again.reports.map((r: { added: number; skipped: number }) => [r.added, r.skipped]),
      [
        [0, 5],
        [0, 5],
        [0, 5],
      ],
    );
  });

  test('remember prints an episode id and the note is found by query, cited', async () => {
    const id = (
      await recallOk(memory, ['remember', 'Dana prefers pull requests under 400 lines', '--entity', 'Dana', '--session', 'notes'])
    ).trim();
    assert.match(id, /^ep_\d+$/);
    const r = await recallJson(memory, ['query', 'how big should pull requests be?']);
    const hit = r.episodes.find((e: { id: string }) => e.id === id);
    assert.ok(hit, 'the note is among the results');
    assert.equal(hit.session, 'notes');
    assert.equal(hit.authority, 'user', "a person's note is user evidence");
    assert.deepEqual(hit.entities, ['Dana']);
    const text = await recallOk(memory, ['query', 'how big should pull requests be?']);
    assert.match(text, new RegExp(`\\[${id} · session notes · cli · \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} · user · score`));
  });

  test('query finds the turn that answers a question, with its source coordinates', async () => {
    const r = await recallJson(memory, ['query', 'which storage engine did we pick for Recall?', '--limit', '3']);
    assert.ok(r.episodes.length <= 3);
    const top = r.episodes.map((e: { text: string }) => e.text).join('\n');
    assert.match(top, /go with sql\.js/);
    const cited = r.episodes.find((e: { text: string }) => /go with sql\.js/.test(e.text));
    assert.equal(cited.source, '2025-03-04-storage-choice.jsonl');
    assert.equal(cited.ref, 'line 3');
    assert.equal(cited.time, '2025-03-04T09:14:05.000Z');
  });

  test('episodes filters by text, session and date range', async () => {
    const inSession = await recallJson(memory, ['episodes', '--session', 'ci-flakes']);
    assert.equal(inSession.length, 5);
    assert.ok(inSession.every((e: { session: string }) => e.session === 'ci-flakes'));
    const march = await recallJson(memory, ['episodes', 'timezone', '--since', '2025-03-10', '--until', '2025-03-12']);
    assert.ok(march.length >= 1);
    assert.ok(march.every((e: { time: string }) => e.time >= '2025-03-10' && e.time < '2025-03-13'));
    const none = await recallJson(memory, ['episodes', 'timezone', '--until', '2025-03-01']);
    assert.equal(none.length, 0);
  });

  test('relate asserts a fact that query, search and traverse return; correct --wrong removes it everywhere at once', async () => {
    const evidence = (await recallJson(memory, ['episodes', 'go with sql.js']))[0].id;
    const id = (await recallOk(memory, ['relate', 'Recall', 'uses', 'sql.js', '--evidence', evidence])).trim();
    assert.match(id, /^rel_\d+$/);

    const q = await recallJson(memory, ['query', 'what does Recall use for storage?']);
    const fact = q.facts.find((f: { id: string }) => f.id === id);
    assert.ok(fact, 'query returns the fact');
    assert.equal(fact.status, 'current');
    assert.deepEqual(fact.evidence, [evidence]);
    assert.ok(fact.confidence > 0.9, 'explicit prior plus user evidence');

    const s = await recallJson(memory, ['search', 'recall']);
    assert.equal(s[0].name, 'Recall');
    assert.equal(s[0].relationships, 1);

    const t = await recallJson(memory, ['traverse', 'Recall']);
    assert.deepEqual(
      t.facts.map((f: { id: string }) => f.id),
      [id],
    );
    assert.match(await recallOk(memory, ['traverse', 'recall']), /Recall —uses→ sql\.js/);

    const corrected = await recallJson(memory, ['correct', '--wrong', id, '--reason', 'we moved to better-sqlite3']);
    assert.equal(corrected.status, 'wrong');
    assert.ok(corrected.confidence < fact.confidence, 'human contradiction lowers confidence');

    const after = await recallJson(memory, ['query', 'what does Recall use for storage?']);
    assert.equal(
      after.facts.find((f: { id: string }) => f.id === id),
      undefined,
      'gone from query',
    );
    assert.equal((await recallJson(memory, ['traverse', 'Recall'])).facts.length, 0, 'gone from traverse');
    const exported = await recallJson(memory, ['export']);
    assert.equal(
      exported.facts.find((f: { id: string }) => f.id === id),
      undefined,
      "gone from export's current view",
    );

    const history = await recallJson(memory, ['query', 'what does Recall use for storage?', '--history']);
    const marked = history.facts.find((f: { id: string }) => f.id === id);
    assert.equal(marked.status, 'wrong', 'still there with --history, marked');
    assert.equal(marked.ended_reason, 'we moved to better-sqlite3');
    const full = await recallJson(memory, ['export', '--history']);
    assert.equal(full.facts.find((f: { id: string }) => f.id === id).status, 'wrong');

    const confirmed = await recallJson(memory, ['correct', '--confirm', id]);
    assert.equal(confirmed.status, 'current');
    assert.equal(confirmed.pinned, true);
  });

  test('evidence at agent authority alone never lifts a fact above its prior', async () => {
    // An agent's note (as the MCP server would store it) is agent authority.
    const agentFile = path.join(path.dirname(memory), `${path.basename(memory)}-agent.jsonl`);
    const lines = Array.from({ length: 5 }, (_, i) =>
      JSON.stringify({ role: 'assistant', content: `I am sure the cache uses Redis (${i})` }),
    );
    fs.writeFileSync(agentFile, lines.join('\n'));
    await recallOk(memory, ['ingest', agentFile]);
    const agentEpisodes = await recallJson(memory, ['episodes', '--session', `${path.basename(memory)}-agent`]);
    assert.equal(agentEpisodes.length, 5);
    assert.ok(agentEpisodes.every((e: { authority: string }) => e.authority === 'agent'));
    const evidence = agentEpisodes.flatMap((e: { id: string }) => ['--evidence', e.id]);
    const id = (await recallOk(memory, ['relate', 'cache', 'uses', 'Redis', '--prior', 'inferred', ...evidence])).trim();
    const fact = (await recallJson(memory, ['traverse', 'cache'])).facts.find((f: { id: string }) => f.id === id);
    assert.equal(fact.evidence.length, 5);
    assert.equal(fact.confidence, 0.6, 'held at the inferred prior');
    fs.rmSync(agentFile);
  });

  test('status reports counts, the folder and the service', async () => {
    const s = await recallJson(memory, ['status']);
    for (const key of ['episodes', 'entities', 'relationships', 'service_pid', 'memory']) assert.ok(key in s, key);
    assert.equal(s.memory, memory);
    assert.equal(s.service_pid, lockOf(memory)?.pid);
    assert.ok(s.episodes >= 16);
    assert.match(await recallOk(memory, ['status']), /^memory\s+\S+/m);
  });

  test('export --out writes the whole memory as JSON', async () => {
    // Outside the memory folder: an export inside it is refused (local-trust.test.ts).
    const out = path.join(tmpFolder('cli-export'), 'export.json');
    await recallOk(memory, ['export', '--out', out]);
    const data = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.ok(data.episodes.length >= 16);
    assert.ok(Array.isArray(data.entities) && Array.isArray(data.facts));
  });

  test('forget shows a plan first, erases only with --confirm, and leaves no copy in the journal', async () => {
    await recallOk(memory, ['remember', 'Project Nightjar is the secret codename for the rewrite', '--entity', 'Nightjar']);
    await recallOk(memory, ['relate', 'Nightjar', 'replaces', 'payments-api']);
    const plan = await recallOk(memory, ['forget', 'nightjar']);
    assert.match(plan, /Forgetting "Nightjar" removes/);
    assert.match(plan, /secret codename/);
    assert.match(plan, /Nothing was removed/);
    assert.equal((await recallJson(memory, ['search', 'Nightjar'])).length, 1, 'the plan changed nothing');

    const done = await recallJson(memory, ['forget', 'Nightjar', '--confirm']);
    assert.equal(done.episodes.length, 1);
    assert.equal(done.relationships.length, 1);
    assert.equal((await recallJson(memory, ['search', 'Nightjar'])).length, 0);
    assert.equal((await recallJson(memory, ['episodes', 'secret codename'])).length, 0);
    assert.doesNotMatch(fs.readFileSync(path.join(memory, 'journal.jsonl'), 'utf8'), /secret codename/);
    assert.ok((await recallJson(memory, ['search', 'payments-api'])).length === 1, 'the other entity stays');
  });

  test('service status / stop / start', async () => {
    const running = await recallJson(memory, ['service', 'status']);
    assert.equal(running.running, true);
    assert.equal((await recallJson(memory, ['service', 'stop'])).stopped, true);
    assert.equal((await recallJson(memory, ['service', 'status'])).running, false);
    const started = await recallJson(memory, ['service', 'start']);
    assert.equal(started.running, true);
    assert.equal(started.pid, lockOf(memory)?.pid);
    // Everything is still there after a restart.
    assert.ok((await recallJson(memory, ['status'])).episodes >= 16);
  });
});

describe('bad input gets a clear error and the service keeps serving', () => {
  let memory: string;
  before(async () => {
    memory = tmpFolder('bad');
    await recallOk(memory, ['remember', 'a note to keep the service busy']);
  });

  const cases: [string, string[], RegExp, number][] = [
    ['unknown relationship id', ['correct', '--wrong', 'rel_999'], /No relationship "rel_999"/, 1],
    ['malformed relationship id', ['correct', '--confirm', 'banana'], /not a relationship id/, 1],
    ['unknown entity', ['traverse', 'Nobody Here'], /No entity named "Nobody Here"/, 1],
    ['unknown evidence episode', ['relate', 'a', 'b', 'c', '--evidence', 'ep_424242'], /No episode "ep_424242"/, 1],
    ['empty text', ['remember', '   '], /empty/, 1],
    ['empty query', ['query', ''], /empty/, 1],
    ['invalid date', ['episodes', '--since', 'last tuesday'], /not a valid since.*ISO date/s, 1],
    ['impossible date', ['episodes', '--until', '2025-02-30x'], /not a valid until/, 1],
    ['limit out of range', ['query', 'note', '--limit', '100000'], /limit must be a whole number from 1 to 50/, 1],
    ['non-numeric limit', ['query', 'note', '--limit', 'ten'], /--limit must be a whole number/, 2],
    ['both verdicts', ['correct', '--wrong', '--confirm', 'rel_1'], /exactly one of --wrong, --confirm or --same-as/, 2],
    ['unknown command', ['frobnicate'], /Unknown command "frobnicate"/, 2],
    ['unknown option', ['query', 'x', '--colour'], /Unknown option '--colour'/, 2],
    ['missing file', ['ingest', '/nonexistent/chat.jsonl'], /Cannot read \/nonexistent\/chat\.jsonl: no such file/, 1],
    ['bad prior', ['relate', 'a', 'b', 'c', '--prior', 'certain'], /--prior is one of/, 2],
    ['forget unknown', ['forget', 'Ghost'], /No entity named "Ghost"/, 1],
  ];
  for (const [name, args, message, code] of cases) {
    test(name, async () => {
      const r = await recall(memory, args);
      assert.equal(r.code, code, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '', 'errors go to stderr only');
    });
  }

  test('huge text (over 1 MB) is refused with what to do', async () => {
    const file = path.join(memory, 'huge.jsonl');
    fs.writeFileSync(file, JSON.stringify({ role: 'user', content: 'x'.repeat(1_100_000) }) + '\n');
    const r = await recall(memory, ['ingest', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /1100000 characters; the limit is 1000000[\s\S]*Split it/);
  });

  test('a malformed JSONL transcript names the bad line', async () => {
    const file = path.join(memory, 'broken.jsonl');
    fs.writeFileSync(file, '{"role":"user","content":"ok"}\n{not json\n');
    const r = await recall(memory, ['ingest', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /broken\.jsonl:2 is not valid JSON/);
  });

  test('after all of it the same service still answers and nothing was written', async () => {
    const pid = lockOf(memory)?.pid;
    const s = await recallJson(memory, ['status']);
    assert.equal(s.service_pid, pid);
    assert.equal(s.episodes, 1);
    assert.equal(s.relationships, 0);
  });
});

test('--help prints the usage; no command is a usage error', async () => {
  const memory = tmpFolder('help');
  const help = await recall(memory, ['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /recall \[--memory DIR\] COMMAND/);
  assert.equal((await recall(memory, [])).code, 2);
});

test('RECALL_HOME chooses the memory folder when --memory is absent', async () => {
  const memory = tmpFolder('home');
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'status', '--json'], {
    env: { ...process.env, RECALL_HOME: memory, RECALL_IDLE_EXIT_MS: '60000' },
  });
  assert.equal(JSON.parse(out.toString()).memory, memory);
});
