/**
 * `recall hooks install|uninstall`: Recall's entries merged into each host's hook file without
 * touching anything else there, never twice, and taken out again exactly; the command written is
 * one the host can run (run here through a shell, fed the host's documented payload).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CLI, tmpFolder, type CliResult } from './helpers';
import { shell } from './hooks-kit';

const PAYLOADS = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'hooks', 'payloads.json'), 'utf8'));

function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000', ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, ms: Date.now() - started }),
    ),
  );
}

const payload = (host: string, event: string, cwd: string): string => JSON.stringify(PAYLOADS[host][event]).replaceAll('$CWD', cwd);

test("Claude Code: merged into the project's settings beside what is there, once, and taken out exactly", async () => {
  const memory = tmpFolder('install-memory');
  const cwd = tmpFolder('install-claude');
  const file = path.join(cwd, '.claude', 'settings.json');
  const theirs = {
    permissions: { allow: ['Bash(npm run lint)'] },
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/guard.sh' }] }] },
  };
  const original = JSON.stringify(theirs, null, 2) + '\n';
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, original);

  const first = await cli(['hooks', 'install', '--claude', '--project', '--memory', memory], cwd);
  assert.equal(first.code, 0, first.stderr);
  const installed = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepEqual(installed.permissions, theirs.permissions);
  assert.deepEqual(installed.hooks.PreToolUse[0], theirs.hooks.PreToolUse[0], 'their hook first, as it was');
  assert.equal(installed.hooks.PreToolUse.length, 2);
  assert.equal(installed.hooks.SessionStart.length, 1);
  const pre = installed.hooks.PreToolUse[1].hooks[0];
  assert.equal(pre.type, 'command');
  assert.match(pre.command, /hook\.js pre-tool-use --host claude --memory /);

  const again = fs.readFileSync(file, 'utf8');
  const second = await cli(['hooks', 'install', '--claude', '--memory', memory], cwd);
  assert.match(second.stdout, /already there/);
  assert.equal(fs.readFileSync(file, 'utf8'), again, 'installing twice changes nothing');

  // The command written runs: a person's rule, the documented payload, a denial in Claude Code's shape.
  assert.equal((await cli(['--memory', memory, 'rule', 'add', 'Never force-push.'], cwd)).code, 0);
  const answer = JSON.parse(await shell(pre.command, payload('claude', 'pre-tool-use', cwd), cwd));
  assert.equal(answer.hookSpecificOutput.permissionDecision, 'deny');
  await cli(['--memory', memory, 'remember', 'Releases are cut from the release branch.'], cwd);
  const start = JSON.parse(await shell(installed.hooks.SessionStart[0].hooks[0].command, payload('claude', 'session-start', cwd), cwd));
  assert.match(start.hookSpecificOutput.additionalContext, /release branch/);

  const removed = await cli(['hooks', 'uninstall', '--claude'], cwd);
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), theirs, 'exactly what was added is gone');
  assert.equal(fs.readFileSync(file, 'utf8'), original, 'byte for byte');
});

test('VS Code: a hooks file of its own in .github/hooks, removed whole; user scope is pointed to Claude Code settings', async () => {
  const cwd = tmpFolder('install-vscode');
  const file = path.join(cwd, '.github', 'hooks', 'recall.json');
  assert.equal((await cli(['hooks', 'install', '--vscode'], cwd)).code, 0);
  const written = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepEqual(Object.keys(written.hooks).sort(), ['PostToolUse', 'PreToolUse', 'SessionStart']);
  assert.equal(written.hooks.SessionStart[0].type, 'command');
  assert.match(written.hooks.SessionStart[0].command, /hook\.js session-start --host vscode$/);
  assert.equal((await cli(['hooks', 'uninstall', '--vscode'], cwd)).code, 0);
  assert.equal(fs.existsSync(file), false, 'the file it made is gone');

  const user = await cli(['hooks', 'install', '--vscode', '--user'], cwd);
  assert.equal(user.code, 2);
  assert.match(user.stderr, /--claude --user/);
});

test("Copilot CLI: the person's hooks folder, version 1, preToolUse with bash and powershell; its answer at the top level", async () => {
  const home = tmpFolder('install-home');
  const memory = tmpFolder('install-copilot-memory');
  const cwd = tmpFolder('install-copilot');
  const r = await cli(['hooks', 'install', '--copilot', '--user', '--memory', memory], cwd, { HOME: home });
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(home, '.copilot', 'hooks', 'recall.json');
  const written = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(written.version, 1);
  assert.deepEqual(Object.keys(written.hooks), ['preToolUse', 'postToolUse'], "sessionStart's output is not read by Copilot CLI");
  const entry = written.hooks.preToolUse[0];
  assert.equal(entry.type, 'command');
  assert.ok(entry.powershell.endsWith(entry.bash));
  await cli(['--memory', memory, 'rule', 'add', 'Never force-push.'], cwd);
  const answer = JSON.parse(await shell(entry.bash, payload('copilot', 'pre-tool-use', cwd), cwd));
  assert.equal(answer.permissionDecision, 'deny');
  assert.equal((await cli(['hooks', 'uninstall', '--copilot', '--user'], cwd, { HOME: home })).code, 0);
  assert.equal(fs.existsSync(file), false);
});

test('a hook file that is not JSON is left alone, and said', async () => {
  const cwd = tmpFolder('install-broken');
  const file = path.join(cwd, '.claude', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '{ "hooks": [oops');
  const r = await cli(['hooks', 'install', '--claude'], cwd);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /not a JSON object.*Nothing was written/);
  assert.equal(fs.readFileSync(file, 'utf8'), '{ "hooks": [oops');
});
