/**
 * The real embedding path (transformers.js 2.17.2 on ONNX Runtime WebAssembly, one thread, in this
 * process; on the native ONNX Runtime, onnxruntime-node 1.14, in the built worker) on a
 * tiny BERT-shaped model generated here by scripts/make-test-model.mjs (seeded random weights, the
 * real bert-base-uncased vocabulary): no pretrained model can be downloaded on these machines.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { VectorStore } from '../src/core/vectors/store';
import { type Embedder, embedderLoads, loadEmbedder, type ModelProgress, TransformersEmbedder } from '../src/service/embeddings/embedder';
import { EmbeddingQueue } from '../src/service/embeddings/queue';
import { idleEmbedder } from '../src/service/embeddings/idle-embedder';
import { loadWorkerEmbedder, type WorkerEmbedder, workerScript } from '../src/service/embeddings/worker-embedder';
import { tmpFolder } from './helpers';

const ROOT = path.resolve(__dirname, '..');
const work = tmpFolder('embeddings');
const MODEL = path.join(work, 'tiny-bert');
const MODEL_B = path.join(work, 'tiny-bert-b');

function makeModel(dir: string, ...args: string[]): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'make-test-model.mjs'), dir, ...args], { stdio: 'pipe' });
}

const SENTENCES = [
  'hello world',
  'The service keeps one owner for the memory folder.',
  'Embeddings are computed in the background, in batches, never blocking a write.',
  '',
  'Zürich café naïve — accents, UNICODE and punctuation!?',
  'a',
  'short',
  'A considerably longer sentence, so that padding matters when it shares a batch with one-word texts like the ones above and below.',
];

let embedder: TransformersEmbedder;

before(async () => {
  makeModel(MODEL);
  makeModel(MODEL_B, '--seed', '7');
  const listeners = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
  // This process runs WebAssembly (a thread's runtime is chosen once); the built worker runs native.
  const r = await loadEmbedder({ modelPath: MODEL, backend: 'wasm' });
  assert.ok('embedder' in r, 'unavailable' in r ? r.unavailable : '');
  embedder = r.embedder;
  assert.deepEqual(
    [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')],
    listeners,
    'ONNX Runtime process handlers removed',
  );
});

/**
 * How far native and WebAssembly vectors may differ per component: the same graph in float32 on two
 * builds of the runtime, so rounding only. Measured up to 6e-8 on the stand-in models (docs/BENCHMARKS.md);
 * two orders of magnitude above that, and far below what changes a ranking.
 */
const ACROSS_BACKENDS = 1e-5;

const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const maxDiff = (a: Float32Array, b: Float32Array): number => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

test('the generated model is deterministic and carries the real bert-base-uncased vocabulary', () => {
  const again = path.join(work, 'again');
  makeModel(again);
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']) {
    assert.deepEqual(fs.readFileSync(path.join(again, f)), fs.readFileSync(path.join(MODEL, f)), f);
  }
  const vocab = JSON.parse(fs.readFileSync(path.join(MODEL, 'tokenizer.json'), 'utf8')).model.vocab;
  assert.equal(Object.keys(vocab).length, 30522);
  assert.deepEqual(
    [vocab['[PAD]'], vocab['[UNK]'], vocab['[CLS]'], vocab['[SEP]'], vocab.the, vocab.hello, vocab['##ing']],
    [0, 100, 101, 102, 1996, 7592, 2075],
  );
});

test('vectors have the model dimension, unit length, and the WebAssembly backend made them', async () => {
  assert.equal(embedder.dim, 32);
  assert.equal(embedder.backend, 'wasm');
  assert.match(embedder.id, /^local:tiny-bert#[0-9a-f]{12}$/);
  const vectors = await embedder.embed(SENTENCES);
  assert.equal(vectors.length, SENTENCES.length);
  for (const v of vectors) {
    assert.ok(v instanceof Float32Array);
    assert.equal(v.length, 32);
    assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm ${norm(v)}`);
  }
  assert.ok(maxDiff(vectors[0], vectors[1]) > 0.01, 'different texts, different vectors');
  assert.deepEqual(await embedder.embed([]), []);
  // Deterministic across calls.
  assert.ok(maxDiff((await embedder.embed([SENTENCES[1]]))[0], vectors[1]) < 1e-6);
});

test('pooling is the mean of the token states under the attention mask, then L2-normalised', async () => {
  const t = await import('@xenova/transformers');
  // onnxruntime-web filled in its WebAssembly flags when it started: it is the runtime in use.
  const wasm = t.env.backends.onnx.wasm;
  assert.equal(wasm.numThreads, 1);
  assert.equal(typeof wasm.initTimeout, 'number');
  t.env.localModelPath = `${work}/`;
  const tokenizer = await t.AutoTokenizer.from_pretrained('tiny-bert');
  const model = await t.AutoModel.from_pretrained('tiny-bert', { quantized: false });
  const texts = [SENTENCES[0], SENTENCES[7]];
  const inputs = tokenizer(texts, { padding: true, truncation: true });
  assert.deepEqual(Array.from(inputs.input_ids.data.slice(0, 4), Number), [101, 7592, 2088, 102]);
  const { last_hidden_state: h } = await model(inputs);
  const [batch, seq, dim] = h.dims as number[];
  const mask = inputs.attention_mask.data;
  const ours = await embedder.embed(texts);
  for (let b = 0; b < batch; b++) {
    const mean = new Float32Array(dim);
    let count = 0;
    for (let s = 0; s < seq; s++) {
      if (Number(mask[b * seq + s]) === 0) continue;
      count++;
      for (let d = 0; d < dim; d++) mean[d] += (h.data as Float32Array)[(b * seq + s) * dim + d];
    }
    const n = norm(mean.map((x) => x / count));
    const expected = mean.map((x) => x / count / n);
    assert.ok(maxDiff(expected, ours[b]) < 1e-5, `text ${b}: ${maxDiff(expected, ours[b])}`);
  }
  await model.dispose();
});

test('a batch gives the same vectors as one text at a time (padding is masked)', async () => {
  const together = await embedder.embed(SENTENCES);
  for (let i = 0; i < SENTENCES.length; i++) {
    const [alone] = await embedder.embed([SENTENCES[i]]);
    assert.ok(maxDiff(alone, together[i]) < 1e-5, `${JSON.stringify(SENTENCES[i])}: ${maxDiff(alone, together[i])}`);
  }
  // Concurrent callers are serialised, each gets its own answer.
  const parallel = await Promise.all(SENTENCES.map((s) => embedder.embed([s])));
  parallel.forEach(([v], i) => assert.ok(maxDiff(v, together[i]) < 1e-5));
});

test("texts run in length-sorted groups under a token budget; vectors come back in the caller's order", async () => {
  const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
  // Lengths out of order, so the sort that groups them has to be undone.
  const texts = [words(120, 'long'), 'short one', words(40, 'middle'), words(200, 'longest'), 'tiny', words(8, 'small')];
  const oneRun = await loadEmbedder({ modelPath: MODEL, batchTokens: 100_000 });
  const oneEach = await loadEmbedder({ modelPath: MODEL, batchTokens: 1 });
  assert.ok('embedder' in oneRun && 'embedder' in oneEach);
  assert.notEqual(oneRun.embedder, oneEach.embedder, 'another budget is another pipeline');
  const together = await oneRun.embedder.embed(texts);
  const alone = await oneEach.embedder.embed(texts);
  const byDefault = await embedder.embed(texts);
  assert.equal(alone.length, texts.length);
  texts.forEach((text, i) => {
    assert.ok(maxDiff(together[i]!, alone[i]!) < 1e-5, `${text.slice(0, 20)}: ${maxDiff(together[i]!, alone[i]!)}`);
    assert.ok(maxDiff(byDefault[i]!, alone[i]!) < 1e-5);
    // Each vector is its own text's: different texts give clearly different vectors.
    if (i > 0) assert.ok(maxDiff(alone[i]!, alone[i - 1]!) > 1e-3);
  });
  await oneRun.embedder.dispose();
  await oneEach.embedder.dispose();
});

test('texts are truncated to 256 tokens: what follows them does not change the vector', async () => {
  const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i % 7 ? '' : ' again'}`).join(' ');
  const head = words(300, 'storage'); // more than 256 word pieces
  const [a, b] = await embedder.embed([`${head} ${words(50, 'banana')}`, `${head} ${words(50, 'kernel')}`]);
  assert.ok(maxDiff(a!, b!) < 1e-6, 'only the first 256 tokens count');
  const [short1, short2] = await embedder.embed([`${words(20, 'storage')} banana`, `${words(20, 'storage')} kernel`]);
  assert.ok(maxDiff(short1!, short2!) > 1e-4, 'within the limit every word counts');
});

test('loading the same model again reuses the loaded pipeline; another model gets its own id', async () => {
  const loads = embedderLoads();
  const t0 = performance.now();
  const again = await loadEmbedder({ modelPath: MODEL });
  assert.ok('embedder' in again);
  assert.equal(again.embedder, embedder);
  assert.equal(embedderLoads(), loads);
  assert.ok(performance.now() - t0 < 1000);

  const other = await loadEmbedder({ modelPath: MODEL_B });
  assert.ok('embedder' in other);
  assert.equal(embedderLoads(), loads + 1);
  assert.notEqual(other.embedder.id, embedder.id);
  const [a] = await embedder.embed(['hello world']);
  const [b] = await other.embedder.embed(['hello world']);
  assert.ok(maxDiff(a, b) > 0.01);
});

test('a model change is detected by the vector file and everything is re-embedded in the background', async () => {
  const memory = tmpFolder('embeddings-memory');
  const file = path.join(memory, 'vectors.f32');
  const docs = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, text: `${SENTENCES[i % SENTENCES.length]} (note ${i})` }));

  const embedAll = async (e: Embedder, store: VectorStore): Promise<void> => {
    const queue = new EmbeddingQueue<{ id: number; text: string }>({
      embedder: e,
      batchSize: 8,
      store: (items, vectors) => {
        items.forEach((it, i) => store.add(it.id, vectors[i]));
        store.flush();
      },
    });
    queue.enqueue(docs.filter((d) => !store.has(d.id)));
    await queue.drain();
  };

  const first = VectorStore.open(file, embedder.dim, embedder.id);
  assert.match(first.rebuilt ?? '', /no vector file/);
  await embedAll(embedder, first.store);
  assert.equal(first.store.size, 40);
  first.store.close();

  const same = VectorStore.load(file, embedder.dim, embedder.id);
  assert.ok(same.ok && same.store.size === 40);
  same.store.close();

  const r = await loadEmbedder({ modelPath: MODEL_B });
  assert.ok('embedder' in r);
  const changed = VectorStore.load(file, r.embedder.dim, r.embedder.id);
  assert.equal(changed.ok, false);
  assert.equal(!changed.ok && changed.code, 'model-mismatch');
  const fresh = VectorStore.create(file, r.embedder.dim, r.embedder.id);
  await embedAll(r.embedder, fresh);
  assert.equal(fresh.size, 40);
  const [q] = await r.embedder.embed([docs[5].text]);
  assert.equal(fresh.search(q, 1)[0].id, docs[5].id);
  fresh.close();
});

test('without a usable model, loadEmbedder says why instead of throwing', async () => {
  const memory = tmpFolder('embeddings-memory');
  const cases: [Parameters<typeof loadEmbedder>[0], RegExp][] = [
    [{ modelPath: path.join(work, 'nowhere') }, /does not exist/],
    [{ memoryFolder: memory }, /Xenova\/all-MiniLM-L6-v2 is not downloaded .*downloads are off/],
    [{}, /no memory folder/],
    [{ memoryFolder: memory, model: '../../etc' }, /not a model id/],
  ];
  const partial = path.join(work, 'partial');
  makeModel(partial);
  fs.rmSync(path.join(partial, 'tokenizer.json'));
  cases.push([{ modelPath: partial }, /lacks tokenizer\.json/]);
  const broken = path.join(work, 'broken');
  makeModel(broken);
  fs.writeFileSync(path.join(broken, 'onnx', 'model.onnx'), Buffer.from('this is not an onnx model'));
  cases.push([{ modelPath: broken }, /did not load/]);
  for (const [options, reason] of cases) {
    const logged: string[] = [];
    const r = await loadEmbedder({ ...options, log: (m) => logged.push(m) });
    assert.ok('unavailable' in r, `expected unavailable for ${JSON.stringify(options)}`);
    assert.match(r.unavailable, reason);
    assert.ok(logged.some((m) => m.includes(r.unavailable)));
  }
  // The working model still works after all that.
  assert.equal((await embedder.embed(['still fine']))[0].length, 32);
});

test('a hub model is fetched once into <memory>/models with progress, then loads offline', async () => {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const m = /^\/acme\/tiny-bert\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    const file = m ? path.join(MODEL, m[1].replace('model_quantized', 'model')) : '';
    if (!m || !fs.existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    const body = fs.readFileSync(file);
    res.writeHead(200, { 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const remoteHost = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const memory = tmpFolder('embeddings-memory');
    const progress: ModelProgress[] = [];
    const off = await loadEmbedder({ memoryFolder: memory, model: 'acme/tiny-bert', remoteHost });
    assert.ok('unavailable' in off && /downloads are off/.test(off.unavailable));
    assert.equal(requests.length, 0, 'nothing fetched while downloads are off');

    const r = await loadEmbedder({
      memoryFolder: memory,
      model: 'acme/tiny-bert',
      remoteHost,
      allowDownload: true,
      onProgress: (p) => progress.push(p),
    });
    assert.ok('embedder' in r, 'unavailable' in r ? r.unavailable : '');
    assert.equal(r.embedder.id, 'acme/tiny-bert#quantized');
    const dir = path.join(memory, 'models', 'acme', 'tiny-bert');
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'])
      assert.ok(fs.existsSync(path.join(dir, f)), f);
    assert.ok(!fs.readdirSync(path.join(dir, 'onnx')).some((f) => f.includes('.part')), 'no partial files left');
    const done = progress.filter((p) => p.status === 'downloaded').map((p) => p.file);
    assert.deepEqual(done.sort(), ['config.json', 'onnx/model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    const onnx = progress.filter((p) => p.file === 'onnx/model_quantized.onnx' && p.status === 'downloaded')[0];
    assert.equal(onnx.loaded, fs.statSync(path.join(MODEL, 'onnx', 'model.onnx')).size);
    assert.equal(progress[progress.length - 1].status, 'ready');
    const [v] = await r.embedder.embed(['hello world']);
    const [expected] = await embedder.embed(['hello world']);
    assert.ok(maxDiff(v, expected) < 1e-6, 'the same weights as the local folder');

    const fetched = requests.length;
    const offline = await loadEmbedder({ memoryFolder: memory, model: 'acme/tiny-bert', remoteHost });
    assert.ok('embedder' in offline);
    assert.equal(requests.length, fetched, 'fetched once');

    const missing = await loadEmbedder({ memoryFolder: memory, model: 'acme/absent', remoteHost, allowDownload: true });
    assert.ok('unavailable' in missing && /HTTP 404/.test(missing.unavailable));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  const memory = tmpFolder('embeddings-memory');
  const unreachable = await loadEmbedder({ memoryFolder: memory, allowDownload: true, remoteHost });
  assert.ok(
    'unavailable' in unreachable && /could not reach/.test(unreachable.unavailable),
    'unavailable' in unreachable ? unreachable.unavailable : '',
  );
});

test('the queue embeds in the background, in batches, and drains', async () => {
  const calls: number[] = [];
  const counting: Embedder = {
    id: embedder.id,
    dim: embedder.dim,
    embed: (texts) => {
      calls.push(texts.length);
      return embedder.embed(texts);
    },
  };
  const stored = new Map<number, Float32Array>();
  const queue = new EmbeddingQueue<{ id: number; text: string }>({
    embedder: counting,
    batchSize: 8,
    store: (items, vectors) => items.forEach((it, i) => stored.set(it.id, vectors[i])),
  });
  const items = Array.from({ length: 50 }, (_, i) => ({ id: i, text: `${SENTENCES[i % SENTENCES.length]} #${i}` }));
  queue.enqueue(items);
  assert.equal(queue.pending, 50);
  assert.equal(calls.length, 0, 'enqueue returns before any embedding');
  assert.equal(stored.size, 0);
  await queue.drain();
  assert.equal(queue.pending, 0);
  assert.deepEqual(calls, [8, 8, 8, 8, 8, 8, 2]);
  assert.equal(stored.size, 50);
  assert.deepEqual(queue.stats, { embedded: 50, failed: 0, batches: 7, storeErrors: 0 });
  const direct = await embedder.embed([items[13].text]);
  assert.ok(maxDiff(direct[0], stored.get(13)!) < 1e-5);
  await queue.drain(); // idle: resolves at once

  // With a key, a text re-enqueued before its turn replaces the pending one.
  const keyed = new EmbeddingQueue<{ id: number; text: string }>({
    embedder,
    batchSize: 4,
    key: (it) => it.id,
    store: (its, vectors) => its.forEach((it, i) => stored.set(1000 + it.id, vectors[i])),
  });
  keyed.enqueue([
    { id: 1, text: 'old text' },
    { id: 2, text: 'other' },
  ]);
  keyed.enqueue([{ id: 1, text: 'hello world' }]);
  assert.equal(keyed.pending, 2);
  await keyed.drain();
  assert.ok(maxDiff(stored.get(1001)!, (await embedder.embed(['hello world']))[0]) < 1e-5);
});

test('queue errors are logged and counted, never thrown', async () => {
  const flaky: Embedder = {
    id: 'flaky',
    dim: embedder.dim,
    embed: async (texts) => {
      if (texts.includes('poison')) throw new Error('cannot embed poison');
      return embedder.embed(texts);
    },
  };
  const logged: string[] = [];
  const stored: string[] = [];
  let storeCalls = 0;
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    const queue = new EmbeddingQueue<{ text: string }>({
      embedder: flaky,
      batchSize: 4,
      log: (m) => logged.push(m),
      store: (items) => {
        storeCalls++;
        if (storeCalls === 3) throw new Error('disk full');
        stored.push(...items.map((i) => i.text));
      },
    });
    queue.enqueue(['a', 'b', 'poison', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((text) => ({ text })));
    await queue.drain();
    const s = queue.stats;
    assert.equal(s.storeErrors, 1);
    assert.equal(s.failed, 1 + 3, 'the poison text, and the batch whose storing failed');
    assert.equal(s.embedded, 7);
    assert.deepEqual(stored, ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    assert.ok(logged.some((m) => /poison/.test(m)) && logged.some((m) => /disk full/.test(m)));
    assert.match(s.lastError ?? '', /disk full/);
    // Still alive afterwards.
    queue.enqueue([{ text: 'k' }]);
    await queue.drain();
    assert.equal(queue.stats.embedded, 8);
    await queue.stop();
    queue.enqueue([{ text: 'after stop' }]);
    assert.equal(queue.pending, 0);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.deepEqual(unhandled, []);
});

test('the esbuild bundle runs with no node_modules in reach and gives the same vectors', async () => {
  const out = path.join(work, 'bundle-build');
  execFileSync(process.execPath, [path.join(ROOT, 'esbuild.embeddings.mjs'), out], { cwd: ROOT, stdio: 'pipe' });
  const host = `${process.platform}-${process.arch}`;
  assert.deepEqual(fs.readdirSync(out).sort(), ['embed-probe.js', 'native', 'ort-wasm-simd.wasm', 'ort-wasm.wasm']);
  assert.ok(fs.existsSync(path.join(out, 'native', host, 'onnxruntime_binding.node')), `native/${host} beside the bundle`);
  // Copy to a folder outside the project: nothing to resolve from node_modules.
  const isolated = tmpFolder('bundle');
  const probe = (...args: string[]) => {
    const stdout = execFileSync(process.execPath, [path.join(isolated, 'embed-probe.js'), MODEL, ...args], {
      cwd: isolated,
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: '' },
    });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  };
  fs.cpSync(out, isolated, { recursive: true });
  const ours = await embedder.embed([
    'hello world',
    'The quick brown fox jumps over the lazy dog.',
    'Recall keeps long-term memory for coding agents.',
  ]);
  const wasm = probe('--backend', 'wasm');
  assert.equal(wasm.backend, 'wasm');
  assert.equal(wasm.id, embedder.id);
  assert.deepEqual(wasm.listeners, { uncaughtException: 0, unhandledRejection: 0 });
  ours.forEach((v, i) => assert.ok(maxDiff(v, Float32Array.from(wasm.vectors[i])) < 1e-6));
  // By default the bundle runs the native runtime from native/<platform>-<arch>/ beside it.
  const native = probe();
  assert.equal(native.backend, 'native');
  assert.equal(native.fallback, undefined);
  assert.equal(native.id, embedder.id);
  ours.forEach((v, i) => assert.ok(maxDiff(v, Float32Array.from(native.vectors[i])) < ACROSS_BACKENDS));
  // Without the binary (a platform no VSIX carries one for): WebAssembly, and the reason.
  const fallback = probe('--native-dir', tmpFolder('no-native'));
  assert.equal(fallback.backend, 'wasm');
  assert.match(fallback.fallback, /native runtime did not load \(no onnxruntime_binding\.node for /);
  ours.forEach((v, i) => assert.ok(maxDiff(v, Float32Array.from(fallback.vectors[i])) < 1e-6));
});

test('native and WebAssembly model threads give the same vectors; a native thread started again stays native', async () => {
  const script = workerScript(path.resolve(__dirname, '..', 'dist'))!;
  const load = async (options: { backend?: 'native' | 'wasm'; nativeDir?: string }) => {
    const r = await loadWorkerEmbedder(script, { modelPath: MODEL, ...options });
    assert.ok('embedder' in r, 'unavailable' in r ? r.unavailable : '');
    return r.embedder;
  };
  const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0) / (norm(a) * norm(b));
  const native = await load({});
  const wasm = await load({ backend: 'wasm' });
  assert.deepEqual([native.backend, wasm.backend, wasm.fallback], ['native', 'wasm', undefined]);
  const [a, b] = [await native.embed(SENTENCES), await wasm.embed(SENTENCES)];
  a.forEach((v, i) => {
    assert.ok(maxDiff(v, b[i]!) < ACROSS_BACKENDS, `text ${i}: ${maxDiff(v, b[i]!)}`);
    assert.ok(cosine(v, b[i]!) > 0.9999, `text ${i}: cosine ${cosine(v, b[i]!)}`);
  });
  assert.ok(maxDiff(a[0]!, a[1]!) > 0.01, 'different texts still differ');
  // onnxruntime-node 1.14's binding registers once per process: a second thread loads a copy of it.
  await native.close();
  const again = await load({ backend: 'native' });
  assert.equal(again.backend, 'native');
  (await again.embed(SENTENCES)).forEach((v, i) => assert.ok(maxDiff(v, a[i]!) < 1e-6, `text ${i}`));
  // A folder without the binary: the thread falls back to WebAssembly and says why.
  const fallback = await load({ nativeDir: tmpFolder('no-native') });
  assert.equal(fallback.backend, 'wasm');
  assert.match(fallback.fallback ?? '', /no onnxruntime_binding\.node for .* in .*no-native-/);
  (await fallback.embed(SENTENCES)).forEach((v, i) => assert.ok(maxDiff(v, b[i]!) < 1e-6, `text ${i}`));
  await Promise.all([again.close(), wasm.close(), fallback.close()]);
});

test('the worker-thread embedder gives the same vectors as in-process, says why a model is unavailable, and fails calls once stopped', async () => {
  // The bundle `npm test` builds first: the worker runs dist/embed-worker.js, as the service does.
  const script = workerScript(path.resolve(__dirname, '..', 'dist'));
  assert.ok(script, 'dist/embed-worker.js (run `npm run build`)');
  const progress: ModelProgress[] = [];
  const loaded = await loadWorkerEmbedder(script!, { modelPath: MODEL, onProgress: (p) => progress.push(p) });
  assert.ok('embedder' in loaded, 'unavailable' in loaded ? loaded.unavailable : '');
  const worker = loaded.embedder;
  assert.equal(worker.id, embedder.id);
  assert.equal(worker.dim, embedder.dim);
  assert.deepEqual(progress.map((p) => p.status).slice(-1), ['ready']);
  assert.equal(worker.backend, 'native', 'the built worker runs the native runtime beside it');
  const [inWorker, inProcess] = [await worker.embed(SENTENCES), await embedder.embed(SENTENCES)];
  inWorker.forEach((v, i) => assert.ok(maxDiff(v, inProcess[i]!) < ACROSS_BACKENDS, `text ${i}`));
  await worker.close();
  await assert.rejects(worker.embed(['after close']), /embedding worker stopped/);
  const missing = await loadWorkerEmbedder(script!, { modelPath: path.join(work, 'nowhere') });
  assert.ok('unavailable' in missing && /does not exist/.test(missing.unavailable));
});

test('the idle embedder lets its model thread go, loads it again for the next call, replaces a dead thread, refuses another model', async () => {
  const script = workerScript(path.resolve(__dirname, '..', 'dist'))!;
  const workers: WorkerEmbedder[] = [];
  const load = async (modelPath = MODEL) => {
    const r = await loadWorkerEmbedder(script, { modelPath });
    if ('embedder' in r) workers.push(r.embedder);
    return r;
  };
  const first = await load();
  assert.ok('embedder' in first);
  const logs: string[] = [];
  const idle = idleEmbedder(
    first.embedder,
    () => load(),
    300,
    (m) => logs.push(m),
  );
  const [expected] = await embedder.embed([SENTENCES[0]]);
  const same = async () => assert.ok(maxDiff((await idle.embed([SENTENCES[0]]))[0]!, expected!) < ACROSS_BACKENDS);

  await same();
  assert.equal(idle.loaded, true);
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(idle.loaded, false, 'let go after 300 ms without a call');
  assert.equal(workers[0]!.alive, false, 'its thread stopped');
  assert.ok(logs.some((l) => /unloaded/.test(l)));

  await same(); // loads again and waits for it
  assert.equal(idle.loaded, true);
  assert.equal(workers.length, 2);

  await workers[1]!.close(); // the thread dies under it
  await same();
  assert.equal(workers.length, 3, 'a dead thread is replaced, not failed on forever');
  assert.ok(logs.some((l) => /had stopped/.test(l)));
  await idle.close();
  await assert.rejects(idle.embed(['after close']), /closed/);
  assert.equal(workers[2]!.alive, false);

  // The files changed on disk meanwhile: another model's vectors must not join the first's.
  const a = await load();
  assert.ok('embedder' in a);
  const swapped = idleEmbedder(
    a.embedder,
    () => load(MODEL_B),
    100,
    () => {},
  );
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(swapped.loaded, false);
  await assert.rejects(swapped.embed(['hello']), /changed on disk/);
  await swapped.close();
  assert.ok(
    workers.every((w) => !w.alive),
    'no thread left running',
  );
});
