#!/usr/bin/env node
// Embedding throughput, native ONNX Runtime against WebAssembly: bundles scripts/embed-probe.ts
// (esbuild.embeddings.mjs), makes the MiniLM-shaped stand-in model once (6 layers, 384 wide, 12
// heads) in $TMPDIR/recall-bench-embed/, and embeds 28-32-token sentences in calls of 16 on each backend,
// each in its own process, best of --runs. Also the largest difference between the two backends'
// vectors. `--write-docs` replaces the bench:embed section of docs/BENCHMARKS.md.
//
//   node scripts/bench-embed.mjs [--sentences 480] [--runs 3] [--write-docs]
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const sentences = flag('--sentences', 480);
const runs = flag('--runs', 3);
const work = path.join(os.tmpdir(), 'recall-bench-embed');
const model = path.join(work, 'minilm-shaped');
const probeDir = path.join(work, 'probe');

if (!fs.existsSync(path.join(model, 'onnx', 'model.onnx'))) {
  const shape = ['--layers', '6', '--hidden', '384', '--heads', '12', '--intermediate', '1536'];
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'make-test-model.mjs'), model, ...shape], { stdio: 'inherit' });
}
execFileSync(process.execPath, [path.join(ROOT, 'esbuild.embeddings.mjs'), probeDir], { cwd: ROOT, stdio: 'inherit' });

const probe = (...extra) =>
  JSON.parse(
    execFileSync(process.execPath, [path.join(probeDir, 'embed-probe.js'), model, ...extra], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop(),
  );

const rows = [];
const vectors = {};
for (const backend of ['native', 'wasm']) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(probe('--backend', backend, '--bench', String(sentences), '--batch', '16'));
  if (results[0].backend !== backend) throw new Error(`asked for ${backend}, ran ${results[0].backend}: ${results[0].fallback}`);
  vectors[backend] = results[0].vectors;
  const best = results.reduce((a, b) => (b.bench.perSecond > a.bench.perSecond ? b : a));
  rows.push({
    backend,
    perSecond: results.map((r) => r.bench.perSecond),
    best: best.bench.perSecond,
    worstBatchMs: best.bench.worstBatchMs,
    load: best.bench.load,
  });
  console.log(`${backend}: ${results.map((r) => r.bench.perSecond).join(', ')} texts/s (load ${best.bench.load.join(' ')})`);
}
let maxDiff = 0;
vectors.native.forEach((v, i) => v.forEach((x, j) => (maxDiff = Math.max(maxDiff, Math.abs(x - vectors.wasm[i][j])))));
console.log(`largest difference between the backends' vectors: ${maxDiff.toExponential(1)}`);

if (args.includes('--write-docs')) {
  const date = new Date().toISOString().slice(0, 10);
  const cpu = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}`;
  const section = [
    '<!-- bench:embed -->',
    `Measured ${date} on ${cpu}, Node ${process.version}, ${os.platform()}-${os.arch()}:`,
    `\`node scripts/bench-embed.mjs --sentences ${sentences} --runs ${runs} --write-docs\`. MiniLM-shaped stand-in`,
    '(6 layers, 384 wide, 12 heads, fp32), 28-32-token sentences, 16 a call, each backend in its own process;',
    "load = the machine's 1/5/15-minute load average when the best run ended (it is shared).",
    '',
    '| runtime | texts/s, best of runs | all runs | slowest call (ms) | load |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.backend === 'native' ? 'native (onnxruntime-node 1.14)' : 'WebAssembly (onnxruntime-web 1.14), 1 thread'} | ${r.best} | ${r.perSecond.join(', ')} | ${r.worstBatchMs} | ${r.load.join(' ')} |`,
    ),
    '',
    `Largest difference between the two runtimes' vectors for the same three texts: ${maxDiff.toExponential(1)} per component.`,
    '<!-- /bench:embed -->',
  ].join('\n');
  const file = path.join(ROOT, 'docs', 'BENCHMARKS.md');
  const doc = fs.readFileSync(file, 'utf8');
  const re = /<!-- bench:embed -->[\s\S]*?<!-- \/bench:embed -->/;
  fs.writeFileSync(file, re.test(doc) ? doc.replace(re, section) : `${doc.trimEnd()}\n\n## Embedding throughput\n\n${section}\n`);
  console.log('docs/BENCHMARKS.md: bench:embed updated');
}
