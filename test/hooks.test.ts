/**
 * The agent hooks end to end: the built hook bundle (dist/hook.js) and `recall hook`, run as real
 * processes on a real memory and fed each host's documented payloads (fixtures/hooks/payloads.json,
 * origins in fixtures/hooks/SOURCES.md), and the labelled set of rules and tool calls
 * (fixtures/hooks/checks-labelled.json) decided by the service. A hook never breaks its host.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { KnowledgeWriter } from '../src/core/memory/knowledge';
import { JournaledGraph } from '../src/core/memory/journaled-graph';
import type { Check } from '../src/core/model/checks';
import { resolveConfig, type Authority } from '../src/core/model/config';
import type { EventBody } from '../src/core/model/events';
import { CLI, onCleanup, tmpFolder, type CliResult } from './helpers';
import { FIXTURES, HOOK, HOSTS, contextOf, decisionOf, hook, payload, project, run, type Host } from './hooks-kit';

test("session start: each host's documented payload gets the brief of its folder's project, in its shape", async () => {
  const p = project('start');
  const elsewhere = tmpFolder('start-other');
  assert.equal((await p.cli(['remember', 'We deploy with the blue-green script, never by hand.'])).code, 0);
  await run(CLI, ['--memory', p.memory, 'remember', 'The other project ships on Fridays.'], { cwd: elsewhere });
  for (const host of HOSTS) {
    const context = contextOf(host, await hook(p.memory, 'session-start', payload(host, 'session-start', p.cwd), host));
    assert.match(context, /blue-green script/, host);
    assert.doesNotMatch(context, /Fridays/, `${host}: another project's memory stays out`);
  }
  // `recall hook` (the whole CLI) answers the same, and tells the host from the payload's fields.
  const r = await run(CLI, ['--memory', p.memory, 'hook', 'session-start'], { stdin: payload('vscode', 'session-start', p.cwd) });
  assert.match(contextOf('vscode', r), /blue-green script/);
});

test("pre-tool-use: each host's documented payload; a rule's violation is denied naming the rule, its id and who set it", async () => {
  const p = project('pre');
  const added = JSON.parse((await p.cli(['rule', 'add', 'Never force-push.', '--json'])).stdout);
  assert.deepEqual(added.check.command, ['git push --force*', 'git push -f', 'git push +*'], 'the check read from its words');
  for (const host of HOSTS) {
    const d = decisionOf(host, await hook(p.memory, 'pre-tool-use', payload(host, 'pre-tool-use', p.cwd), host));
    assert.equal(d.decision, 'deny', host);
    assert.match(d.reason, new RegExp(`${added.id} "Never force-push\\." \\(set by you\\)`), host);
  }
  const nearMiss = { tool_input: { command: 'git push origin main' } };
  assert.equal(
    decisionOf('claude', await hook(p.memory, 'pre-tool-use', payload('claude', 'pre-tool-use', p.cwd, nearMiss))).decision,
    'allow',
  );

  // A person's check replaces the statement's; removed, the rule stops nothing.
  const set = await p.cli(['rule', 'check', added.id, '--command', 'git push * main', '--json']);
  assert.equal(JSON.parse(set.stdout).check_by, 'person', set.stderr);
  assert.equal(
    decisionOf('claude', await hook(p.memory, 'pre-tool-use', payload('claude', 'pre-tool-use', p.cwd, nearMiss))).decision,
    'deny',
  );
  assert.equal((await p.cli(['rule', 'check', added.id, '--remove'])).code, 0);
  assert.equal(decisionOf('claude', await hook(p.memory, 'pre-tool-use', payload('claude', 'pre-tool-use', p.cwd))).decision, 'allow');
});

test('each decision is recorded on its rule once: a repeat of the same call is not a second one', async () => {
  const p = project('evidence');
  const rule = JSON.parse((await p.cli(['rule', 'add', 'Never force-push.', '--json'])).stdout);
  const force = payload('claude', 'pre-tool-use', p.cwd);
  await hook(p.memory, 'pre-tool-use', force, 'claude');
  await hook(p.memory, 'pre-tool-use', force, 'claude'); // a second hook file ran the same call
  await hook(p.memory, 'pre-tool-use', payload('claude', 'pre-tool-use', p.cwd, { tool_use_id: 'toolu_02' }), 'claude');
  await hook(p.memory, 'pre-tool-use', payload('claude', 'pre-tool-use', p.cwd, { tool_input: { command: 'git push' } }), 'claude');
  const listed = JSON.parse((await p.cli(['rule', 'list', '--json'])).stdout) as { id: string; outcomes?: object }[];
  assert.deepEqual(listed.find((r) => r.id === rule.id)?.outcomes, { blocked: 2, complied: 1 });
});

test('a call Recall asked about that then ran was let through by the person: recorded as overridden', async () => {
  const memory = tmpFolder('override-memory');
  const cwd = tmpFolder('override-project');
  // An agent's rule: it may only ask.
  const store = await JournaledGraph.open(memory, resolveConfig(), () => {});
  const project = `dir:${cwd}`;
  const read = new KnowledgeWriter(store).read({
    kind: 'rule',
    statement: 'Never force-push.',
    subject: 'app',
    assertedBy: 'agent',
    project,
  });
  store.commit([read.event!], { authority: 'agent', project });
  store.close();
  const pre = payload('claude', 'pre-tool-use', cwd);
  assert.equal(decisionOf('claude', await hook(memory, 'pre-tool-use', pre, 'claude')).decision, 'ask');
  // Claude Code's PostToolUse input: the PreToolUse fields and what the tool answered.
  const post = payload('claude', 'pre-tool-use', cwd, { hook_event_name: 'PostToolUse', tool_response: { stdout: '', stderr: '' } });
  const r = await hook(memory, 'post-tool-use', post, 'claude');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '', 'post-tool-use answers nothing');
  await hook(memory, 'post-tool-use', post, 'claude'); // the same call reported twice
  const listed = JSON.parse((await run(CLI, ['--memory', memory, 'rule', 'list', '--json'], { cwd })).stdout) as {
    id: string;
    outcomes?: object;
  }[];
  assert.deepEqual(listed.find((x) => x.id === read.id)?.outcomes, { asked: 1, overridden: 1 });
});

interface Labelled {
  rules: { id: string; statement: string; authority: Authority; confirmed?: boolean; derived: boolean; check: Check }[];
  calls: { note?: string; tool: string; input: unknown; violates: string[] }[];
}

/** Which host sends a labelled call: its tool's name says (VS Code's and Copilot CLI's own names). */
function hostOfTool(tool: string, input: unknown): Host {
  if (typeof input === 'string' || (/^[a-z]+(_[a-z]+)?$/.test(tool) && ['bash', 'edit', 'view', 'web_fetch', 'create'].includes(tool)))
    return 'copilot';
  if (/_/.test(tool)) return 'vscode';
  return 'claude';
}

test('the labelled set end to end: every violation denied or asked naming exactly its rules, no benign call denied', async () => {
  const set = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'checks-labelled.json'), 'utf8')) as Labelled;
  const memory = tmpFolder('labelled-memory');
  const app = tmpFolder('labelled-app');
  const key = `dir:${app}`;
  // The rules as their authors said them, on the real store; one that reads nearly like another
  // ("never force-push to main") is the global memory's, or the project's would be one item.
  const store = await JournaledGraph.open(memory, resolveConfig(), () => {});
  const ids = new Map<string, string>();
  for (const r of set.rules) {
    const project = r.id === 'main-force' ? null : key;
    const read = new KnowledgeWriter(store).read({
      kind: 'rule',
      statement: r.statement,
      subject: 'app',
      assertedBy: r.authority,
      project,
    });
    const events: EventBody[] = [read.event!];
    store.commit(events, { authority: r.authority === 'user' ? 'human' : r.authority, project });
    if (!r.derived) store.commit([{ type: 'relationship.check', id: read.id, check: r.check }], { authority: 'human' });
    if (r.confirmed) store.commit([{ type: 'relationship.correct', id: read.id, verdict: 'confirm' }], { authority: 'human' });
    ids.set(r.id, read.id);
  }
  store.close();
  const byId = new Map(set.rules.map((r) => [r.id, r]));
  for (const [i, c] of set.calls.entries()) {
    const host = hostOfTool(c.tool, c.input);
    const input = JSON.parse(JSON.stringify(c.input).replaceAll('/work/app', app));
    const fields =
      host === 'copilot'
        ? { sessionId: 's', timestamp: Date.now(), cwd: app, toolName: c.tool, toolArgs: input }
        : { session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: c.tool, tool_input: input, tool_use_id: `call-${i}` };
    const d = decisionOf(host, await hook(memory, 'pre-tool-use', JSON.stringify(fields), host));
    const what = `${c.tool} ${JSON.stringify(c.input)}`;
    if (c.violates.length === 0) {
      assert.equal(d.decision, 'allow', `benign: ${what}\n${d.reason}`);
      continue;
    }
    const mayDeny = c.violates.some((v) => byId.get(v)!.authority === 'user' || byId.get(v)!.confirmed);
    assert.equal(d.decision, mayDeny ? 'deny' : 'ask', what);
    const named = [...d.reason.matchAll(/^- (rel_\w+) /gm)].map((m) => m[1]).sort();
    assert.deepEqual(named, c.violates.map((v) => ids.get(v)!).sort(), what);
  }
});

test('a hook never breaks its host: it allows, adds nothing, exits 0 and says why on stderr', async () => {
  const p = project('never');
  await p.cli(['rule', 'add', 'Never force-push.']);
  const force = payload('claude', 'pre-tool-use', p.cwd);
  const allowed = (r: CliResult, why: RegExp): void => {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, why);
    assert.match(r.stderr, /allowing, nothing added/);
  };
  allowed(await hook(p.memory, 'pre-tool-use', 'not json {'), /not JSON/);
  allowed(
    await hook(p.memory, 'pre-tool-use', JSON.stringify({ cwd: p.cwd, hook_event_name: 'PreToolUse' })),
    /not a pre-tool-use payload/,
  );
  allowed(await hook(p.memory, 'pre-tool-use', '[1,2]'), /not a pre-tool-use payload/);
  allowed(await run(HOOK, ['post-everything', '--memory', p.memory], { stdin: force }), /unknown argument/);
  allowed(await run(HOOK, ['pre-tool-use', '--host', 'emacs'], { stdin: force }), /--host is one of/);

  // No memory to reach: the memory folder is a file.
  const file = path.join(tmpFolder('never-file'), 'memory');
  fs.writeFileSync(file, 'not a folder');
  allowed(await hook(file, 'pre-tool-use', force, 'claude'), /is a file/);

  // A memory whose owner holds the folder and never answers: with no hooks cache to answer from,
  // the hook answers at its deadline (the default one), long before the client would give up.
  const hung = tmpFolder('never-hung');
  const owner = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)', path.join(hung, 'service.js')], { stdio: 'ignore' });
  onCleanup(() => owner.kill('SIGKILL'));
  fs.writeFileSync(path.join(hung, 'service.lock'), JSON.stringify({ pid: owner.pid, started: new Date().toISOString() }));
  allowed(
    await hook(hung, 'pre-tool-use', force, 'claude', { RECALL_HOOK_DEADLINE_MS: '' }),
    /did not answer within \d+ ms; no usable hooks cache/,
  );
  assert.equal(owner.exitCode, null, 'the owner was left alone');
});
