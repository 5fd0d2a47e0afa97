/**
 * Where an embedding model's files are, and fetching a hub model's once: a local folder
 * (`modelPath`: config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx or
 * onnx/model.onnx), or a hub model (default Xenova/all-MiniLM-L6-v2) kept in
 * <memory>/models/<model>/ and downloaded there, atomically and with progress, only when
 * `allowDownload` is set.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const DEFAULT_MODEL = 'Xenova/all-MiniLM-L6-v2';
const DEFAULT_HUB = 'https://huggingface.co';
/** Per-file download timeout. */
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

export interface ModelProgress {
  model: string;
  /** Which step: fetching a file, loading the model, or ready. */
  status: 'download' | 'downloaded' | 'loading' | 'ready';
  file?: string;
  loaded?: number;
  total?: number;
}

/** Which model to use and where it may come from. */
export interface ModelSource {
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
  /** Per-file download timeout in ms. Default 10 minutes. */
  downloadTimeoutMs?: number;
}

const HUB_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

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
export function locate(o: ModelSource): ModelLocation | string {
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
export async function download(loc: ModelLocation, o: ModelSource): Promise<void> {
  const host = (o.remoteHost ?? DEFAULT_HUB).replace(/\/+$/, '');
  const model = loc.fetch!.model;
  for (const file of loc.fetch!.files) {
    const url = `${host}/${model}/resolve/main/${file}`;
    const target = path.join(loc.dir, ...file.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const signal = AbortSignal.timeout(o.downloadTimeoutMs ?? DOWNLOAD_TIMEOUT_MS);
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
