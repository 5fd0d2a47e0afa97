/**
 * Measures what code anchors cost: taking them from text (at write) and checking them (at read),
 * cold (files read and hashed) and warm (cached by mtime and size), over this repository's own
 * src/ files as the workspace; then a changed 20,000-line range of a 40,000-line file (its
 * search for the moved lines is bounded).
 *
 *   node --import tsx scripts/bench-anchors.ts [--files 64]
 *
 * The checker's per-answer bound is LIMITS.anchorFilesPerAnswer files; --files above it shows
 * "unchecked" anchors.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AnchorChecker, anchorsIn } from '../src/core/anchors/resolve';
import { LIMITS } from '../src/core/model/limits';

const args = process.argv.slice(2);
const at = args.indexOf('--files');
const wanted = at >= 0 ? Number(args[at + 1]) : LIMITS.anchorFilesPerAnswer;
const root = path.resolve(__dirname, '..');

const files = fs
  .readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => `src/${f.split(path.sep).join('/')}`)
  .slice(0, wanted);
// A note naming each file and the first exported function in it, as a person would write it.
const texts = files.map((f) => {
  const fn = /export (?:async )?function (\w+)/.exec(fs.readFileSync(path.join(root, f), 'utf8'))?.[1];
  return fn ? `the logic lives in ${f}, see \`${fn}()\`` : `the logic lives in ${f}`;
});

const ms = (t: bigint): string => (Number(process.hrtime.bigint() - t) / 1e6).toFixed(1);
let t = process.hrtime.bigint();
const anchors = texts.flatMap((text) => anchorsIn(text, root, new Date().toISOString()));
console.log(
  `take: ${anchors.length} anchors (${anchors.filter((a) => a.symbol).length} symbols) from ${texts.length} texts in ${ms(t)} ms`,
);

for (const run of ['cold', 'warm', 'warm']) {
  t = process.hrtime.bigint();
  const status = new AnchorChecker(root, { files: LIMITS.anchorFilesPerAnswer, ms: 60_000 }).status(anchors);
  const counts: Record<string, number> = {};
  for (const c of status.anchors) counts[c.status] = (counts[c.status] ?? 0) + 1;
  console.log(`check ${run}: ${anchors.length} anchors in ${ms(t)} ms ${JSON.stringify(counts)}`);
}

const big = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-bench-anchors-'));
try {
  const file = path.join(big, 'd/v.txt');
  fs.mkdirSync(path.dirname(file));
  fs.writeFileSync(file, Array.from({ length: 40_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  const [range] = anchorsIn('d/v.txt:1-20000', big, new Date().toISOString());
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^line 1\n/, 'changed\n'));
  t = process.hrtime.bigint();
  const status = new AnchorChecker(big).check(range!).status;
  console.log(`check a changed 20,000-line range of a 40,000-line file: ${status} in ${ms(t)} ms`);
} finally {
  fs.rmSync(big, { recursive: true, force: true });
}
