/**
 * The extension's part of the agent hooks, its own code driven through the vscode stub against a
 * real memory service and the built CLI: the hooks offer writes the file `recall hooks install
 * --vscode --project` writes (merged, removed exactly, nothing in an untrusted workspace, asked
 * once), the check editor sets, changes and removes a rule's check at human authority and names a
 * bad pattern while it is typed, and what hooks decided shows on the rule (tree item, graph detail).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, beforeEach, test } from 'node:test';
import { edgeState } from '../src/extension/graph/common/graph-text';
import { draftCheck, draftError } from '../src/extension/views/common/check-draft';
import { checkLine, outcomesText } from '../src/extension/common/knowledge-text';
import { MemorySource } from '../src/extension/views/common/source';
import { hookCommand, install, isRecallHook, targetOf, uninstall } from '../src/service/hook-files';
import { MemoryClient } from '../src/service/rpc/client';
import { loadExtension, rendered, type Bundle } from './extension-host';
import { CLI, onCleanup, ROOT, tmpFolder, type CliResult } from './helpers';
import { shell } from './hooks-kit';

const HOOK = path.join(fs.realpathSync(path.join(ROOT, 'dist')), 'hook.js');
const PAYLOADS = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'hooks', 'payloads.json'), 'utf8'));
const quiet = { info() {}, warn() {}, error() {} };

let ext: Bundle;
before(async () => (ext = await loadExtension()));
beforeEach(() => ext.host.reset());

function cli(args: string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: { ...process.env, RECALL_IDLE_EXIT_MS: '60000' }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, ms: 0 }),
    ),
  );
}

/** A workspace folder whose hooks file already holds someone's own hook, with a comment. */
function workspaceWithTheirHook(tag: string): { folder: string; file: string; original: string } {
  const folder = tmpFolder(tag);
  const file = path.join(folder, '.github', 'hooks', 'recall.json');
  // Laid out as the host's documentation lays a hooks file out (a list inline on one line is laid out again, its content kept).
  const original = [
    '{',
    '  // our guard',
    '  "hooks": {',
    '    "PreToolUse": [',
    '      {',
    '        "type": "command",',
    '        "command": "./scripts/guard.sh",',
    '        "timeout": 5',
    '      }',
    '    ]',
    '  }',
    '}',
    '',
  ].join('\n');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, original);
  return { folder, file, original };
}

/** The extension's context as its commands use it: the person's connection to a real service, a memory, a globalState. */
async function extensionCtx(memory: string, project?: string) {
  const client = await MemoryClient.connect({
    memory,
    surface: 'extension',
    project,
    serviceScript: path.join(ROOT, 'dist', 'service.js'),
  });
  onCleanup(() => client.close());
  const state = new Map<string, unknown>();
  return {
    memory,
    cliScript: path.join(ROOT, 'dist', 'cli.js'),
    log: quiet,
    human: client,
    source: new MemorySource(client),
    push: () => {},
    memoryChanged: () => {},
    extension: { globalState: { get: (k: string) => state.get(k), update: async (k: string, v: unknown) => void state.set(k, v) } },
    state,
  };
}

/** VS Code's documented hook entry (code.visualstudio.com/docs/agents/reference/hooks-reference): type "command", a command, a timeout in seconds. */
function assertVsCodeHooksFile(text: string): void {
  const json = JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
  assert.equal(typeof json.hooks, 'object');
  for (const event of ['SessionStart', 'PreToolUse', 'PostToolUse']) {
    const ours = json.hooks[event].filter((e: { command: string }) => isRecallHook(e.command));
    assert.equal(ours.length, 1, `${event}: one entry of Recall's`);
    assert.equal(ours[0].type, 'command');
    assert.equal(typeof ours[0].command, 'string');
    assert.ok(Number.isInteger(ours[0].timeout) && ours[0].timeout > 0, `${event}: timeout in seconds`);
  }
}

test("the extension's hooks file is byte for byte the one `recall hooks install --vscode --project` writes; each removes the other's exactly", async () => {
  const memory = tmpFolder('hext-memory');
  const a = workspaceWithTheirHook('hext-cli');
  const b = workspaceWithTheirHook('hext-ext');
  const byCli = await cli(['hooks', 'install', '--vscode', '--project', '--memory', memory], a.folder);
  assert.equal(byCli.code, 0, byCli.stderr);

  const ctx = await extensionCtx(memory);
  ext.host.folders = [b.folder];
  ext.host.answer = (_text: string, items: string[]) => (items.includes('Install') ? 'Install' : undefined);
  await ext.hooks.installHooks(ctx);
  const cliText = fs.readFileSync(a.file, 'utf8');
  const extText = fs.readFileSync(b.file, 'utf8');
  assert.equal(extText, cliText);
  assert.ok(extText.includes('// our guard') && extText.includes('./scripts/guard.sh'), 'their hook and comment stay');
  assertVsCodeHooksFile(extText);
  assert.ok(ext.host.messages.some((m: { text: string }) => /agent hooks added to \.github\/hooks\/recall\.json/.test(m.text)));

  // Installed twice: nothing added.
  await ext.hooks.installHooks(ctx);
  assert.equal(fs.readFileSync(b.file, 'utf8'), extText);

  // The CLI takes out what the extension wrote, and the extension what the CLI wrote: their file as it was.
  const removed = await cli(['hooks', 'uninstall', '--vscode', '--project'], b.folder);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(fs.readFileSync(b.file, 'utf8'), b.original);
  ext.host.folders = [a.folder];
  await ext.hooks.removeHooks(ctx);
  assert.equal(fs.readFileSync(a.file, 'utf8'), a.original);
});

test('the offer: asked once, nothing written before a yes, nothing in an untrusted workspace; the written hook runs on this memory', async () => {
  const memory = tmpFolder('hoffer-memory');
  const folder = tmpFolder('hoffer-project');
  const file = path.join(folder, '.github', 'hooks', 'recall.json');
  const ctx = await extensionCtx(memory, `dir:${folder}`);
  ext.host.folders = [folder];

  ext.host.trusted = false;
  ext.host.answer = () => 'Install Hooks';
  await ext.hooks.offerHooks(ctx);
  assert.equal(ext.host.messages.length, 0, 'no offer in Restricted Mode');
  ext.host.answer = (_t: string, items: string[]) => items.find((i) => i === 'Install');
  await ext.hooks.installHooks(ctx);
  assert.ok(!fs.existsSync(file), 'nothing written in an untrusted workspace');
  assert.match(ext.host.messages.at(-1)!.text, /once you trust this workspace/);

  ext.host.trusted = true;
  ext.host.messages = [];
  ext.host.answer = () => undefined; // dismissed: asked again next time
  await ext.hooks.offerHooks(ctx);
  assert.equal(ext.host.messages.length, 1);
  assert.match(ext.host.messages[0].text, /add agent hooks to \.github\/hooks\/recall\.json/);
  assert.deepEqual(ext.host.messages[0].items, ['Install Hooks', 'No Thanks']);
  assert.ok(!fs.existsSync(file), 'nothing written before a yes');
  ext.host.answer = (_t: string, items: string[]) => (items.includes('Install Hooks') ? 'Install Hooks' : undefined);
  await ext.hooks.offerHooks(ctx);
  assertVsCodeHooksFile(fs.readFileSync(file, 'utf8'));
  ext.host.messages = [];
  await ext.hooks.offerHooks(ctx);
  assert.equal(ext.host.messages.length, 0, 'answered: never asked again');

  // The PreToolUse command it wrote, run as VS Code runs it, checks this memory's rules.
  const rule = JSON.parse((await cli(['--memory', memory, 'rule', 'add', 'Never force-push.', '--json'], folder)).stdout);
  assert.ok(rule.check?.command, `the rule's words give a check: ${JSON.stringify(rule)}`);
  const pre = JSON.parse(fs.readFileSync(file, 'utf8')).hooks.PreToolUse[0].command;
  const out = JSON.parse(await shell(pre, JSON.stringify(PAYLOADS.vscode['pre-tool-use']).replaceAll('$CWD', folder), folder));
  assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
  assert.ok(out.hookSpecificOutput.permissionDecisionReason.includes(rule.id));
});

test('after an update moved the extension, its hooks that run a script now gone run the new one; others are left alone', async () => {
  const memory = tmpFolder('hext-moved-memory');
  const w = workspaceWithTheirHook('hext-moved');
  const ctx = await extensionCtx(memory);
  ext.host.folders = [w.folder];
  ext.host.answer = (_text: string, items: string[]) => (items.includes('Install') ? 'Install' : undefined);
  await ext.hooks.installHooks(ctx);
  const installed = fs.readFileSync(w.file, 'utf8');
  // As an older version wrote them: its folder (and hook.js) gone since.
  const gone = path.join(tmpFolder('hext-old-extension'), 'dist', 'hook.js');
  fs.writeFileSync(w.file, installed.replaceAll(HOOK, gone));
  ext.hooks.repointHooks(ctx);
  assert.equal(
    fs.readFileSync(w.file, 'utf8'),
    installed,
    "each entry runs this installation's hook.js again; their guard and comment stay",
  );

  // A hook of Recall's whose script is there (the CLI's, another memory) is not touched.
  const other = installed.replaceAll(memory, tmpFolder('hext-moved-other'));
  fs.writeFileSync(w.file, other);
  ext.hooks.repointHooks(ctx);
  assert.equal(fs.readFileSync(w.file, 'utf8'), other);
});

test("a hook command run by VS Code's Electron (ELECTRON_RUN_AS_NODE) is known as Recall's and removed exactly", () => {
  const w = workspaceWithTheirHook('hext-electron');
  const target = targetOf('vscode', 'project', w.folder, '');
  const electron = (e: Parameters<typeof hookCommand>[0]) => `ELECTRON_RUN_AS_NODE=1 ${hookCommand(e, 'vscode', { script: HOOK })}`;
  assert.ok(isRecallHook(electron('pre-tool-use')));
  assert.deepEqual(install(target, electron), ['SessionStart', 'PreToolUse', 'PostToolUse']);
  assert.deepEqual(
    install(target, (e) => hookCommand(e, 'vscode', { script: HOOK })),
    [],
    'the same hooks by plain Node are not added twice',
  );
  uninstall(target);
  assert.equal(fs.readFileSync(w.file, 'utf8'), w.original);
});

test("desktop VS Code's Electron needs ELECTRON_RUN_AS_NODE: VS Code's entries carry it in `env`, so any shell runs them; other hosts' command lines open with it", () => {
  const env = { ELECTRON_RUN_AS_NODE: '1' };
  const w = workspaceWithTheirHook('hext-env');
  const target = targetOf('vscode', 'project', w.folder, '', env);
  const command = (e: Parameters<typeof hookCommand>[0]) => hookCommand(e, 'vscode', { script: HOOK });
  assert.deepEqual(install(target, command), ['SessionStart', 'PreToolUse', 'PostToolUse']);
  const { hooks } = JSON.parse(fs.readFileSync(w.file, 'utf8').replace('  // our guard\n', ''));
  const ours = Object.values(hooks)
    .flat()
    .filter((e: any) => isRecallHook(e.command));
  assert.equal(ours.length, 3);
  for (const e of ours as any[]) {
    assert.deepEqual(e.env, env, "in VS Code's documented `env` field");
    assert.doesNotMatch(e.command, /ELECTRON_RUN_AS_NODE/, 'not as a POSIX prefix, which cmd.exe and PowerShell cannot run');
  }
  uninstall(target);
  assert.equal(fs.readFileSync(w.file, 'utf8'), w.original);

  const claude = targetOf('claude', 'project', w.folder, '', env).entry(command('pre-tool-use'), 'pre-tool-use') as any;
  assert.equal(claude.hooks[0].command, `ELECTRON_RUN_AS_NODE=1 ${command('pre-tool-use')}`);
  const copilot = targetOf('copilot', 'project', w.folder, '', env).entry(command('pre-tool-use'), 'pre-tool-use') as any;
  assert.equal(copilot.bash, `ELECTRON_RUN_AS_NODE=1 ${command('pre-tool-use')}`);
  assert.equal(copilot.powershell, `$env:ELECTRON_RUN_AS_NODE='1'; & ${command('pre-tool-use')}`);
  assert.equal(targetOf('vscode', 'project', w.folder, '', {}).entry(command('session-start'), 'session-start').env, undefined);
});

test("check drafts: a bad pattern gets the service's own message while typed; other parts and `instead` are kept", () => {
  assert.equal(draftError(undefined, 'command', 'git push --force*'), undefined);
  assert.match(draftError(undefined, 'command', 'git\u0007push') ?? '', /one line of text/);
  assert.match(draftError(undefined, 'path', 'x'.repeat(1000)) ?? '', /at most \d+/);
  assert.deepEqual(draftCheck({ command: ['npm *'], instead: 'pnpm' }, 'path', ' src/generated/** | dist/** '), {
    command: ['npm *'],
    path: ['src/generated/**', 'dist/**'],
    instead: 'pnpm',
  });
  assert.deepEqual(
    draftCheck({ command: ['npm *'], path: ['a/**'] }, 'command', '  '),
    { path: ['a/**'] },
    'empty text takes the part off',
  );
  assert.equal(draftCheck({ command: ['npm *'] }, 'command', ''), null, 'nothing left: the check is removed');
});

test("Edit Rule Check…: set, change and remove a rule's check from the palette's rule picker and the tree item, as the person", async () => {
  const memory = tmpFolder('hcheck-memory');
  const folder = tmpFolder('hcheck-project');
  const project = `dir:${folder}`;
  const ctx = await extensionCtx(memory, project);
  const rule = await ctx.human.call('rule.add', { statement: 'Generated files are made by the build.', project });
  assert.equal(rule.check, undefined, 'its words state no check');

  // Palette: the rule picked from the project's rules, then "Path glob", then a bad pattern, then a good one.
  const shownErrors: (string | undefined)[] = [];
  ext.host.pick = (items: any[]) => items.find((i) => i.fact?.id === rule.id) ?? items.find((i) => /^Path glob/.test(i.label));
  ext.host.input = (o: any) => {
    shownErrors.push(o.validateInput('src/gen\nerated/**'));
    return 'src/generated/**';
  };
  await ext.checkEditor.editCheck(ctx);
  assert.match(shownErrors[0] ?? '', /one line of text/, 'the bad pattern is named in the input box');
  let now = await ctx.human.call('fact', { id: rule.id });
  assert.deepEqual(now.check, { path: ['src/generated/**'] });
  assert.equal(now.check_by, 'person');

  // The tree item: a command pattern added beside the path glob.
  ext.host.pick = (items: any[]) => items.find((i) => /^Command pattern/.test(i.label));
  ext.host.input = (o: any) => (o.value === '' ? 'rm -rf src/generated' : undefined);
  await ext.checkEditor.editCheck(ctx, { kind: 'fact', fact: now });
  now = await ctx.human.call('fact', { id: rule.id });
  assert.deepEqual(now.check, { command: ['rm -rf src/generated'], path: ['src/generated/**'] });

  // Removed.
  ext.host.pick = (items: any[]) => items.find((i) => i.label === 'Remove the check');
  await ext.checkEditor.editCheck(ctx, rule.id);
  now = await ctx.human.call('fact', { id: rule.id });
  assert.equal(now.check, undefined);
  assert.match(ext.host.messages.at(-1)!.text, /check on .* is removed/);

  // An agent's connection cannot do what the editor does (the editor is the person's).
  const agent = await MemoryClient.connect({ memory, surface: 'mcp', project, serviceScript: path.join(ROOT, 'dist', 'service.js') });
  onCleanup(() => agent.close());
  await assert.rejects(agent.call('rule.check', { id: rule.id, check: { path: ['x/**'] } }));
});

test("what hooks decided shows on the rule: its tree item, its tooltip and the graph view's detail", async () => {
  const memory = tmpFolder('houtcomes-memory');
  const folder = tmpFolder('houtcomes-project');
  const project = `dir:${folder}`;
  const ctx = await extensionCtx(memory, project);
  const rule = await ctx.human.call('rule.add', { statement: 'Never force-push.', project });
  await ctx.human.call('rule.check', { id: rule.id, check: { command: ['git push --force*'] } });
  const pre = (id: string) => JSON.stringify({ ...PAYLOADS.vscode['pre-tool-use'], cwd: folder, tool_use_id: id });
  for (const id of ['call-1', 'call-2'])
    await shell(`${process.execPath} ${HOOK} pre-tool-use --host vscode --memory ${memory}`, pre(id), folder);

  const [listed] = await ctx.human.call('rules', { project });
  assert.equal(listed.id, rule.id);
  assert.equal(outcomesText(listed), 'blocked 2');
  assert.equal(checkLine(listed), 'check: command git push --force* (set by you) · hooks: blocked 2');

  const tree = new ext.entities.EntitiesTree(ctx);
  const [group] = await tree.getChildren();
  const [node] = await tree.getChildren(group);
  const item = tree.getTreeItem(node);
  assert.match(item.description, /^checked · blocked 2 · /);
  assert.match(rendered(item.tooltip).text, /check: command git push --force\* \(set by you\) · hooks: blocked 2/);
  assert.equal(item.contextValue, 'fact.current.rule.item', 'Edit Rule Check… is offered on it');

  const n = await ctx.human.call('graph.neighbourhood', { entity: listed.subject });
  const edge = n.edges.find((e: { id: string }) => e.id === rule.id)!;
  assert.match(edgeState(edge), /hooks: blocked 2$/);
});
