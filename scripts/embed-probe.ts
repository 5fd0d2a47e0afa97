/**
 * Loads an embedder from a model folder and embeds a few sentences; prints one JSON line.
 * Bundled by `node esbuild.embeddings.mjs` to check the embedder runs from a self-contained bundle.
 *
 *   node embed-probe.js MODEL_DIR [--backend auto|native|wasm] [--native-dir DIR] [--bench N] [--batch B]
 *
 * --bench embeds N generated sentences of ~30 tokens, B a call (the throughput in docs/BENCHMARKS.md).
 */
import * as os from 'node:os';
import { loadEmbedder } from '../src/service/embeddings/embedder';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const modelPath = args.find((a) => !a.startsWith('--'));
  const flag = (name: string, dflt: number): number => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const text = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const backend = text('--backend') as 'auto' | 'native' | 'wasm' | undefined;
  const t0 = performance.now();
  const r = await loadEmbedder({ modelPath, backend, nativeDir: text('--native-dir') });
  const loadMs = performance.now() - t0;
  if ('unavailable' in r) {
    console.log(JSON.stringify({ unavailable: r.unavailable }));
    return;
  }
  const e = r.embedder;
  const texts = ['hello world', 'The quick brown fox jumps over the lazy dog.', 'Recall keeps long-term memory for coding agents.'];
  const vectors = await e.embed(texts);
  const out: Record<string, unknown> = {
    id: e.id,
    dim: e.dim,
    backend: e.backend,
    fallback: e.fallback,
    loadMs: Math.round(loadMs),
    norms: vectors.map((v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0))),
    vectors: vectors.map((v) => Array.from(v)),
    listeners: {
      uncaughtException: process.listenerCount('uncaughtException'),
      unhandledRejection: process.listenerCount('unhandledRejection'),
    },
  };
  const n = flag('--bench', 0);
  if (n > 0) {
    const batch = flag('--batch', 16);
    const words =
      'memory agent graph episode session vector search keyword fusion entity relation confidence decay journal snapshot service client model'.split(
        ' ',
      );
    const sentences = Array.from({ length: n }, (_, i) =>
      Array.from({ length: 26 + (i % 5) }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' '),
    );
    const t = performance.now();
    let worst = 0;
    for (let i = 0; i < n; i += batch) {
      const b0 = performance.now();
      await e.embed(sentences.slice(i, i + batch));
      worst = Math.max(worst, performance.now() - b0);
    }
    const s = (performance.now() - t) / 1000;
    // Each word is one bert-base-uncased token: 26-30 words, 28-32 tokens with [CLS] and [SEP].
    const load = os.loadavg().map((l) => l.toFixed(2));
    out.bench = { sentences: n, batch, tokens: '28-32', perSecond: Math.round(n / s), worstBatchMs: Math.round(worst), load };
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
