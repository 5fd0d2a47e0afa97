// Bundles every entry point into dist/ as self-contained CommonJS (no node_modules at run time)
// and copies the sql.js wasm and the native ONNX Runtime (see below) beside the bundles.
// `node esbuild.mjs --watch` rebuilds on change.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { copyNative, embeddingsPlugin, nativeTargets } from './esbuild.embeddings.mjs';

const require = createRequire(import.meta.url);
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const watch = process.argv.includes('--watch');
// Which platform's native ONNX Runtime goes into dist/native/: this machine's by default;
// RECALL_NATIVE_TARGET=<platform>-<arch> another's (scripts/package-targets.mjs), =none none (WebAssembly only).
const host = `${process.platform}-${process.arch}`;
const nativeTarget = process.env.RECALL_NATIVE_TARGET ?? (nativeTargets().includes(host) ? host : 'none');

const entries = {
  cli: 'src/cli/main.ts',
  // The benchmarks: `node dist/bench.js ...`, or `recall bench ...`, which loads this bundle at run time.
  bench: 'src/bench/main.ts',
  service: 'src/service/main.ts',
  // The agent hooks' lean entry: a host starts one per tool call (`node dist/hook.js pre-tool-use`).
  hook: 'src/cli/hook-main.ts',
  // The embedding model runs in a worker thread of the service.
  'embed-worker': 'src/service/embeddings/embed-worker.ts',
  // The VS Code extension: vscode is external, and it never bundles sql.js (the service does the work).
  extension: 'src/extension/extension.ts',
};

/** @type {esbuild.BuildOptions} */
const options = {
  entryPoints: Object.fromEntries(Object.entries(entries).filter(([, file]) => fs.existsSync(file))),
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  // pg's optional native binding is never used (the pure-JS client is).
  external: ['vscode', 'pg-native'],
  define: { RECALL_VERSION: JSON.stringify(pkg.version) },
  logLevel: 'warning',
  // The embedder (service bundle): WASM onnxruntime, sharp stubbed, ort-wasm files beside dist/.
  plugins: [embeddingsPlugin()],
};

function copyAssets() {
  fs.mkdirSync('dist', { recursive: true });
  const wasm = path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm');
  fs.copyFileSync(wasm, 'dist/sql-wasm.wasm');
  copyNative('dist', nativeTarget === 'none' ? undefined : nativeTarget);
  // The CLI is run directly as `recall`.
  const cli = 'dist/cli.js';
  const body = fs.readFileSync(cli, 'utf8');
  if (!body.startsWith('#!')) fs.writeFileSync(cli, `#!/usr/bin/env node\n${body}`);
  fs.chmodSync(cli, 0o755);
}

// The graph view's webview script (Cytoscape.js bundled in): runs in the browser, loads nothing remote.
/** @type {esbuild.BuildOptions} */
const webview = {
  entryPoints: { 'graph-view': 'media/graph/graph-view.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  logLevel: 'warning',
};

if (watch) {
  const ctx = await esbuild.context({ ...options, plugins: [...options.plugins, { name: 'assets', setup: (b) => b.onEnd(copyAssets) }] });
  await ctx.watch();
  await (await esbuild.context(webview)).watch();
} else {
  fs.rmSync('dist', { recursive: true, force: true });
  await esbuild.build(options);
  await esbuild.build(webview);
  copyAssets();
}
