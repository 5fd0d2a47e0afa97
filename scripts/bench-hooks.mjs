// Whole-process cost of an agent hook, as a host pays it once per tool call: `node dist/hook.js`
// paired with a bare `node -e 1` (and `recall status` for the whole CLI), medians of paired runs,
// the memory service warm. Usage: node scripts/bench-hooks.mjs [--memory DIR] [--runs N]
// (default: a fresh memory holding one rule with a check). Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { memory: { type: 'string' }, runs: { type: 'string' } } });
const dist = path.join(import.meta.dirname, '..', 'dist');
const hook = path.join(dist, 'hook.js');
const cli = path.join(dist, 'cli.js');
const runs = Number(values.runs ?? 30);
const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-bench-hooks-'));
const memory = values.memory ?? path.join(cwd, 'memory');
const env = { ...process.env, RECALL_IDLE_EXIT_MS: '600000' };

const time = (args, input) => {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { input, cwd, env });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (!values.memory) time([cli, '--memory', memory, 'rule', 'add', 'Never force-push.']);
const pre = (i) =>
  JSON.stringify({
    session_id: 's',
    cwd,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'git push --force' },
    tool_use_id: `b${i}`,
  });
const start = JSON.stringify({ session_id: 's', cwd, hook_event_name: 'SessionStart', source: 'startup' });
time([hook, 'pre-tool-use', '--host', 'claude', '--memory', memory], pre(-1)); // the service warm

const rows = { 'node -e 1': [], 'hook pre-tool-use': [], 'hook session-start': [], 'recall status': [] };
for (let i = 0; i < runs; i++) {
  rows['node -e 1'].push(time(['-e', '1']));
  rows['hook pre-tool-use'].push(time([hook, 'pre-tool-use', '--host', 'claude', '--memory', memory], pre(i)));
  rows['hook session-start'].push(time([hook, 'session-start', '--host', 'claude', '--memory', memory], start));
  rows['recall status'].push(time([cli, '--memory', memory, 'status']));
}
const base = median(rows['node -e 1']);
console.log(`${runs} paired runs, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
for (const [name, xs] of Object.entries(rows))
  console.log(`${name.padEnd(20)} median ${median(xs).toFixed(1)} ms  ${(median(xs) / base).toFixed(2)}x`);
spawnSync(process.execPath, [cli, '--memory', memory, 'service', 'stop'], { cwd, env });
if (!values.memory) fs.rmSync(cwd, { recursive: true, force: true });
