#!/usr/bin/env node
// Packages the extension once per platform that onnxruntime-node 1.14 ships binaries for (each VSIX
// carries that platform's native ONNX Runtime in dist/native/<target>/, and says its target to the
// Marketplace), plus one universal WebAssembly-only VSIX for every other platform.
//
//   node scripts/package-targets.mjs [--out-dir DIR] [--write-docs]
//                                                       every target + universal into DIR (default vsix/);
//                                                       --write-docs: their sizes into docs/BENCHMARKS.md (bench:vsix)
//   node scripts/package-targets.mjs --host [VSCE ARGS] this machine's target only (`npm run package`);
//                                                       the rest of the arguments go to vsce (e.g. --out FILE)
//
// Builds first (node esbuild.mjs); leaves dist/ as a build for this machine. Prints each VSIX's size.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyNative, nativeTargets } from '../esbuild.embeddings.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const VSCE = path.join(path.dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');
const DIST = path.join(ROOT, 'dist');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

function vsce(target, extra) {
  // Bundles only: the VSIX never carries node_modules (`npm run package` also says so itself).
  const base = ['--no-dependencies'];
  run(process.execPath, [VSCE, 'package', ...base, ...(target ? ['--target', target] : []), ...extra.filter((a) => !base.includes(a))]);
}

const args = process.argv.slice(2);
const host = `${process.platform}-${process.arch}`;
const targets = nativeTargets();
run(process.execPath, [path.join(ROOT, 'esbuild.mjs')]);

if (args[0] === '--host') {
  // A platform without native binaries gets the universal (WebAssembly) package.
  vsce(targets.includes(host) ? host : undefined, args.slice(1));
} else {
  const i = args.indexOf('--out-dir');
  const outDir = path.resolve(ROOT, i >= 0 ? args[i + 1] : 'vsix');
  fs.mkdirSync(outDir, { recursive: true });
  const { name, version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const sizes = [];
  try {
    for (const target of [...targets, undefined]) {
      copyNative(DIST, target);
      const file = path.join(outDir, `${name}-${version}${target ? `-${target}` : ''}.vsix`);
      vsce(target, ['--out', file]);
      sizes.push({ target: target ?? 'universal (WebAssembly only)', file, mb: +(fs.statSync(file).size / 1e6).toFixed(1) });
    }
  } finally {
    copyNative(DIST, targets.includes(host) ? host : undefined);
  }
  for (const s of sizes) console.log(`${s.target.padEnd(30)} ${String(s.mb).padStart(5)} MB  ${path.relative(ROOT, s.file)}`);
  if (args.includes('--write-docs')) writeDocs(sizes);
}

function writeDocs(sizes) {
  const section = [
    '<!-- bench:vsix -->',
    `Measured ${new Date().toISOString().slice(0, 10)}: \`npm run package:all -- --write-docs\` (vsce, onnxruntime-node 1.14.0).`,
    '',
    '| VSIX | size (MB) |',
    '|---|---|',
    ...sizes.map((s) => `| ${s.target} | ${s.mb} |`),
    '<!-- /bench:vsix -->',
  ].join('\n');
  const file = path.join(ROOT, 'docs', 'BENCHMARKS.md');
  const doc = fs.readFileSync(file, 'utf8');
  const re = /<!-- bench:vsix -->[\s\S]*?<!-- \/bench:vsix -->/;
  fs.writeFileSync(file, re.test(doc) ? doc.replace(re, section) : `${doc.trimEnd()}\n\n## VSIX size per platform\n\n${section}\n`);
}
