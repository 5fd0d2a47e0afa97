/**
 * The LoCoMo benchmark (src/bench/locomo.ts): its parser, the bench on a hand-written fixture
 * always and on the real data when it is present (the quality guard), one memory for every
 * conversation, bursts, vector and hybrid modes and `recall bench` through the built bundles, and
 * the section of docs/BENCHMARKS.md it writes.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { splitTurns } from '../src/bench/bursts.js';
import { replaceSection } from '../src/bench/docs.js';
import { runLocomoBench } from '../src/bench/locomo.js';
import { isLocomo, parseLocomo, parseLocomoDate } from '../src/core/ingest/locomo.js';
import type { EpisodeInput } from '../src/core/model/events.js';
import { tmpFolder } from './helpers.js';

const ROOT = path.resolve(__dirname, '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'locomo-mini.json');
const REAL_DATA = path.resolve(ROOT, '..', 'shared', 'data', 'locomo-dev.json');
const BENCH = path.join(ROOT, 'dist', 'bench.js');
const CLI = path.join(ROOT, 'dist', 'cli.js');

/** Runs a built bundle; its last stdout line is the JSON result. */
function runBundle(script: string, args: string[], cwd = ROOT): { code: number | null; stdout: string; stderr: string; result: any } {
  const r = spawnSync(process.execPath, [script, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, result: last.startsWith('{') ? JSON.parse(last) : undefined };
}

test('LoCoMo parser: turns, sessions, dates, captions, evidence', () => {
  const json = JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));
  assert.equal(isLocomo(json), true);
  assert.equal(isLocomo({ conversation: { speaker_a: 'A' } }), false);
  assert.equal(isLocomo([{ text: 'hi' }]), false);
  const [a, b] = parseLocomo(json, 'locomo-mini.json');
  assert.equal(a!.id, 'mini-1');
  assert.deepEqual(a!.speakers, ['Alice', 'Bob']);
  assert.equal(a!.episodes.length, 11); // session_3 has a date but no turns
  assert.deepEqual(a!.episodes[0], {
    text: 'Hey Bob! Long time no see. How have you been?',
    speaker: 'Alice',
    session: 'mini-1:session_1',
    ref: 'D1:1',
    time: '2023-05-08T13:56:00.000Z',
    source: 'locomo-mini.json',
    entities: ['Alice'],
  });
  assert.equal(
    a!.episodes[4]!.text,
    'Mostly hawks. Here is the view from the top. [shares a photo: a photo of a valley with fog and green hills]',
  );
  assert.equal(a!.episodes[6]!.time, '2023-05-20T10:05:00.000Z');
  assert.deepEqual(a!.qa[2]!.evidence, ['D1:3', 'D2:4']); // "D1:3; D2:4" split
  assert.equal(a!.qa[3]!.answer, 'it is grey'); // adversarial answer kept
  assert.deepEqual(b!.qa[0]!.evidence, ['D1:5']); // "D:1:5" normalised
  assert.deepEqual(b!.qa[1]!.evidence, ['D1:1']); // "D9:9" names no turn
  assert.equal(parseLocomoDate('12:48 am on 1 February, 2023'), '2023-02-01T00:48:00.000Z');
  assert.equal(parseLocomoDate('12:05 pm on 3 Sept, 2023'), '2023-09-03T12:05:00.000Z');
  assert.equal(parseLocomoDate('sometime'), undefined);
});

test('LoCoMo bench on the fixture: every answerable question asked and scored', async () => {
  const lines: string[] = [];
  const r = await runLocomoBench({ dataFile: FIXTURE, k: 3, log: (m) => lines.push(m) });
  assert.equal(r.questions, 5); // category 5 left out
  assert.equal(r.skipped, 0);
  assert.deepEqual(Object.keys(r.by_conversation), ['mini-1', 'mini-2']);
  assert.deepEqual(Object.keys(r.by_category).sort(), ['1', '2', '4']);
  assert.equal(lines.length, 2);
  assert.ok(r['recall@3'] <= r['recall@5'] && r['recall@5'] <= r['recall@10']);
  // Small enough to know the answers: every evidence turn is in the top ten, and the single-hop
  // questions, whose words are in their evidence, find it among the first three.
  assert.equal(r['recall@10'], 1, JSON.stringify(r));
  assert.equal(r.by_category['4']!['recall@3'], 1, JSON.stringify(r));
  assert.ok(r.query_p95_ms >= r.query_p50_ms);
  assert.equal(r.evidence_ranks, null, 'ranks only when asked for');
  // Every evidence turn is in the top ten (above), so every one is counted in the first bucket.
  const ranked = await runLocomoBench({ dataFile: FIXTURE, k: 3, ranks: true });
  const evidenceTurns = parseLocomo(JSON.parse(fs.readFileSync(FIXTURE, 'utf8')), 'x')
    .flatMap((c) => c.qa.filter((q) => q.category !== 5))
    .reduce((n, q) => n + q.evidence.length, 0);
  const buckets = Object.values(ranked.evidence_ranks ?? {});
  assert.equal(
    buckets.reduce((n, b) => n + b['1-10'], 0),
    evidenceTurns,
    JSON.stringify(ranked.evidence_ranks),
  );
  assert.equal(
    buckets.reduce((n, b) => n + b['11-20'] + b['21-50'] + b.none, 0),
    0,
  );
});

test('locomo bench: one memory for every conversation asks the same questions, and methods can be switched off', async () => {
  const apart = await runLocomoBench({ dataFile: FIXTURE });
  const together = await runLocomoBench({ dataFile: FIXTURE, oneMemory: true, without: ['aliases'] });
  assert.equal(together.questions, apart.questions);
  assert.equal(together.one_memory, true);
  assert.deepEqual(together.without, ['aliases']);
  assert.deepEqual(Object.keys(together.by_conversation), Object.keys(apart.by_conversation));
  await assert.rejects(runLocomoBench({ dataFile: FIXTURE, settings: { 'rescore.spread.nope': 1 } }), /no recipe setting|takes a number/);
});

test('locomo bench --bursts: every other session sent by sentence, evidence on the messages that answer', () => {
  const turn = (session: string, ref: string, speaker: string, text: string): EpisodeInput => ({ session, ref, speaker, text });
  const conv = {
    id: 'c',
    speakers: ['Ann', 'Bob'],
    episodes: [
      turn('c:1', 'D1:1', 'Ann', 'Guess what! I got the job. It is at the science museum.'),
      turn('c:1', 'D1:2', 'Bob', 'So proud of you!'),
      turn('c:2', 'D2:1', 'Ann', 'First day today. Loved it.'),
    ],
    qa: [
      { question: 'Where does Ann work?', answer: 'the science museum', evidence: ['D1:1'], category: 4 },
      { question: 'How was it?', answer: 'wonderful', evidence: ['D1:1', 'D2:1'], category: 3 },
    ],
  };
  const split = splitTurns(conv);
  assert.deepEqual(
    split.episodes.map((e) => [e.ref, e.speaker, e.text]),
    [
      ['D1:1/1', 'Ann', 'Guess what!'],
      ['D1:1/2', 'Ann', 'I got the job.'],
      ['D1:1/3', 'Ann', 'It is at the science museum.'],
      ['D1:2', 'Bob', 'So proud of you!'],
      ['D2:1', 'Ann', 'First day today. Loved it.'],
    ],
    'the first session by sentence, a one-sentence turn whole, the second session as it was',
  );
  assert.deepEqual(split.qa[0]!.evidence, ['D1:1/3'], 'the message sharing a word with the answer');
  assert.deepEqual(split.qa[1]!.evidence, ['D1:1/1', 'D1:1/2', 'D1:1/3', 'D2:1'], 'none shares one: every message of the turn');
});

test("LoCoMo bench in vector and hybrid modes runs the service's vector channel on every kind (dist/bench.js)", async () => {
  await assert.rejects(runLocomoBench({ dataFile: FIXTURE, mode: 'vector' }), /needs an embedding model: --model-path DIR/);
  const model = tmpFolder('locomo-model');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'make-test-model.mjs'), model], { stdio: 'pipe' });
  for (const mode of ['vector', 'hybrid'] as const) {
    // The model runs in the service's embedding worker, a bundle: the built benchmark runs it.
    const { code, stderr, result: r } = runBundle(BENCH, ['locomo', '--data', FIXTURE, '--mode', mode, '--model-path', model, '--json']);
    assert.equal(code, 0, stderr);
    assert.equal(r.mode, mode);
    assert.match(r.model ?? '', /^local:/);
    assert.equal(r.questions, 5);
    // Every turn, entity and fact was embedded before the questions, as the service would have.
    assert.equal(r.vectors_by_kind.episode, r.by_conversation['mini-1'].episodes + r.by_conversation['mini-2'].episodes);
    assert.ok(r.vectors_by_kind.entity > 0, JSON.stringify(r.vectors_by_kind));
    // mini-2 has eight turns: every one has a vector, so all are among the top ten.
    assert.equal(r.by_conversation['mini-2']['recall@10'], 1, JSON.stringify(r));
  }
});

test('`recall bench` loads dist/bench.js at run time, and says so when it is missing', () => {
  const viaCli = runBundle(CLI, ['bench', 'locomo', '--data', FIXTURE, '--k', '3', '--json']);
  assert.equal(viaCli.code, 0, viaCli.stderr);
  assert.equal(viaCli.result.questions, 5);
  assert.equal(viaCli.result['recall@10'], 1);
  assert.doesNotMatch(fs.readFileSync(CLI, 'utf8'), /runLocomoBench/, 'the benchmarks are not bundled into the CLI');
  // Another suite's option is refused, not ignored: a bench run must measure what it says.
  const refused = runBundle(CLI, ['bench', 'projects', '--data', FIXTURE, '--without', 'forms']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /bench projects does not take --without \(it takes --data, --json, --write-docs\)/);
  assert.match(runBundle(CLI, ['bench', 'nosuch']).stderr, /bench needs a suite: locomo, scale, projects/);
  const alone = tmpFolder('cli-alone');
  fs.copyFileSync(CLI, path.join(alone, 'cli.js'));
  const r = runBundle(path.join(alone, 'cli.js'), ['bench', 'locomo', '--data', FIXTURE]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /benchmarks are not in this build: .*bench\.js is missing/);
});

test("--write-docs replaces the bench's own section of docs/BENCHMARKS.md and nothing else", () => {
  const doc = ['# Benchmarks', '<!-- bench:locomo-keyword -->', 'old figures', '<!-- /bench:locomo-keyword -->', 'Kept.', ''].join('\n');
  assert.equal(replaceSection(doc, 'locomo-keyword', 'new'), doc.replace('old figures', 'new'));
  assert.equal(
    replaceSection('# B\n', 'scale', 'x'),
    '# B\n\n<!-- bench:scale -->\nx\n<!-- /bench:scale -->\n',
    'a missing section is added at the end',
  );
  const repo = tmpFolder('docs');
  fs.mkdirSync(path.join(repo, 'docs'));
  fs.writeFileSync(path.join(repo, 'docs', 'BENCHMARKS.md'), doc);
  const r = runBundle(BENCH, ['locomo', '--data', FIXTURE, '--k', '3', '--write-docs'], repo);
  assert.equal(r.code, 0, r.stderr);
  const written = fs.readFileSync(path.join(repo, 'docs', 'BENCHMARKS.md'), 'utf8');
  assert.ok(written.startsWith('# Benchmarks\n<!-- bench:locomo-keyword -->\n### LoCoMo retrieval, keyword mode'), written);
  assert.ok(written.endsWith('<!-- /bench:locomo-keyword -->\nKept.\n'), written);
  assert.doesNotMatch(written, /old figures/);
  assert.match(written, /node dist\/bench\.js locomo --data \S+locomo-mini\.json --k 3 --mode keyword/);
  assert.match(written, new RegExp(`${os.cpus().length} cores`));
  assert.match(written, /\| all \| 5 \| [0-9.]+ \| [0-9.]+ \| 1\.000 \|/);
});

test(
  'LoCoMo bench on the real data: recall within 0.02 of the figures in docs/BENCHMARKS.md',
  { skip: !fs.existsSync(REAL_DATA) && `no LoCoMo data at ${REAL_DATA}` },
  async () => {
    const r = await runLocomoBench({ dataFile: REAL_DATA });
    assert.ok(r.questions > 700, `only ${r.questions} questions`);
    // Shipped: recall@5 0.700, recall@10 0.786 (docs/BENCHMARKS.md); a change that costs more fails.
    assert.ok(r['recall@5'] >= 0.68, `recall@5 ${r['recall@5']}`);
    assert.ok(r['recall@10'] >= 0.766, `recall@10 ${r['recall@10']}`);
  },
);
