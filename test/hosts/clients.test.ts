/**
 * Real MCP clients reach Recall the ways the README tells people to: Claude Code (`claude mcp add`
 * with the packed tarball through npx, and the files `recall setup claude-code` writes) and the MCP
 * Inspector's CLI (reading the file `recall setup cursor` writes). Both clients are installed by
 * test/hosts/install-clients.sh (`npm run test:hosts` runs it); everything runs offline: the npm
 * cache is empty, npm is told `--offline` and its registry is unreachable, and the servers speak
 * stdio on this machine only.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { alive, CLI, ROOT, lockOf, waitFor } from '../helpers';

const CACHE = path.resolve(process.env.RECALL_E2E_CACHE || path.join(ROOT, '.cache', 'e2e'));
const CLAUDE = path.join(CACHE, 'clients', 'node_modules', '.bin', 'claude');
const INSPECTOR = path.join(CACHE, 'clients', 'node_modules', '.bin', 'inspector');
const NODE22 = path.join(CACHE, 'node22', 'bin', 'node');
const missing = [CLAUDE, INSPECTOR, NODE22].filter((f) => !fs.existsSync(f));
const skip = missing.length ? `not installed (${missing.join(', ')}): run bash test/hosts/install-clients.sh` : false;

let work: string;
let tarball: string;
const memories: string[] = [];

before(() => {
  if (skip) return;
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hosts-')));
  const out = path.join(work, 'out');
  fs.mkdirSync(out);
  execFileSync('npm', ['pack', '--pack-destination', out, '--loglevel', 'error'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  tarball = path.join(
    out,
    fs.readdirSync(out).find((f) => f.endsWith('.tgz'))!,
  );
});
after(async () => {
  for (const memory of memories) {
    const pid = lockOf(memory)?.pid;
    if (pid && alive(pid)) {
      process.kill(pid, 'SIGTERM');
      await waitFor(() => !alive(pid), 10_000, 'a memory service to stop');
    }
  }
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** A fresh HOME and project folder, and an environment in which npm cannot reach any registry. */
function sandbox(name: string): { home: string; project: string; env: NodeJS.ProcessEnv } {
  const home = path.join(work, name, 'home');
  const project = path.join(work, name, 'project');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const k of Object.keys(env)) if (/^(npm_|RECALL_)/i.test(k)) delete env[k];
  Object.assign(env, {
    npm_config_cache: path.join(home, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_update_notifier: 'false',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
  });
  return { home, project, env };
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 180_000 });
  assert.equal(r.status, 0, `${path.basename(cmd)} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const recallLine = (list: string): string | undefined => list.split('\n').find((l) => l.startsWith('recall:'));

test('Claude Code connects to `npx -y ./recall-memory-<version>.tgz mcp` added with `claude mcp add`', { skip }, () => {
  const { project, env } = sandbox('claude-npx');
  fs.copyFileSync(tarball, path.join(project, path.basename(tarball)));
  run(CLAUDE, ['mcp', 'add', 'recall', '--', 'npx', '-y', `./${path.basename(tarball)}`, 'mcp'], project, env);
  const list = run(CLAUDE, ['mcp', 'list'], project, env);
  assert.match(recallLine(list) ?? list, /^recall: npx -y \.\/recall-memory-.*\.tgz mcp - ✔ Connected$/);
  memories.push(path.join(env.HOME!, '.recall'));
});

test('Claude Code reads what `recall setup claude-code` writes, and nothing of it after --remove', { skip }, () => {
  const { home, project, env } = sandbox('claude-setup');
  const memory = path.join(home, 'memory');
  memories.push(memory);
  const setup = (args: string[]): string => run(process.execPath, [CLI, 'setup', 'claude-code', ...args, '--memory', memory], project, env);

  setup([]);
  assert.match(recallLine(run(CLAUDE, ['mcp', 'list'], project, env)) ?? '', /cli\.js mcp --memory .* - ✔ Connected$/);
  assert.match(run(CLAUDE, ['mcp', 'get', 'recall'], project, env), /Scope: User config/);
  // A project's .mcp.json is Claude Code's too; it waits for the person's approval, as documented.
  setup(['--scope', 'project']);
  assert.match(run(CLAUDE, ['mcp', 'get', 'recall'], project, env), /Scope: (User|Project) config/);

  setup(['--remove']);
  setup(['--scope', 'project', '--remove']);
  const after = run(CLAUDE, ['mcp', 'list'], project, env);
  assert.equal(recallLine(after), undefined, after);
  assert.equal(fs.existsSync(path.join(project, '.mcp.json')), false);
});

test('the MCP Inspector CLI lists and calls Recall’s tools from the file `recall setup cursor` writes', { skip }, () => {
  const { home, project, env } = sandbox('inspector');
  const memory = path.join(home, 'memory');
  memories.push(memory);
  run(process.execPath, [CLI, 'setup', 'cursor', '--scope', 'project', '--memory', memory], project, env);
  const config = path.join(project, '.cursor', 'mcp.json');
  const inspector = (args: string[]): any =>
    JSON.parse(run(NODE22, [INSPECTOR, '--cli', '--config', config, '--server', 'recall', ...args], project, env));

  const tools = inspector(['--method', 'tools/list']).tools.map((t: { name: string }) => t.name);
  assert.ok(tools.includes('recall_query') && tools.includes('recall_brief'), tools.join(', '));
  const stored = inspector(['--method', 'tools/call', '--tool-name', 'recall_remember', '--tool-arg', 'text=The inspector was here.']);
  assert.match(stored.content[0].text, /ep_/);
  const status = inspector(['--method', 'tools/call', '--tool-name', 'recall_status']);
  assert.equal(status.structuredContent.episodes, 1);
  assert.equal(status.structuredContent.memory, memory);
});
