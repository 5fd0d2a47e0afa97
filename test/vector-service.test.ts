/**
 * The dense channel inside the real memory service (built dist/service.js, the bundled embedder on
 * the native ONNX Runtime beside it): episodes are embedded in the background, vector and hybrid queries use them, and a
 * missing model degrades to keyword + graph with the reason in `recall status`. The model is a
 * tiny BERT-shaped one generated here (no pretrained model can be downloaded on these machines).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { recall, recallJson, recallOk, ROOT, tmpFolder } from './helpers';

let model: string;
before(() => {
  model = tmpFolder('model');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'make-test-model.mjs'), model], { stdio: 'pipe' });
});
const NOTES = [
  'We chose sql.js for storage because it runs everywhere',
  'The CI pipeline fails on Tuesdays because of the timezone',
  'Dana owns the settlement module',
  'Prefer tabs over spaces in the dashboard code',
];

test('episodes are embedded in the background and vector and hybrid queries use them', async () => {
  const memory = tmpFolder('vectors');
  fs.writeFileSync(path.join(memory, 'config.json'), JSON.stringify({ embeddings: { enabled: true, modelPath: model } }));
  for (const n of NOTES) await recallOk(memory, ['remember', n]);
  let status = await recallJson(memory, ['status']);
  const deadline = Date.now() + 60_000;
  while ((status.vectors_by_kind.episode < NOTES.length || status.embedding_pending > 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    status = await recallJson(memory, ['status']);
  }
  assert.match(status.embedder, /^ready: local:/);
  assert.equal(status.vectors_by_kind.episode, NOTES.length);
  assert.equal(status.vectors_by_kind.entity, status.entities, 'every entity is embedded too');
  assert.equal(status.vector_search, 'exact');
  assert.equal(status.embedding_pending, 0);
  assert.match(
    (await recallOk(memory, ['status'])).split('\n').find((l) => l.startsWith('embeddings'))!,
    /ready: local:.*4 episode.* vector/,
  );

  const vector = await recallJson(memory, ['query', 'Dana owns the settlement module', '--mode', 'vector']);
  assert.deepEqual(vector.channels, ['vector']);
  assert.equal(vector.episodes.length, NOTES.length, 'every episode has a vector');
  assert.equal(vector.episodes[0].text, NOTES[2], 'an identical text is its own nearest neighbour');

  const hybrid = await recallJson(memory, ['query', 'timezone pipeline']);
  assert.ok(hybrid.channels.includes('vector') && hybrid.channels.includes('keyword'), hybrid.channels.join());
  assert.equal(hybrid.episodes[0].text, NOTES[1]);

  // Vectors survive a restart (file beside the journal) and new episodes join them.
  await recallOk(memory, ['service', 'stop']);
  assert.ok(fs.statSync(path.join(memory, 'vectors.bin')).size > 0);
  await recallOk(memory, ['remember', 'The staging cluster is upgraded on Fridays']);
  let again = await recallJson(memory, ['status']);
  while (again.vectors_by_kind.episode < NOTES.length + 1 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    again = await recallJson(memory, ['status']);
  }
  assert.equal(again.vectors_by_kind.episode, NOTES.length + 1);
});

test('entities and facts are embedded as they are stored, found by vector search, and dropped when forgotten', async () => {
  const memory = tmpFolder('kinds');
  fs.writeFileSync(path.join(memory, 'config.json'), JSON.stringify({ embeddings: { enabled: true, modelPath: model }, extract: false }));
  await recallOk(memory, ['remember', NOTES[2]!]);
  const rel = (await recallOk(memory, ['relate', 'Dana', 'owns', 'settlement ledger'])).trim();
  await recallOk(memory, ['relate', 'Quill', 'depends on', 'libsodium']);
  const settled = async (want: (s: any) => boolean): Promise<any> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const s = await recallJson(memory, ['status']);
      if ((s.embedder.startsWith('ready') && s.embedding_pending === 0 && want(s)) || Date.now() > deadline) return s;
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  let status = await settled((s) => s.vectors_by_kind.fact === 2);
  assert.deepEqual(status.vectors_by_kind, { episode: 1, entity: 4, fact: 2 });
  // Vector mode runs no keyword or graph channel: these come from the entity and fact vectors alone.
  const q = await recallJson(memory, ['query', 'Dana owns settlement ledger', '--mode', 'vector']);
  assert.equal(q.facts[0].id, rel, 'a fact stated word for word is its own nearest neighbour');
  assert.ok(q.facts[0].score > 0);
  const e = await recallJson(memory, ['query', 'libsodium', '--mode', 'vector']);
  assert.equal(e.entities[0].name, 'libsodium');
  await recallOk(memory, ['forget', 'Quill', '--confirm']);
  status = await settled((s) => s.vectors_by_kind.entity === 2);
  assert.deepEqual(
    status.vectors_by_kind,
    { episode: 1, entity: 2, fact: 1 },
    'the forgotten entity, its fact, and libsodium (which that fact alone held) lose their vectors',
  );
});

test('without a usable model: keyword + graph, and status says why', async () => {
  const memory = tmpFolder('nomodel');
  fs.writeFileSync(
    path.join(memory, 'config.json'),
    JSON.stringify({ embeddings: { enabled: true, modelPath: path.join(memory, 'no-such-model') } }),
  );
  await recallOk(memory, ['remember', NOTES[0]!]);
  let status = await recallJson(memory, ['status']);
  const deadline = Date.now() + 30_000;
  while (!status.embedder.startsWith('unavailable') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    status = await recallJson(memory, ['status']);
  }
  assert.match(status.embedder, /^unavailable: .+/);
  const q = await recallJson(memory, ['query', 'storage sql.js']);
  assert.ok(q.channels.includes('keyword') && !q.channels.includes('vector'), q.channels.join());
  assert.equal(q.episodes[0].text, NOTES[0]);
  const vector = await recall(memory, ['query', 'storage', '--mode', 'vector']);
  assert.equal(vector.code, 1);
  assert.match(vector.stderr, /Vector search needs an embedding model/);
});

test('embeddings are off unless enabled', async () => {
  const memory = tmpFolder('off');
  await recallOk(memory, ['remember', NOTES[3]!]);
  const status = await recallJson(memory, ['status']);
  assert.match(status.embedder, /^disabled/);
  assert.equal(status.vectors, 0);
});

test('recall embeddings: on with a local model, a model change re-embeds, a hub model is fetched only with --allow-download, off', async () => {
  const memory = tmpFolder('embcmd');
  for (const n of NOTES) await recallOk(memory, ['remember', n]);
  assert.match(await recallOk(memory, ['embeddings']), /^embeddings disabled/);

  const on = await recall(memory, ['embeddings', 'on', '--model-path', model]);
  assert.equal(on.code, 0, on.stderr);
  assert.match(on.stdout, /^embeddings ready: local:/);
  const config = JSON.parse(fs.readFileSync(path.join(memory, 'config.json'), 'utf8'));
  assert.deepEqual(config.embeddings, { enabled: true, modelPath: path.resolve(model), model: '' });
  const firstId = (await recallJson(memory, ['status'])).embedder;

  // Another model: the service restarts, the vector files are rebuilt and every episode embedded again.
  const other = tmpFolder('model-b');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'make-test-model.mjs'), other, '--seed', '7'], { stdio: 'pipe' });
  assert.equal((await recall(memory, ['embeddings', 'on', '--model-path', other])).code, 0);
  let status = await recallJson(memory, ['status']);
  assert.notEqual(status.embedder, firstId);
  const deadline = Date.now() + 60_000;
  while ((status.vectors_by_kind.episode < NOTES.length || status.embedding_pending > 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    status = await recallJson(memory, ['status']);
  }
  assert.equal(status.vectors_by_kind.episode, NOTES.length);
  const nearest = await recallJson(memory, ['query', NOTES[3]!, '--mode', 'vector']);
  assert.equal(nearest.episodes[0].text, NOTES[3], "vectors made by the new model answer the new model's question");

  // A hub model from a local stand-in for the hub (config.json's remoteHost): refused without the flag.
  const served: string[] = [];
  const server = http.createServer((req, res) => {
    served.push(req.url ?? '');
    const m = /^\/acme\/tiny-bert\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    const file = m ? path.join(model, m[1]!.replace('model_quantized', 'model')) : '';
    if (!m || !fs.existsSync(file)) return void res.writeHead(404).end('not found');
    const body = fs.readFileSync(file);
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const cfg = JSON.parse(fs.readFileSync(path.join(memory, 'config.json'), 'utf8'));
    cfg.embeddings.remoteHost = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fs.writeFileSync(path.join(memory, 'config.json'), JSON.stringify(cfg));
    const refused = await recall(memory, ['embeddings', 'on', '--model', 'acme/tiny-bert']);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /not downloaded.*downloads are off/s);
    assert.equal(served.length, 0);
    const fetched = await recall(memory, ['embeddings', 'on', '--model', 'acme/tiny-bert', '--allow-download']);
    assert.equal(fetched.code, 0, fetched.stdout + fetched.stderr);
    assert.match(fetched.stdout, /^embeddings ready: acme\/tiny-bert/);
    assert.ok(fs.existsSync(path.join(memory, 'models', 'acme', 'tiny-bert', 'onnx', 'model_quantized.onnx')));
    assert.ok(served.length >= 4, 'the model files were fetched');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }

  const off = await recall(memory, ['embeddings', 'off']);
  assert.equal(off.code, 0);
  assert.match(off.stdout, /^embeddings disabled/);
  assert.equal((await recall(memory, ['embeddings', 'maybe'])).code, 2);
  assert.equal((await recall(memory, ['embeddings', 'off', '--model-path', model])).code, 2);
});

test('bench scale builds a scratch memory, measures every mode, reports what the issue asks, and cleans up', async () => {
  const home = tmpFolder('bench-home'); // --memory is ignored: a bench never writes into a person's memory
  const r = await recall(home, ['bench', 'scale', '--episodes', '300', '--model-path', model, '--json'], {}, 600_000);
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  for (const key of [
    'episodes',
    'ingest_per_s',
    'keyword_p95_ms',
    'vector_p95_ms',
    'hybrid_p50_ms',
    'hybrid_p95_ms',
    'service_rss_mb',
    'snapshot_mb',
    'cold_start_ms',
  ]) {
    assert.equal(typeof result[key], 'number', `${key}: ${result[key]}`);
    assert.ok(result[key] > 0, `${key}: ${result[key]}`);
  }
  assert.equal(result.episodes, 300);
  for (const mode of ['keyword', 'vector', 'hybrid']) assert.ok(result[`${mode}_p95_ms`] >= result[`${mode}_p50_ms`], mode);
  assert.ok(result.service_peak_rss_mb >= result.service_rss_mb, `peak ${result.service_peak_rss_mb} < ${result.service_rss_mb}`);
  assert.equal(result.vector_search, 'exact', '300 vectors are searched exactly');
  assert.deepEqual(result.notes, []);
  assert.deepEqual(fs.readdirSync(home), [], 'nothing written into the memory named on the command line');
  const scratch = /starting the memory service for (\S+)/.exec(r.stderr)?.[1];
  assert.ok(scratch, r.stderr);
  assert.equal(fs.existsSync(scratch), false, 'the scratch memory is removed');
});

test('the model is let go after unloadAfterMinutes idle and loaded again by the next question', async () => {
  const memory = tmpFolder('idle-model');
  fs.writeFileSync(
    path.join(memory, 'config.json'),
    JSON.stringify({ embeddings: { enabled: true, modelPath: model, unloadAfterMinutes: 0.02 } }),
  );
  const threads = (pid: number): number => Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  await recallOk(memory, ['remember', NOTES[0]!]);
  const pid = (await recallJson(memory, ['status'])).service_pid;
  // The most threads seen while the model loads and embeds (it may be let go again within a second).
  let loadedThreads = 0;
  const sampler = setInterval(() => {
    if (fs.existsSync(`/proc/${pid}/status`)) loadedThreads = Math.max(loadedThreads, threads(pid));
  }, 10);
  for (const n of NOTES.slice(1)) await recallOk(memory, ['remember', n]);
  let status = await recallJson(memory, ['status']);
  const deadline = Date.now() + 60_000;
  while (!/unloaded/.test(status.embedder) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    status = await recallJson(memory, ['status']);
  }
  clearInterval(sampler);
  assert.match(status.embedder, /^ready: local:.*\(model unloaded while idle; loads on the next question\)$/);
  assert.equal(status.vectors_by_kind.episode, NOTES.length, 'everything was embedded before the model went');
  if (fs.existsSync('/proc')) assert.ok(threads(status.service_pid) < loadedThreads, 'the model thread stopped');
  assert.match(fs.readFileSync(path.join(memory, 'service.log'), 'utf8'), /model unloaded after 1 s idle/);

  // The next question loads it again and is answered from vectors, not keyword + graph alone.
  const vector = await recallJson(memory, ['query', 'Dana owns the settlement module', '--mode', 'vector']);
  assert.deepEqual(vector.channels, ['vector']);
  assert.equal(vector.episodes[0].text, NOTES[2]);
  status = await recallJson(memory, ['status']);
  // (It may be let go again before that status call: the log says it was loaded, and on what.)
  assert.match(fs.readFileSync(path.join(memory, 'service.log'), 'utf8'), /model loaded again \(native\)/);
  assert.match(status.embedding_backend, /^native /, 'a model thread started again runs natively too');
  // A new episode is embedded by the reloaded model too.
  await recallOk(memory, ['remember', 'The staging cluster is upgraded on Fridays']);
  const later = Date.now() + 30_000;
  while (status.vectors_by_kind.episode < NOTES.length + 1 && Date.now() < later) {
    await new Promise((r) => setTimeout(r, 250));
    status = await recallJson(memory, ['status']);
  }
  assert.equal(status.vectors_by_kind.episode, NOTES.length + 1);
});

test('during a backlog, status shows the runtime, the pending count, the embedding rate and the time left', async () => {
  // A wider model and a few thousand turns: a backlog that lasts a few seconds on the native runtime.
  const wide = tmpFolder('wide-model');
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'scripts', 'make-test-model.mjs'), wide, '--layers', '2', '--hidden', '256', '--heads', '4', '--intermediate', '1024'],
    { stdio: 'pipe' },
  );
  const memory = tmpFolder('backlog');
  const turns = Array.from({ length: 3000 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    text: `Turn ${i}: ${NOTES[i % NOTES.length]} and then the ${i % 7} deploy of service ${i % 13} went through review number ${i}`,
  }));
  const file = path.join(memory, 'turns.jsonl');
  fs.writeFileSync(file, turns.map((t) => JSON.stringify(t)).join('\n'));
  await recallOk(memory, ['ingest', file]);
  fs.writeFileSync(path.join(memory, 'config.json'), JSON.stringify({ embeddings: { enabled: true, modelPath: wide }, extract: false }));
  await recallOk(memory, ['service', 'stop']);

  // The service starts with every turn waiting for a vector; catch it mid-backlog.
  const seen: any[] = [];
  const lines: string[] = [];
  const deadline = Date.now() + 120_000;
  for (;;) {
    const s = await recallJson(memory, ['status']);
    if (s.embedder.startsWith('ready') && s.embedding_pending > 0 && s.embedding_rate !== null) {
      seen.push(s);
      lines.push((await recallOk(memory, ['status'])).split('\n').find((l) => l.startsWith('embeddings'))!);
    }
    if (seen.length >= 2 || (s.embedder.startsWith('ready') && s.embedding_pending === 0) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(seen.length > 0, 'status seen with texts pending and a rate');
  for (const s of seen) {
    assert.match(s.embedding_backend, /^native \(onnxruntime-node, /);
    assert.ok(s.embedding_rate > 0, `rate ${s.embedding_rate}`);
    assert.ok(s.embedding_pending <= s.episodes + s.entities, `pending ${s.embedding_pending}`);
    // The time left is what is pending at the rate shown (rounded up to whole seconds).
    assert.ok(Math.abs(s.embedding_eta_s - s.embedding_pending / s.embedding_rate) <= 1 + 0.01 * s.embedding_eta_s, JSON.stringify(s));
  }
  if (seen.length === 2) assert.ok(seen[1].embedding_pending <= seen[0].embedding_pending, 'the backlog goes down');
  assert.match(lines[0]!, /on native \(onnxruntime-node, /);
  assert.ok(
    lines.some((l) => /, \d+ waiting \([\d.]+ texts\/s, about \d+(\.\d)? (s|min|h) left\); search/.test(l)),
    lines.join('\n'),
  );

  let done = await recallJson(memory, ['status']);
  while (done.embedding_pending > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    done = await recallJson(memory, ['status']);
  }
  assert.equal(done.embedding_pending, 0);
  assert.equal(done.embedding_eta_s, 0, 'nothing left: no time left');
  assert.equal(done.vectors_by_kind.episode, 3000);
});
