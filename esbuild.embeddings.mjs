// What bundling the embedder (src/service/embedder.ts, @xenova/transformers 2.17.2) needs, as one
// esbuild plugin for esbuild.mjs to merge:
//
//   import { embeddingsPlugin } from './esbuild.embeddings.mjs';
//   const options = { ...options, plugins: [embeddingsPlugin()] };
//
// - `onnxruntime-node`, as transformers.js imports it, becomes a small module that hands over the
//   runtime src/service/embeddings/native-runtime.ts chose at run time: the real onnxruntime-node,
//   whose `./binding` is the N-API binary loaded there from native/<platform>-<arch>/ beside the
//   bundle, or `onnxruntime-web` (WebAssembly) when that binary is missing or does not load;
// - `copyNative(outDir, platform, arch)` copies one platform's binaries there (esbuild.mjs does it
//   for this machine; scripts/package-targets.mjs for each VSIX target);
// - `sharp` (native, image pipelines only) becomes a stub that throws if ever called;
// - `import.meta.url` in transformers' env.js (empty in a CommonJS bundle, which would crash at
//   load) becomes the bundle's own file URL;
// - defines RECALL_EMBED_BUNDLE = true (embedder.ts then skips its unbundled resolution hook);
// - after each successful build, copies ort-wasm.wasm and ort-wasm-simd.wasm beside the bundle
//   (embedder.ts points env.backends.onnx.wasm.wasmPaths at its own folder). The threaded
//   variants are left out: the embedder runs one WebAssembly thread (see docs/BENCHMARKS.md).
//
// `node esbuild.embeddings.mjs [OUT_DIR]` bundles scripts/embed-probe.ts into OUT_DIR
// (default .cache/embed-probe/) to check the bundle runs with no node_modules in reach.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The ONNX Runtime WebAssembly files the single-threaded backend loads (SIMD, or not). */
export const ORT_WASM_FILES = ['ort-wasm.wasm', 'ort-wasm-simd.wasm'];

/** The platforms onnxruntime-node 1.14 ships binaries for, as `<platform>-<arch>` (VS Code's target names). */
export function nativeTargets() {
  const bin = path.join(path.dirname(require.resolve('onnxruntime-node/package.json')), 'bin', 'napi-v3');
  return fs.readdirSync(bin).flatMap((platform) => fs.readdirSync(path.join(bin, platform)).map((arch) => `${platform}-${arch}`));
}

/** Replaces outDir/native/ with the one target's binding and library (none for `undefined`: a WebAssembly-only build). */
export function copyNative(outDir, target) {
  const dest = path.join(outDir, 'native');
  fs.rmSync(dest, { recursive: true, force: true });
  if (!target) return;
  const [platform, arch] = target.split('-');
  const src = path.join(path.dirname(require.resolve('onnxruntime-node/package.json')), 'bin', 'napi-v3', platform, arch);
  if (!fs.existsSync(src)) throw new Error(`onnxruntime-node has no binaries for ${target}`);
  fs.mkdirSync(path.join(dest, target), { recursive: true });
  for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(dest, target, f));
}

export function ortWasmFolder() {
  return path.dirname(require.resolve('onnxruntime-web'));
}

/** Copies the ort-wasm files into `outDir`. */
export function copyOrtWasm(outDir) {
  fs.mkdirSync(outDir, { recursive: true });
  for (const f of ORT_WASM_FILES) fs.copyFileSync(path.join(ortWasmFolder(), f), path.join(outDir, f));
}

/** @returns {import('esbuild').Plugin} */
export function embeddingsPlugin({ copyWasm = true } = {}) {
  return {
    name: 'recall-embeddings',
    setup(build) {
      const options = build.initialOptions;
      options.define = { ...options.define, RECALL_EMBED_BUNDLE: 'true' };

      const nodePkg = path.dirname(require.resolve('onnxruntime-node/package.json'));
      build.onResolve({ filter: /^onnxruntime-node$/ }, () => ({ path: 'onnxruntime-node', namespace: 'recall-ort' }));
      build.onLoad({ filter: /.*/, namespace: 'recall-ort' }, () => ({
        contents: [
          "const choice = globalThis[Symbol.for('recall.onnxruntime')];",
          `module.exports = choice && choice.backend === 'native' ? require(${JSON.stringify(path.join(nodePkg, 'dist', 'index.js'))}) : require('onnxruntime-web');`,
        ].join('\n'),
        loader: 'js',
        resolveDir: path.dirname(require.resolve('onnxruntime-web')),
      }));
      // The real package's binding.js requires ../bin/napi-v3/<platform>/<arch>/*.node from node_modules.
      build.onResolve({ filter: /^\.\/binding$/ }, (args) =>
        args.importer.startsWith(path.join(nodePkg, 'dist')) ? { path: 'binding', namespace: 'recall-ort-binding' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'recall-ort-binding' }, () => ({
        contents: "exports.binding = globalThis[Symbol.for('recall.onnxruntime')].binding;",
        loader: 'js',
      }));
      build.onResolve({ filter: /^sharp$/ }, () => ({ path: 'sharp', namespace: 'recall-stub' }));
      build.onLoad({ filter: /.*/, namespace: 'recall-stub' }, () => ({
        contents: "module.exports = function sharp() { throw new Error('sharp (image processing) is not bundled'); };",
        loader: 'js',
      }));
      build.onLoad({ filter: /[\\/]@xenova[\\/]transformers[\\/]src[\\/]env\.js$/ }, async (args) => {
        const source = await fs.promises.readFile(args.path, 'utf8');
        const contents = source.replaceAll(
          'import.meta.url',
          "(typeof __filename !== 'undefined' ? require('url').pathToFileURL(__filename).href : 'file:///')",
        );
        return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      });

      if (copyWasm) {
        build.onEnd((result) => {
          if (result.errors.length > 0) return;
          const outDir = options.outdir ?? (options.outfile ? path.dirname(options.outfile) : undefined);
          if (outDir) copyOrtWasm(outDir);
        });
      }
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = path.resolve(process.argv[2] ?? '.cache/embed-probe');
  fs.rmSync(outdir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: { 'embed-probe': 'scripts/embed-probe.ts' },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'warning',
    plugins: [embeddingsPlugin()],
  });
  const host = `${process.platform}-${process.arch}`;
  if (nativeTargets().includes(host)) copyNative(outdir, host);
  const files = fs.readdirSync(outdir).map((f) => `${f} ${(fs.statSync(path.join(outdir, f)).size / 1e6).toFixed(1)} MB`);
  console.log(`bundled into ${outdir}: ${files.join(', ')}`);
}
