/**
 * Sentence embeddings in-process with @xenova/transformers 2.17.2 (feature-extraction pipeline,
 * mean pooling over the attention mask, L2 normalisation). The memory service runs this in a
 * worker thread (embed-worker.ts); embedding-queue.ts feeds it in the background.
 *
 * Backend: ONNX Runtime's WebAssembly build, one thread, by default: platform-neutral, no native
 * binaries. In the bundle esbuild.embeddings.mjs aliases onnxruntime-node to onnxruntime-web and
 * the ort-wasm*.wasm files sit beside the bundle; unbundled (tests, tsx) the same swap is made by
 * a module resolution hook registered before transformers is first imported. `backend: 'native'`
 * keeps onnxruntime-node when it is installed (unbundled only; ~3x faster, not portable).
 *
 * Models: a local folder (`modelPath`: config.json, tokenizer.json, tokenizer_config.json,
 * onnx/model_quantized.onnx or onnx/model.onnx), or a hub model (default Xenova/all-MiniLM-L6-v2)
 * read from <memory>/models/<model>/, fetched there once, atomically and with progress, only when
 * `allowDownload` is set. A missing or broken model never throws: `loadEmbedder` answers
 * `{ unavailable: reason }` and the reason is what `recall status` shows.
 *
 * transformers.js configures itself through one global `env`, so loads are serialised and each
 * load sets what it needs right before building its pipeline. Loaded embedders are cached by
 * model location: loading twice returns the same instance.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Set to true by esbuild.embeddings.mjs (onnxruntime-node is then onnxruntime-web). */
declare const RECALL_EMBED_BUNDLE: boolean | undefined;

export interface Embedder {
  readonly id: string;
  readonly dim: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export const DEFAULT_MODEL = 'Xenova/all-MiniLM-L6-v2';
export const DEFAULT_HUB = 'https://huggingface.co';

export interface ModelProgress {
  model: string;
  /** Which step: fetching a file, loading the model, or ready. */
  status: 'download' | 'downloaded' | 'loading' | 'ready';
  file?: string;
  loaded?: number;
  total?: number;
}

export interface EmbedderOptions {
  /** The memory folder; hub models live in <memory>/models/<model>/. */
  memoryFolder?: string;
  /** A local model folder. Wins over `model`. */
  modelPath?: string;
  /** Hub model id. Default Xenova/all-MiniLM-L6-v2. */
  model?: string;
  /** Fetch a hub model missing from <memory>/models (once). Default false. */
  allowDownload?: boolean;
  /** Use onnx/model_quantized.onnx. Default: true for hub models; for a folder, whether it has one. */
  quantized?: boolean;
  /** Hub address (a mirror, or a test server). Default https://huggingface.co. */
  remoteHost?: string;
  onProgress?: (p: ModelProgress) => void;
  /** Folder holding ort-wasm*.wasm. Default: beside the bundle when bundled. */
  wasmPaths?: string;
  /** 'wasm' (default) or 'native' (onnxruntime-node, unbundled only). Fixed by the first load in a process. */
  backend?: 'wasm' | 'native';
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
   * budget. Attention memory grows with texts x tokens^2 and ONNX Runtime's WebAssembly heap
   * keeps its peak: on a MiniLM-shaped int8 model, runs of 8 texts of 256 tokens grew it by
   * 74 MB, runs of 2 by 0-16 MB, at the same speed (40 such texts: 10.9 s in 8s, 10.5 s in 2s).
   */
  batchTokens?: number;
  /** Per-file download timeout in ms. Default 10 minutes. */
  downloadTimeoutMs?: number;
  log?: (msg: string) => void;
}

export type LoadEmbedderResult = { embedder: TransformersEmbedder } | { unavailable: string };

type Transformers = typeof import('@xenova/transformers', { with: { 'resolution-mode': 'import' } });
/** The slice of a feature-extraction pipeline used here. */
type Extractor = ((texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>) & {
  dispose?: () => Promise<void>;
  /** Its truncation length is what the pipeline pads and truncates to. */
  tokenizer?: { model_max_length?: number; encode?: (text: string) => number[] };
};

const HUB_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

let transformersPromise: Promise<Transformers> | undefined;
let activeBackend: 'wasm' | 'native' | undefined;
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
  const hook =
    "export async function resolve(s, c, next) { return next(s === 'onnxruntime-node' ? 'onnxruntime-web' : s, c); }";
  mod.register(`data:text/javascript,${encodeURIComponent(hook)}`);
  return true;
}

function importTransformers(backend: 'wasm' | 'native', log: (m: string) => void): Promise<Transformers> {
  if (!transformersPromise) {
    if (bundled()) activeBackend = 'wasm';
    else if (backend === 'wasm' && redirectToWasm()) activeBackend = 'wasm';
    else activeBackend = 'native';
    transformersPromise = import('@xenova/transformers');
  } else if (backend !== activeBackend) {
    log(`embeddings: backend ${activeBackend} already in use in this process (asked for ${backend})`);
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

interface ModelLocation {
  /** transformers' localModelPath and model name: files are read from <root>/<name>/. */
  root: string;
  name: string;
  dir: string;
  quantized: boolean;
  id: string;
  label: string;
  /** Hub model that must be fetched first. */
  fetch?: { model: string; files: string[] };
}

const onnxFile = (quantized: boolean): string => `onnx/${quantized ? 'model_quantized' : 'model'}.onnx`;

function hashFile(file: string): string {
  const h = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    let n: number;
    while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex').slice(0, 12);
}

/** Where the model is and what its id is, or why it cannot be used. */
function locate(o: EmbedderOptions): ModelLocation | string {
  if (o.modelPath) {
    const dir = path.resolve(o.modelPath);
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return `model folder ${dir} does not exist`;
    const quantized = o.quantized ?? fs.existsSync(path.join(dir, onnxFile(true)));
    const missing = [...HUB_FILES, onnxFile(quantized)].filter((f) => !fs.existsSync(path.join(dir, f)));
    if (missing.length) return `model folder ${dir} lacks ${missing.join(', ')}`;
    const name = path.basename(dir);
    return {
      root: path.dirname(dir),
      name,
      dir,
      quantized,
      id: `local:${name}#${hashFile(path.join(dir, onnxFile(quantized)))}`,
      label: `${dir}${quantized ? ' (quantized)' : ''}`,
    };
  }
  const model = o.model ?? DEFAULT_MODEL;
  if (!/^[\w.-]+(\/[\w.-]+)?$/.test(model) || model.split('/').some((p) => p === '..' || p === '.')) return `"${model}" is not a model id`;
  if (!o.memoryFolder) return `no memory folder to keep ${model} in`;
  const root = path.join(path.resolve(o.memoryFolder), 'models');
  const dir = path.join(root, ...model.split('/'));
  const quantized = o.quantized ?? true;
  const files = [...HUB_FILES, onnxFile(quantized)];
  const missing = files.filter((f) => !fs.existsSync(path.join(dir, f)));
  const loc: ModelLocation = {
    root,
    name: model,
    dir,
    quantized,
    id: `${model}#${quantized ? 'quantized' : 'fp32'}`,
    label: `${model}${quantized ? ' (quantized)' : ''}`,
  };
  if (missing.length === 0) return loc;
  if (!o.allowDownload) {
    return `model ${model} is not downloaded (looked in ${dir}) and downloads are off: allow downloads once, or give a local model folder`;
  }
  return { ...loc, fetch: { model, files: missing } };
}

/** Fetches hub files into the model folder: temp file, fsync, rename; progress per chunk (throttled). */
async function download(loc: ModelLocation, o: EmbedderOptions): Promise<void> {
  const host = (o.remoteHost ?? DEFAULT_HUB).replace(/\/+$/, '');
  const model = loc.fetch!.model;
  for (const file of loc.fetch!.files) {
    const url = `${host}/${model}/resolve/main/${file}`;
    const target = path.join(loc.dir, ...file.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const signal = AbortSignal.timeout(o.downloadTimeoutMs ?? 600_000);
    let res: Response;
    try {
      res = await fetch(url, { signal, redirect: 'follow' });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`could not reach ${host} for ${model} (${cause?.code ?? cause?.message ?? (e as Error).message})`);
    }
    if (!res.ok || !res.body) throw new Error(`${url} answered HTTP ${res.status}`);
    const total = Number(res.headers.get('content-length')) || undefined;
    const tmp = `${target}.part-${process.pid}`;
    const fd = fs.openSync(tmp, 'w');
    let loaded = 0;
    let last = 0;
    try {
      o.onProgress?.({ model, status: 'download', file, loaded: 0, total });
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        fs.writeSync(fd, value);
        loaded += value.length;
        const now = Date.now();
        if (now - last >= 100) {
          last = now;
          o.onProgress?.({ model, status: 'download', file, loaded, total });
        }
      }
      if (total !== undefined && loaded !== total) throw new Error(`${url} ended after ${loaded} of ${total} bytes`);
      fs.fsyncSync(fd);
    } catch (e) {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw e;
    }
    fs.closeSync(fd);
    fs.renameSync(tmp, target);
    o.onProgress?.({ model, status: 'downloaded', file, loaded, total: total ?? loaded });
  }
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
    /** 'wasm' (onnxruntime-web, one thread) or 'native' (onnxruntime-node). */
    readonly backend: 'wasm' | 'native',
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
      const key = `${loc.dir}|${loc.quantized}|${options.maxTokens ?? 256}|${options.batchTokens ?? 512}`;
      const cached = cache.get(key);
      if (cached && cached.id === loc.id) return cached;
      if (loc.fetch) await download(loc, options);

      const listeners = {
        uncaughtException: process.listeners('uncaughtException'),
        unhandledRejection: process.listeners('unhandledRejection'),
      };
      try {
        options.onProgress?.({ model: loc.label, status: 'loading' });
        const t = await importTransformers(options.backend ?? 'wasm', log);
        const { env } = t;
        env.allowLocalModels = true;
        env.allowRemoteModels = false;
        env.useBrowserCache = false;
        env.useFSCache = false;
        env.useCustomCache = false;
        env.localModelPath = loc.root.endsWith('/') || loc.root.endsWith(path.sep) ? loc.root : `${loc.root}/`;
        const wasm = env.backends.onnx?.wasm;
        if (wasm) {
          wasm.numThreads = 1;
          wasm.proxy = false;
          const folder = wasmFolder(options.wasmPaths);
          if (folder) wasm.wasmPaths = folder;
        }
        let extractor: Extractor;
        let dim: number;
        try {
          extractor = (await t.pipeline('feature-extraction', loc.name, { quantized: loc.quantized, local_files_only: true })) as unknown as Extractor;
          loadCount++;
          const tokenizer = extractor.tokenizer;
          if (tokenizer) tokenizer.model_max_length = Math.min(tokenizer.model_max_length ?? Infinity, options.maxTokens ?? 256);
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
          extractor,
          options.maxChars ?? 4000,
          options.maxTokens ?? 256,
          Math.max(1, options.batchTokens ?? 512),
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
        const out = await this.extractor(group.map((i) => input[i]!), { pooling: 'mean', normalize: true });
        const dim = out.dims[out.dims.length - 1];
        if (dim !== this.dim || out.data.length !== dim * group.length) throw new Error(`model returned ${out.dims.join('x')} for ${group.length} texts`);
        group.forEach((textIndex, row) => (vectors[textIndex] = out.data.slice(row * dim, (row + 1) * dim)));
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
