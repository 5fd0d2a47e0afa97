/**
 * The npm package as a user gets it: `npm pack` (its prepack builds dist/), then the tarball run the
 * way the README says, `npx -y <package> mcp` and `npm i -g <package>`, from an empty folder with an
 * empty npm cache and `--offline`, so any need for the registry at install or first run fails the
 * test. A real MCP client (the SDK's) talks to the server npx started, on the default memory.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, lockOf, alive, waitFor } from './helpers';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
let work: string;
let tarball: string;
let files: string[];

/** npm with nothing of this machine's: its own cache, no registry, no config from HOME. */
function offlineEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home };
  for (const k of Object.keys(env)) if (/^(npm_|RECALL_)/i.test(k)) delete env[k];
  return {
    ...env,
    npm_config_cache: path.join(home, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

before(() => {
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-pack-')));
  const out = path.join(work, 'out');
  fs.mkdirSync(out);
  // The real thing: prepack builds dist/, then npm packs what .npmignore lets through.
  execFileSync(NPM, ['pack', '--pack-destination', out, '--loglevel', 'error'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const made = fs.readdirSync(out).filter((f) => f.endsWith('.tgz'));
  assert.equal(made.length, 1, made.join(', '));
  tarball = path.join(out, made[0]!);
  files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !f.endsWith('/'))
    .map((f) => f.replace(/^package\//, ''));
});
after(() => fs.rmSync(work, { recursive: true, force: true }));

test('the tarball holds only the bundles, the wasm they load, and the package’s own papers', () => {
  const allowed = [
    'package.json',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
    'dist/cli.js',
    'dist/service.js',
    'dist/hook.js',
    'dist/embed-worker.js',
    'dist/bench.js',
    'dist/sql-wasm.wasm',
    'dist/ort-wasm.wasm',
    'dist/ort-wasm-simd.wasm',
  ];
  assert.deepEqual(
    files.filter((f) => !allowed.includes(f)),
    [],
    'nothing else (no source, tests, maps, native binaries, extension)',
  );
  for (const bin of Object.values(pkg.bin as Record<string, string>)) assert.ok(files.includes(bin), `the bin ${bin} ships`);
  assert.ok(files.includes('dist/hook.js'), 'the lean hook bundle ships: the hooks `recall hooks install` writes run it');
  const packed = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
  assert.equal(packed.private, undefined, 'publishable');
  assert.deepEqual(packed.dependencies ?? {}, {}, 'the bundles need nothing from node_modules');
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
    assert.equal(packed.scripts?.[hook], undefined, `no ${hook} script runs on install`);
});

test('npx -y <tarball> mcp, offline with an empty cache, serves a real MCP client on the default memory', async () => {
  const home = path.join(work, 'npx-home');
  const cwd = path.join(work, 'npx-cwd');
  fs.mkdirSync(home);
  fs.mkdirSync(cwd);
  // As the README says it, `npx -y ./recall-memory-<version>.tgz mcp`, in a folder holding only the
  // tarball (npx runs an absolute path as a program; a ./ path it installs).
  fs.copyFileSync(tarball, path.join(cwd, path.basename(tarball)));
  const client = new Client({ name: 'package-test', version: '1' });
  const transport = new StdioClientTransport({
    command: NPX,
    args: ['-y', `./${path.basename(tarball)}`, 'mcp'],
    cwd,
    env: offlineEnv(home) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const memory = path.join(home, '.recall');
  try {
    await client.connect(transport).catch((e: Error) => assert.fail(`npx did not start the server: ${e.message}\n${stderr}`));
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('recall_remember') && names.includes('recall_query'), names.join(', '));
    const stored = await client.callTool({ name: 'recall_remember', arguments: { text: 'The packaged server stores notes in Postgres.' } });
    assert.equal(stored.isError, undefined, JSON.stringify(stored));
    const found = await client.callTool({ name: 'recall_query', arguments: { query: 'where are notes stored?' } });
    assert.match(JSON.stringify(found.content), /Postgres/);
    assert.ok(fs.existsSync(memory), `the default memory (~/.recall) was made: ${fs.readdirSync(home).join(', ')}`);
    assert.match(fs.readFileSync(path.join(memory, 'journal.jsonl'), 'utf8'), /packaged server stores notes/);
  } finally {
    await client.close();
    await stopService(memory);
  }
});

test('npm i -g <tarball>, offline with an empty cache, puts a working `recall` on the PATH', async () => {
  const home = path.join(work, 'global-home');
  const prefix = path.join(work, 'global');
  fs.mkdirSync(home);
  const env = offlineEnv(home);
  execFileSync(NPM, ['install', '--global', '--prefix', prefix, tarball, '--loglevel', 'error'], {
    cwd: home,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const bin = process.platform === 'win32' ? path.join(prefix, 'recall.cmd') : path.join(prefix, 'bin', 'recall');
  assert.ok(fs.existsSync(bin), `${bin} exists`);
  const memory = path.join(work, 'global-memory');
  const run = (args: string[]): string =>
    execFileSync(bin, ['--memory', memory, ...args], {
      env: { ...env, PATH: `${path.dirname(bin)}${path.delimiter}${env.PATH}` },
      encoding: 'utf8',
    });
  try {
    assert.match(run(['--help']), /recall — long-term memory/);
    assert.match(run(['remember', 'The global install works.']), /^ep_/);
    assert.equal(JSON.parse(run(['status', '--json'])).episodes, 1);
    // Set up from the global install, the host is told to run `recall mcp`.
    const cursor = JSON.parse(
      execFileSync(bin, ['setup', 'cursor', '--json'], {
        env: { ...env, PATH: `${path.dirname(bin)}${path.delimiter}${env.PATH}` },
        encoding: 'utf8',
      }),
    );
    assert.deepEqual(cursor.entry, { command: 'recall', args: ['mcp'] });
  } finally {
    await stopService(memory);
  }
});

async function stopService(memory: string): Promise<void> {
  const pid = lockOf(memory)?.pid;
  if (pid && alive(pid)) {
    process.kill(pid, 'SIGTERM');
    await waitFor(() => !alive(pid), 10_000, 'the service to stop');
  }
}
