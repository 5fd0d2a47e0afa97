/**
 * Which ONNX Runtime the embedder runs on: the native one (onnxruntime-node 1.14, its N-API binary
 * for this platform) when that binary is present and loads, else the WebAssembly build
 * (onnxruntime-web), which runs anywhere. The choice is made once per thread, before
 * transformers.js is first imported: transformers.js picks its runtime at import time.
 *
 * In the bundles, esbuild.embeddings.mjs turns transformers.js's `onnxruntime-node` import into a
 * module that reads the choice left here (CHOICE_KEY on globalThis): the real onnxruntime-node
 * with the binding loaded here, or onnxruntime-web. The per-platform binaries sit beside the
 * bundle in native/<platform>-<arch>/ (copied by esbuild.mjs, one platform per VSIX).
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

export type Backend = 'native' | 'wasm';
/** 'auto' (default): native when its binary loads, else WebAssembly. */
export type BackendChoice = Backend | 'auto';

/** Where the bundle-side shim finds the choice (see esbuild.embeddings.mjs). */
export const CHOICE_KEY = Symbol.for('recall.onnxruntime');
export const BINDING_FILE = 'onnxruntime_binding.node';

export interface RuntimeChoice {
  backend: Backend;
  /** Why the native runtime is not used (absent when it is, or when WebAssembly was asked for). */
  fallback?: string;
  binding?: unknown;
}

/** The folder of this platform's native binaries: beside the bundle, or in node_modules unbundled. */
export function defaultNativeDir(bundled: boolean): string | undefined {
  const platform = `${process.platform}-${process.arch}`;
  if (bundled) return typeof __dirname === 'string' ? path.join(__dirname, 'native', platform) : undefined;
  try {
    const pkg = createRequire(__filename).resolve('onnxruntime-node/package.json');
    return path.join(path.dirname(pkg), 'bin', 'napi-v3', process.platform, process.arch);
  } catch {
    return undefined;
  }
}

/**
 * Loads the N-API binding from `dir`. onnxruntime-node 1.14's binding registers itself only the
 * first time the file is opened in a process, so a second thread (the model thread started again
 * after an idle unload) loads a copy of it from a private temp folder, beside links to its library.
 */
export function loadBinding(dir: string): unknown {
  const file = path.join(dir, BINDING_FILE);
  if (!fs.existsSync(file)) throw new Error(`no ${BINDING_FILE} for ${process.platform}-${process.arch} in ${dir}`);
  const req = createRequire(path.join(dir, 'index.js'));
  try {
    return req(file);
  } catch (e) {
    if (!/did not self-register/i.test((e as Error).message)) throw e;
  }
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), `recall-ort-${process.pid}-`));
  for (const name of fs.readdirSync(dir)) {
    const from = path.join(dir, name);
    const to = path.join(copy, name);
    if (name === BINDING_FILE) fs.copyFileSync(from, to);
    else
      try {
        fs.symlinkSync(from, to);
      } catch {
        fs.copyFileSync(from, to);
      }
  }
  // Unlinked at exit where the OS allows (a loaded library stays mapped until then).
  process.once('exit', () => fs.rmSync(copy, { recursive: true, force: true }));
  return req(path.join(copy, BINDING_FILE));
}

/** Decides the runtime for this thread; never throws (a binding that does not load means WebAssembly, and why). */
export function chooseRuntime(wanted: BackendChoice, nativeDir: string | undefined): RuntimeChoice {
  if (wanted === 'wasm') return { backend: 'wasm' };
  if (!nativeDir) return { backend: 'wasm', fallback: 'no native runtime folder' };
  try {
    return { backend: 'native', binding: loadBinding(nativeDir) };
  } catch (e) {
    return { backend: 'wasm', fallback: `native runtime did not load (${(e as Error).message.split('\n')[0]})` };
  }
}

/** Leaves the choice where the bundle's onnxruntime-node shim reads it. */
export function publishChoice(choice: RuntimeChoice): void {
  (globalThis as Record<symbol, unknown>)[CHOICE_KEY] = choice;
}
