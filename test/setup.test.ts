/**
 * `recall setup HOST`, run as the built CLI in a throwaway HOME and project: it writes each host's
 * documented shape, merges into real configuration files from public repositories
 * (test/fixtures/hosts, origins in SOURCES.md) without losing a byte of what was there, `--remove`
 * takes out exactly its entry, and what it writes really starts Recall's MCP server.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, beforeEach, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { CLI, CliResult, ROOT, tmpFolder } from './helpers';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'hosts');
const NPX = { command: 'npx', args: ['-y', 'recall-memory', 'mcp'] };
let home: string;
let project: string;
const dirs: string[] = [];

beforeEach(() => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-setup-')));
  dirs.push(base);
  home = path.join(base, 'home');
  project = path.join(base, 'project');
  fs.mkdirSync(home);
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
});
after(async () => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function setup(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Omit<CliResult, 'ms'>> {
  const clean = { ...process.env };
  for (const k of ['XDG_CONFIG_HOME', 'CODEX_HOME', 'APPDATA', 'RECALL_HOME']) delete clean[k];
  return new Promise((resolve) =>
    execFile(process.execPath, [CLI, 'setup', ...args], { cwd: project, env: { ...clean, HOME: home, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    ),
  );
}

async function ok(args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const r = await setup(args, env);
  assert.equal(r.code, 0, `recall setup ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

type Kind = 'json' | 'toml' | 'yaml';
const read = (kind: Kind, text: string): any =>
  kind === 'json'
    ? parseJsonc(text, [], { allowTrailingComma: true })
    : kind === 'toml'
      ? JSON.parse(JSON.stringify(parseToml(text)))
      : parseYaml(text);

/** Each host and scope: where the file is, how it reads, and the entry its documentation shows for `npx -y recall-memory mcp`. */
const CASES = [
  {
    host: 'claude-code',
    scope: 'user',
    file: () => path.join(home, '.claude.json'),
    kind: 'json',
    key: 'mcpServers',
    entry: { type: 'stdio', ...NPX, env: {} },
  },
  {
    host: 'claude-code',
    scope: 'project',
    file: () => path.join(project, '.mcp.json'),
    kind: 'json',
    key: 'mcpServers',
    entry: { type: 'stdio', ...NPX, env: {} },
  },
  { host: 'cursor', scope: 'user', file: () => path.join(home, '.cursor', 'mcp.json'), kind: 'json', key: 'mcpServers', entry: NPX },
  { host: 'cursor', scope: 'project', file: () => path.join(project, '.cursor', 'mcp.json'), kind: 'json', key: 'mcpServers', entry: NPX },
  { host: 'codex', scope: 'user', file: () => path.join(home, '.codex', 'config.toml'), kind: 'toml', key: 'mcp_servers', entry: NPX },
  {
    host: 'codex',
    scope: 'project',
    file: () => path.join(project, '.codex', 'config.toml'),
    kind: 'toml',
    key: 'mcp_servers',
    entry: NPX,
  },
  {
    host: 'vscode',
    scope: 'user',
    file: () => path.join(home, '.config', 'Code', 'User', 'mcp.json'),
    kind: 'json',
    key: 'servers',
    entry: { type: 'stdio', ...NPX },
  },
  {
    host: 'vscode',
    scope: 'project',
    file: () => path.join(project, '.vscode', 'mcp.json'),
    kind: 'json',
    key: 'servers',
    entry: { type: 'stdio', ...NPX },
  },
  {
    host: 'windsurf',
    scope: 'user',
    file: () => path.join(home, '.codeium', 'windsurf', 'mcp_config.json'),
    kind: 'json',
    key: 'mcpServers',
    entry: NPX,
  },
  {
    host: 'cline',
    scope: 'user',
    file: () =>
      path.join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json'),
    kind: 'json',
    key: 'mcpServers',
    entry: NPX,
  },
  {
    host: 'continue',
    scope: 'user',
    file: () => path.join(home, '.continue', 'config.yaml'),
    kind: 'yaml',
    key: 'mcpServers',
    entry: { name: 'recall', ...NPX },
  },
  {
    host: 'continue',
    scope: 'project',
    file: () => path.join(project, '.continue', 'mcpServers', 'recall.yaml'),
    kind: 'yaml',
    key: 'mcpServers',
    entry: { name: 'recall', ...NPX },
  },
] as const;

/** What a file should hold after setup: what it held, plus the entry (the test's own reading of each format). */
function withEntry(kind: Kind, key: string, before: any, entry: object): any {
  if (kind === 'yaml') return { ...before, [key]: [...(before[key] ?? []), entry] };
  return { ...before, [key]: { ...(before[key] ?? {}), recall: entry } };
}

test('setup writes each host’s documented shape into a new file, and --remove deletes that file again', async () => {
  for (const c of CASES) {
    const out = await ok([c.host, '--scope', c.scope, '--npx']);
    const file = c.file();
    assert.match(out, new RegExp(`created ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), `${c.host} ${c.scope}: ${out}`);
    const written = read(c.kind, fs.readFileSync(file, 'utf8'));
    if (c.kind === 'yaml') {
      assert.deepEqual(written.mcpServers, [c.entry], `${c.host} ${c.scope}`);
      assert.equal(written.schema, 'v1', 'a Continue config/block file names its schema');
    } else {
      assert.deepEqual(written, { [c.key]: { recall: c.entry } }, `${c.host} ${c.scope}`);
    }
    await ok([c.host, '--scope', c.scope, '--remove']);
    assert.equal(fs.existsSync(file), false, `${c.host} ${c.scope}: the file setup created is gone`);
  }
});

/** Fixture → the case whose file it stands for. */
const REAL_FILES: [string, (typeof CASES)[number]['host'], 'user' | 'project'][] = [
  ['claude-code/mcp.json', 'claude-code', 'project'],
  ['claude-code/claude.json', 'claude-code', 'user'],
  ['cursor/mcp.json', 'cursor', 'project'],
  ['codex/config.toml', 'codex', 'user'],
  ['codex/multiline-arrays.toml', 'codex', 'user'],
  ['vscode/mcp.json', 'vscode', 'project'],
  ['vscode/inputs.json', 'vscode', 'project'],
  ['windsurf/mcp_config.json', 'windsurf', 'user'],
  ['cline/cline_mcp_settings.json', 'cline', 'user'],
  ['continue/config.yaml', 'continue', 'user'],
  ['continue/with-servers.yaml', 'continue', 'user'],
];

test('setup merges into real host files, keeping every comment and entry, and --remove gives back the same bytes', async () => {
  for (const [fixture, host, scope] of REAL_FILES) {
    const c = CASES.find((x) => x.host === host && x.scope === scope)!;
    const original = fs.readFileSync(path.join(FIXTURES, fixture), 'utf8');
    const file = c.file();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, original);

    await ok([host, '--scope', scope, '--npx']);
    const merged = fs.readFileSync(file, 'utf8');
    assert.deepEqual(read(c.kind, merged), withEntry(c.kind, c.key, read(c.kind, original), c.entry), fixture);
    for (const line of original.split('\n').filter((l) => /^\s*(#|\/\/)/.test(l))) {
      assert.ok(merged.includes(line), `${fixture}: the comment line ${JSON.stringify(line)} is kept`);
    }

    await ok([host, '--scope', scope, '--remove']);
    const restored = fs.readFileSync(file, 'utf8');
    if (fixture === 'cursor/mcp.json') {
      // Its last entry mixes tabs and spaces; jsonc-parser re-indents that entry's closing brace.
      assert.deepEqual(read('json', restored), read('json', original), fixture);
      assert.equal(restored.replace(/\s/g, ''), original.replace(/\s/g, ''), `${fixture}: only white space differs`);
    } else if (!original.endsWith('\n') && c.kind === 'yaml') {
      assert.equal(restored, original + '\n', `${fixture}: the same bytes, with a final newline`);
    } else {
      assert.equal(restored, original, `${fixture}: the same bytes as before setup`);
    }
  }
});

test('a Continue block file goes beside the project’s other block files, which stay untouched', async () => {
  const others = path.join(project, '.continue', 'mcpServers');
  fs.mkdirSync(others, { recursive: true });
  const linear = fs.readFileSync(path.join(FIXTURES, 'continue', 'linear-mcp.yaml'));
  fs.writeFileSync(path.join(others, 'linear-mcp.yaml'), linear);
  await ok(['continue', '--scope', 'project', '--npx']);
  assert.deepEqual(fs.readdirSync(others).sort(), ['linear-mcp.yaml', 'recall.yaml']);
  await ok(['continue', '--scope', 'project', '--remove']);
  assert.deepEqual(fs.readdirSync(others), ['linear-mcp.yaml']);
  assert.deepEqual(fs.readFileSync(path.join(others, 'linear-mcp.yaml')), linear);
});

test('a server called "recall" that is not Recall is neither replaced nor removed; --name adds Recall beside it', async () => {
  const file = path.join(home, '.cursor', 'mcp.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const theirs = '{\n  "mcpServers": {\n    "recall": { "command": "python", "args": ["-m", "total_recall"] }\n  }\n}\n';
  fs.writeFileSync(file, theirs);
  const add = await setup(['cursor', '--npx']);
  assert.equal(add.code, 1);
  assert.match(add.stderr, /not Recall.*python -m total_recall.*--name/s);
  const rm = await setup(['cursor', '--remove']);
  assert.equal(rm.code, 1);
  assert.match(rm.stderr, /not one setup wrote/);
  assert.equal(fs.readFileSync(file, 'utf8'), theirs);

  await ok(['cursor', '--npx', '--name', 'recall-memory']);
  assert.deepEqual(read('json', fs.readFileSync(file, 'utf8')).mcpServers, {
    recall: { command: 'python', args: ['-m', 'total_recall'] },
    'recall-memory': NPX,
  });
});

test('a second setup changes nothing; fields the host added go with the entry; a changed entry stays', async () => {
  const c = CASES.find((x) => x.host === 'cline')!;
  await ok(['cline', '--npx']);
  const first = fs.readFileSync(c.file(), 'utf8');
  assert.match(await ok(['cline', '--npx']), /already set up .*nothing changed/);
  assert.equal(fs.readFileSync(c.file(), 'utf8'), first);

  // Cline writes its own switches into an entry once it has seen it.
  const annotated = read('json', first);
  Object.assign(annotated.mcpServers.recall, { disabled: false, autoApprove: ['recall_query'] });
  annotated.mcpServers.other = { command: 'uvx', args: ['other-server'] };
  fs.writeFileSync(c.file(), JSON.stringify(annotated, null, 2));
  await ok(['cline', '--remove']);
  assert.deepEqual(read('json', fs.readFileSync(c.file(), 'utf8')), { mcpServers: { other: { command: 'uvx', args: ['other-server'] } } });

  // A person pointed the entry at something else: it is theirs now.
  await ok(['cline', '--npx']);
  const edited = read('json', fs.readFileSync(c.file(), 'utf8'));
  edited.mcpServers.recall.args = ['-y', 'someone-elses-server'];
  fs.writeFileSync(c.file(), JSON.stringify(edited));
  const before = fs.readFileSync(c.file(), 'utf8');
  assert.equal((await setup(['cline', '--remove'])).code, 1);
  assert.equal((await setup(['cline', '--npx'])).code, 1);
  assert.equal(fs.readFileSync(c.file(), 'utf8'), before);
});

test('when the host rewrites its file around the entry (Claude Code adds its state), --remove takes out only the entry', async () => {
  const file = path.join(home, '.claude.json');
  await ok(['claude-code', '--npx']);
  // What Claude Code 2.1 made of the file on its first run (keys as it writes them; values shortened).
  const rewritten = {
    ...read('json', fs.readFileSync(file, 'utf8')),
    firstStartTime: '2026-12-02T00:11:34.888Z',
    migrationVersion: 15,
    userID: 'e3b0c442',
  };
  fs.writeFileSync(file, JSON.stringify(rewritten, null, 2));
  await ok(['claude-code', '--remove']);
  assert.deepEqual(read('json', fs.readFileSync(file, 'utf8')), { ...rewritten, mcpServers: {} });
});

test('a file setup cannot read is left exactly as it was, with a message that says where and why', async () => {
  const json = path.join(project, '.mcp.json');
  fs.writeFileSync(json, '{\n  "mcpServers": {\n    "a": { "command": "x" }\n');
  const r = await setup(['claude-code', '--scope', 'project', '--npx']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /\.mcp\.json: it is not valid JSON \(.* on line \d+\)/);
  assert.match(r.stderr, /"command": "npx"/, 'the entry is printed, to add by hand');
  assert.equal(fs.readFileSync(json, 'utf8'), '{\n  "mcpServers": {\n    "a": { "command": "x" }\n');

  const toml = path.join(home, '.codex', 'config.toml');
  fs.mkdirSync(path.dirname(toml), { recursive: true });
  fs.writeFileSync(toml, 'model = "gpt-5"\n[mcp_servers\n');
  const t = await setup(['codex', '--npx']);
  assert.equal(t.code, 1);
  assert.match(t.stderr, /not valid TOML/);
  assert.equal(fs.readFileSync(toml, 'utf8'), 'model = "gpt-5"\n[mcp_servers\n');

  // Servers written inline cannot take a [mcp_servers.recall] table: setup says so instead of breaking the file.
  fs.writeFileSync(toml, 'mcp_servers = { other = { command = "uvx" } }\n');
  const inline = await setup(['codex', '--npx']);
  assert.equal(inline.code, 1, inline.stdout);
  assert.match(inline.stderr, /nothing was written/);
  assert.equal(fs.readFileSync(toml, 'utf8'), 'mcp_servers = { other = { command = "uvx" } }\n');
});

test('a symlinked config (dotfiles) is written through the link, which stays a link', async () => {
  const real = path.join(home, 'dotfiles', 'windsurf.json');
  fs.mkdirSync(path.dirname(real), { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'windsurf', 'mcp_config.json'), real);
  const link = CASES.find((x) => x.host === 'windsurf')!.file();
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(real, link);
  await ok(['windsurf', '--npx']);
  assert.ok(fs.lstatSync(link).isSymbolicLink());
  assert.deepEqual(read('json', fs.readFileSync(real, 'utf8')).mcpServers.recall, NPX);
  await ok(['windsurf', '--remove']);
  assert.ok(fs.lstatSync(link).isSymbolicLink());
  assert.equal(fs.readFileSync(real, 'utf8'), fs.readFileSync(path.join(FIXTURES, 'windsurf', 'mcp_config.json'), 'utf8'));
});

test('usage: --list names every host and its files; a scope a host lacks and an unknown host are usage errors', async () => {
  const list = await ok(['--list']);
  for (const c of CASES) assert.ok(list.includes(c.file()), `--list names ${c.file()}`);
  await ok(['cursor', '--npx']);
  assert.match(await ok(['--list']), /cursor\s+user\s+set up\s/);

  const scope = await setup(['windsurf', '--scope', 'project']);
  assert.equal(scope.code, 2);
  assert.match(scope.stderr, /only per user/);
  const unknown = await setup(['zed']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /claude-code, cursor, codex, vscode, windsurf, cline, continue/);

  // Continue still on config.json: a new config.yaml would hide it.
  fs.mkdirSync(path.join(home, '.continue'));
  fs.writeFileSync(path.join(home, '.continue', 'config.json'), '{"models": []}');
  const cont = await setup(['continue', '--npx']);
  assert.equal(cont.code, 1);
  assert.match(cont.stderr, /config\.json/);
  assert.equal(fs.existsSync(path.join(home, '.continue', 'config.yaml')), false);
});

test('without --npx the entry starts this very CLI, and a real MCP client reaches Recall through it', async () => {
  const memory = tmpFolder('setup');
  // A PATH with node but no `recall`: the entry names this node and this bundle.
  const out = await ok(['claude-code', '--scope', 'project', '--memory', memory], { PATH: path.dirname(process.execPath) });
  assert.match(out, /SessionStart/, 'the brief hook is offered for Claude Code');
  assert.match(out, /recall hooks install --claude --project/, 'and the hooks installer named');
  assert.match(out, /claude mcp add --scope project recall -- /);
  const entry = read('json', fs.readFileSync(path.join(project, '.mcp.json'), 'utf8')).mcpServers.recall;
  assert.deepEqual(entry, { type: 'stdio', command: process.execPath, args: [CLI, 'mcp', '--memory', memory], env: {} });

  const client = new Client({ name: 'setup-test', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...process.env, ...entry.env }, stderr: 'ignore' }),
  );
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('recall_query') && names.includes('recall_remember'), names.join(', '));
  } finally {
    await client.close();
  }
});
