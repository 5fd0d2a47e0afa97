/**
 * Sentence embeddings in-process with @xenova/transformers 2.17.2 (feature-extraction pipeline,
 * mean pooling over the attention mask, L2 normalisation). The memory service runs this in a
 * worker thread (embed-worker.ts); queue.ts feeds it in the background.
 *
 * Backend (native-runtime.ts): ONNX Runtime's native build (onnxruntime-node) when its binary for
 * this platform is present and loads, else its WebAssembly build (onnxruntime-web), which runs
 * anywhere; `backend` forces one. Both give the same vectors to float rounding. In the bundle
 * esbuild.embeddings.mjs routes transformers.js's onnxruntime-node import to the chosen one;
 * unbundled (tests, tsx) a module resolution hook swaps in onnxruntime-web when WebAssembly is chosen.
 *
 * Models: a local folder or a hub model (model-files.ts finds and fetches them). A missing or
 * broken model never throws: `loadEmbedder` answers `{ unavailable: reason }` and the reason is
 * what `recall status` shows.
 *
 * transformers.js configures itself through one global `env`, so loads are serialised and each
 * load sets what it needs right before building its pipeline. Loaded embedders are cached by
 * model location: loading twice returns the same instance.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { download, locate, type ModelSource } from './model-files.js';
import { type Backend, type BackendChoice, chooseRuntime, defaultNativeDir, publishChoice } from './native-runtime.js';

export type { ModelProgress } from './model-files.js';

/** Set to true by esbuild.embeddings.mjs (onnxruntime-node is then onnxruntime-web). */
declare const RECALL_EMBED_BUNDLE: boolean | undefined;

export interface Embedder {
  readonly id: string;
  readonly dim: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface EmbedderOptions extends ModelSource {
  /** Folder holding ort-wasm*.wasm. Default: beside the bundle when bundled. */
  wasmPaths?: string;
  /** 'auto' (default: native when it loads, else WebAssembly), 'native' or 'wasm'. Fixed by the first load in a thread. */
  backend?: BackendChoice;
  /** Folder of onnxruntime_binding.node and its library. Default: native/<platform>-<arch> beside the bundle. */
  nativeDir?: string;
  /** Texts are cut to this many characters before tokenising (the model truncates tokens anyway). Default 4000. */
  maxChars?: number;
  /**
   * Tokens a text is truncated to. Default 256: what all-MiniLM-L6-v2 was trained for (its
   * sentence-transformers max_seq_length), while its tokenizer allows 512; attention memory grows
   * with the square of the length, and ONNX Runtime's WebAssembly heap never gives memory back.
   */
  maxTokens?: number;
  /**
   * Padded tokens per model run (texts x the longest of them). Default 512: two texts of 256
   * tokens, or eight of 64. A call's texts are sorted by length and run in groups under this
   * budget: attention memory grows with texts x tokens^2 and ONNX Runtime's WebAssembly heap
   * keeps its peak, so small runs keep the service small at the same speed.
   */
  batchTokens?: number;
  log?: (msg: string) => void;
}

/** What an option left out means. */
const DEFAULTS = { maxChars: 4000, maxTokens: 256, batchTokens: 512 };

export type LoadEmbedderResult = { embedder: TransformersEmbedder } | { unavailable: string };

type Transformers = typeof import('@xenova/transformers', { with: { 'resolution-mode': 'import' } });
/** The slice of a feature-extraction pipeline used here; its tensor's data is checked to be float32 where it is read. */
type Extractor = ((texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: unknown; dims: number[] }>) & {
  dispose?: () => Promise<void>;
  /** Its truncation length is what the pipeline pads and truncates to. */
  tokenizer?: { model_max_length?: number; encode?: (text: string) => number[] };
};

let transformersPromise: Promise<Transformers> | undefined;
let activeBackend: Backend | undefined;
/** Why the native runtime is not the one in use, when it is not. */
let fallbackReason: string | undefined;
let loadChain: Promise<unknown> = Promise.resolve();
const cache = new Map<string, TransformersEmbedder>();
let loadCount = 0;

/** How many pipelines this process has built (a cached load does not count). */
export function embedderLoads(): number {
  return loadCount;
}

function bundled(): boolean {
  return typeof RECALL_EMBED_BUNDLE !== 'undefined' && RECALL_EMBED_BUNDLE === true;
}

/** Swaps onnxruntime-node for onnxruntime-web in ESM resolution (unbundled runs). */
function redirectToWasm(): boolean {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('node:module') as { register?: (url: string) => void };
  if (typeof mod.register !== 'function') return false;
  const hook = "export async function resolve(s, c, next) { return next(s === 'onnxruntime-node' ? 'onnxruntime-web' : s, c); }";
  mod.register(`data:text/javascript,${encodeURIComponent(hook)}`);
  return true;
}

function importTransformers(options: EmbedderOptions, log: (m: string) => void): Promise<Transformers> {
  const wanted = options.backend ?? 'auto';
  if (!transformersPromise) {
    const choice = chooseRuntime(wanted, options.nativeDir ?? defaultNativeDir(bundled()));
    if (choice.backend === 'wasm' && !bundled() && !redirectToWasm()) {
      // Without resolution hooks (old Node) the unbundled import gets onnxruntime-node regardless.
      choice.backend = 'native';
      choice.fallback = undefined;
    }
    publishChoice(choice);
    activeBackend = choice.backend;
    fallbackReason = choice.fallback;
    if (choice.fallback) log(`embeddings: ${choice.fallback}; using ONNX Runtime WebAssembly`);
    transformersPromise = import('@xenova/transformers');
  } else if (wanted !== 'auto' && wanted !== activeBackend) {
    log(`embeddings: backend ${activeBackend} already in use in this thread (asked for ${wanted})`);
  }
  return transformersPromise;
}

/** Runs `fn` after every earlier load, so the global transformers `env` is ours meanwhile. */
function serialised<T>(fn: () => Promise<T>): Promise<T> {
  const run = loadChain.then(fn, fn);
  loadChain = run.catch(() => undefined);
  return run;
}

function wasmFolder(explicit?: string): string | undefined {
  const dir = explicit ?? (typeof __dirname !== 'undefined' ? __dirname : undefined);
  if (!dir) return undefined;
  if (!explicit && !['ort-wasm-simd.wasm', 'ort-wasm.wasm'].some((f) => fs.existsSync(path.join(dir, f)))) return undefined;
  return dir.endsWith(path.sep) || dir.endsWith('/') ? dir : dir + path.sep;
}

/** `function(t){throw t}` or `function(t){if(!(t instanceof X))throw t}`, however printed. */
function isRethrower(listener: (...args: never[]) => unknown): boolean {
  const src = Function.prototype.toString.call(listener).replace(/[\s;]/g, '');
  return /^function\w*\((\w+)\)\{(if\(!\(\1instanceof\w+\)\)\{?)?throw\1\}?\}$/.test(src);
}

/** A transformers.js feature-extraction pipeline: mean pooling, unit-length vectors. */
export class TransformersEmbedder implements Embedder {
  private chain: Promise<unknown> = Promise.resolve();
  private disposed = false;

  private constructor(
    readonly id: string,
    readonly dim: number,
    /** Human-readable model (folder or hub id). */
    readonly label: string,
    /** 'native' (onnxruntime-node) or 'wasm' (onnxruntime-web). */
    readonly backend: Backend,
    /** Why the native runtime is not in use, when it is not and was not refused on purpose. */
    readonly fallback: string | undefined,
    private readonly extractor: Extractor,
    private readonly maxChars: number,
    private readonly maxTokens: number,
    private readonly batchTokens: number,
    private readonly cacheKey: string,
  ) {}

  /** Loads (or returns the cached) embedder; throws with a readable reason. Prefer `loadEmbedder`. */
  static load(options: EmbedderOptions = {}): Promise<TransformersEmbedder> {
    return serialised(async () => {
      const log = options.log ?? (() => {});
      const loc = locate(options);
      if (typeof loc === 'string') throw new Error(loc);
      const maxTokens = options.maxTokens ?? DEFAULTS.maxTokens;
      const batchTokens = Math.max(1, options.batchTokens ?? DEFAULTS.batchTokens);
      const key = `${loc.dir}|${loc.quantized}|${maxTokens}|${batchTokens}`;
      const cached = cache.get(key);
      if (cached && cached.id === loc.id) return cached;
      if (loc.fetch) await download(loc, options);

      const listeners = {
        uncaughtException: process.listeners('uncaughtException'),
        unhandledRejection: process.listeners('unhandledRejection'),
      };
      try {
        options.onProgress?.({ model: loc.label, status: 'loading' });
        const t = await importTransformers(options, log);
        const { env } = t;
        env.allowLocalModels = true;
        env.allowRemoteModels = false;
        env.useBrowserCache = false;
        env.useFSCache = false;
        env.useCustomCache = false;
        env.localModelPath = loc.root.endsWith('/') || loc.root.endsWith(path.sep) ? loc.root : `${loc.root}/`;
        const wasm = env.backends.onnx?.wasm;
        if (wasm) {
          // One thread: ONNX Runtime Web 1.14 starts its threads from blob: URLs, which Node's workers refuse.
          wasm.numThreads = 1;
          wasm.proxy = false;
          const folder = wasmFolder(options.wasmPaths);
          if (folder) wasm.wasmPaths = folder;
        }
        let extractor: Extractor;
        let dim: number;
        try {
          extractor = await t.pipeline('feature-extraction', loc.name, { quantized: loc.quantized, local_files_only: true });
          loadCount++;
          const tokenizer = extractor.tokenizer;
          if (tokenizer) tokenizer.model_max_length = Math.min(tokenizer.model_max_length ?? Infinity, maxTokens);
          const probe = await extractor(['recall'], { pooling: 'mean', normalize: true });
          dim = probe.dims[probe.dims.length - 1];
        } catch (e) {
          throw new Error(`model ${loc.label} did not load: ${e instanceof Error ? e.message : String(e)}`);
        }
        const embedder = new TransformersEmbedder(
          loc.id,
          dim,
          loc.label,
          activeBackend ?? 'wasm',
          fallbackReason,
          extractor,
          options.maxChars ?? DEFAULTS.maxChars,
          maxTokens,
          batchTokens,
          key,
        );
        cache.set(key, embedder);
        options.onProgress?.({ model: loc.label, status: 'ready' });
        return embedder;
      } finally {
        // The ONNX Runtime WebAssembly module (Emscripten) installs process-wide handlers that just
        // rethrow, killing the process on any unhandled rejection: take those out again (only
        // tiny rethrowing handlers added meanwhile, not ones the service added concurrently).
        for (const l of process.listeners('uncaughtException')) {
          if (!listeners.uncaughtException.includes(l) && isRethrower(l)) process.removeListener('uncaughtException', l);
        }
        for (const l of process.listeners('unhandledRejection')) {
          if (!listeners.unhandledRejection.includes(l) && isRethrower(l)) process.removeListener('unhandledRejection', l);
        }
      }
    });
  }

  /** Unit-length vectors, one per text, in order. Calls are run one at a time. */
  embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    const run = this.chain.then(async () => {
      if (this.disposed) throw new Error('embedder disposed');
      const input = texts.map((t) => (typeof t !== 'string' ? String(t ?? '') : t.length > this.maxChars ? t.slice(0, this.maxChars) : t));
      const vectors = new Array<Float32Array>(input.length);
      for (const group of this.groups(input)) {
        const out = await this.extractor(
          group.map((i) => input[i]!),
          { pooling: 'mean', normalize: true },
        );
        const dim = out.dims[out.dims.length - 1];
        const data = out.data;
        if (!(data instanceof Float32Array)) throw new Error('model returned vectors that are not float32');
        if (dim !== this.dim || data.length !== dim * group.length)
          throw new Error(`model returned ${out.dims.join('x')} for ${group.length} texts`);
        group.forEach((textIndex, row) => (vectors[textIndex] = data.slice(row * dim, (row + 1) * dim)));
      }
      return vectors;
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Indices of `texts`, shortest first, in groups whose padded size stays within the token budget. */
  private groups(texts: string[]): number[][] {
    // A question (one text) is its own group: no need to tokenise it twice on the query path.
    if (texts.length === 1) return [[0]];
    const encode = this.extractor.tokenizer?.encode?.bind(this.extractor.tokenizer);
    // Without a tokenizer to ask, ~4 characters a token (English prose) is close enough for a budget.
    const tokens = texts.map((t) => Math.min(this.maxTokens, encode ? encode(t).length : Math.ceil(t.length / 4) + 2));
    const order = texts.map((_, i) => i).sort((a, b) => tokens[a]! - tokens[b]!);
    const groups: number[][] = [];
    let group: number[] = [];
    for (const i of order) {
      // Sorted ascending, so this text is the group's longest: the group pads to its length.
      if (group.length > 0 && (group.length + 1) * tokens[i]! > this.batchTokens) {
        groups.push(group);
        group = [];
      }
      group.push(i);
    }
    if (group.length > 0) groups.push(group);
    return groups;
  }

  /** Releases the ONNX session; the next load builds a new one. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (cache.get(this.cacheKey) === this) cache.delete(this.cacheKey);
    await this.chain;
    await this.extractor.dispose?.();
  }
}

/**
 * Loads an embedder, or says why there is none (never throws): no model downloaded and downloads
 * off, a folder missing files, a download that failed, a model that does not load.
 */
export async function loadEmbedder(options: EmbedderOptions = {}): Promise<LoadEmbedderResult> {
  try {
    return { embedder: await TransformersEmbedder.load(options) };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    options.log?.(`embeddings unavailable: ${msg}`);
    return { unavailable: msg };
  }
}
