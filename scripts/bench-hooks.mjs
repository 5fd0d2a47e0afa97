// Whole-process cost of an agent hook, as a host pays it once per tool call: `node dist/hook.js`
// paired with a bare `node -e 1` (and `recall status` for the whole CLI), medians of paired runs,
// the memory service warm; then cold (no service running: the hook answers from the hooks cache
// and starts the service, which is stopped again before the next run).
// Usage: node scripts/bench-hooks.mjs [--turns N] [--runs N] [--cold-runs N]
// (default: a fresh memory holding one rule with a check; --turns N first stores N synthetic turns
// through `node dist/bench.js scale`). Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { turns: { type: 'string' }, runs: { type: 'string' }, 'cold-runs': { type: 'string' } } });
const dist = path.join(import.meta.dirname, '..', 'dist');
const hook = path.join(dist, 'hook.js');
const cli = path.join(dist, 'cli.js');
const runs = Number(values.runs ?? 30);
const coldRuns = Number(values['cold-runs'] ?? 10);
const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-bench-hooks-'));
const memory = path.join(cwd, 'memory');
const env = { ...process.env, RECALL_IDLE_EXIT_MS: '600000' };

const time = (args, input) => {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { input, cwd, env });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, stdout: String(r.stdout), stderr: String(r.stderr) };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stop = () => time([cli, '--memory', memory, 'service', 'stop']);

if (values.turns) {
  console.log(`storing ${values.turns} synthetic turns (node dist/bench.js scale)`);
  time([path.join(dist, 'bench.js'), 'scale', '--episodes', values.turns, '--keep-memory', memory, '--json']);
}
time([cli, '--memory', memory, 'rule', 'add', 'Never force-push.']);
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
const preHook = (i) => time([hook, 'pre-tool-use', '--host', 'claude', '--memory', memory], pre(i));
const startHook = () => time([hook, 'session-start', '--host', 'claude', '--memory', memory], start);
// The service warm, and the project's brief asked for once (so the hooks cache keeps it).
if (!preHook(-1).stdout.includes('"deny"')) throw new Error('the warm hook did not deny the force-push');
startHook();

const rows = { 'node -e 1': [], 'hook pre-tool-use': [], 'hook session-start': [], 'recall status': [] };
for (let i = 0; i < runs; i++) {
  rows['node -e 1'].push(time(['-e', '1']).ms);
  rows['hook pre-tool-use'].push(preHook(i).ms);
  rows['hook session-start'].push(startHook().ms);
  rows['recall status'].push(time([cli, '--memory', memory, 'status']).ms);
}

// Cold: each run on a stopped service; the service the hook starts is waited for and stopped.
const cold = { 'cold pre-tool-use': [], 'cold session-start': [] };
for (let i = 0; i < coldRuns; i++) {
  for (const [name, run] of [
    ['cold pre-tool-use', () => preHook(`cold-${i}`)],
    ['cold session-start', startHook],
  ]) {
    stop();
    const r = run();
    if (!/answered from the hooks cache/.test(r.stderr)) throw new Error(`${name} did not answer from the cache: ${r.stderr}`);
    cold[name].push(r.ms);
    time([cli, '--memory', memory, 'status']); // waits for the service the hook started
  }
}

const base = median(rows['node -e 1']);
console.log(
  `${values.turns ?? 0} stored turns; ${runs} paired runs, ${coldRuns} cold; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`,
);
for (const [name, xs] of Object.entries({ ...rows, ...cold }))
  console.log(
    `${name.padEnd(20)} median ${median(xs).toFixed(1)} ms  max ${Math.max(...xs).toFixed(1)} ms  ${(median(xs) / base).toFixed(2)}x`,
  );
stop();
fs.rmSync(cwd, { recursive: true, force: true });
