// `npm run demo`: fills a throwaway memory from the shipped coding-session transcripts, asks it
// a few questions through the real `recall` CLI (and so the real memory service), and prints
// the answers with their citations. The memory is removed at the end.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'dist', 'cli.js');
const memory = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-demo-'));
const examples = path.join(root, 'examples', 'transcripts');

const recall = (...args) =>
  execFileSync(process.execPath, [cli, '--memory', memory, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const show = (title, ...args) => {
  console.log(`\n$ recall ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  if (title) console.log(`# ${title}`);
  console.log(recall(...args).trimEnd());
};

try {
  console.log(`Demo memory: ${memory}`);
  show(
    'import three coding sessions',
    'ingest',
    ...fs
      .readdirSync(examples)
      .sort()
      .map((f) => path.join(examples, f)),
  );
  show('a question, answered with cited turns', 'query', 'which database did we choose and why?', '--limit', '3');
  show('', 'query', 'why did the settlement tests fail in CI?', '--limit', '3');
  show('', 'query', 'what code style does the user prefer?', '--limit', '3');
  const evidence = JSON.parse(recall('episodes', 'go with sql.js', '--json'))[0].id;
  const rel = recall('relate', 'Recall', 'uses', 'sql.js', '--evidence', evidence).trim();
  console.log(`\n$ recall relate Recall uses sql.js --evidence ${evidence}\n${rel}`);
  show('facts come back with confidence and provenance', 'traverse', 'Recall');
  show('a person marks it wrong: it leaves every answer at once', 'correct', '--wrong', rel, '--reason', 'demo correction');
  show('', 'traverse', 'Recall');
  show('', 'status');
} finally {
  try {
    recall('service', 'stop');
  } catch {
    // Already stopped.
  }
  fs.rmSync(memory, { recursive: true, force: true });
}
