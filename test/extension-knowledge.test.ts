/**
 * Knowledge items on the extension's surfaces (issue 28, items 7 and 10): the Entities tree's
 * "Rules and decisions" group of the current project, `@recall` listing facts by kind and
 * answering "what are our rules about X" from the items, and a confirmed item reading "confirmed"
 * rather than a percentage. The extension's code runs bundled against the stand-in vscode
 * (test/extension-host.ts); the memory is real, on disk, served by the real service over its
 * socket to a connection that says its project, as the editor's does. The chat's model is not
 * used (none here): the cited list needs none.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { Memory } from '../src/core/memory/memory';
import { COMMANDS } from '../src/extension/common/ids';
import { knowledgeAsk } from '../src/extension/chat/common/knowledge-ask';
import { MemorySource } from '../src/extension/views/common/source';
import { MemoryClient } from '../src/service/rpc/client';
import { renderFact } from '../src/tools/render';
import { editorConnection, editorContext, loadExtension, rendered, type Bundle } from './extension-host';
import { ROOT, tmpFolder } from './helpers';
import { sayItems } from './knowledge-items';

let ext: Bundle;
before(async () => (ext = await loadExtension()));

const person = { authority: 'human' as const, source: 'cli' };
const APP = 'example.org/team/app';
const OTHER = 'example.org/team/other';
const quiet = { info() {}, warn() {}, error() {} };

/** Whether the manifest offers a command on an Entities row of this context value (its view/item/context `when`). */
function offered(command: string, contextValue: string): boolean {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return manifest.contributes.menus['view/item/context'].some((m: { command: string; when: string }) => {
    const re = /viewItem =~ \/(.+)\/$/.exec(m.when)?.[1];
    return m.command === command && re !== undefined && new RegExp(re).test(contextValue);
  });
}

/** The editor's connection to the memory in `folder` (the person's), in APP. */
const editorOn = (folder: string): Promise<MemoryClient> => editorConnection(folder, APP);

interface Held {
  client: MemoryClient;
  ids: Record<string, string>;
}

/** A memory holding items of every kind in APP, a rule of the global memory and one of another project; `logging` confirmed by the person. */
async function heldMemory(): Promise<Held> {
  const folder = tmpFolder('ext-items');
  const m = await Memory.open(folder, { extract: false });
  const [logging, secrets, db, vitest, tests, ci, commits, deploys] = sayItems(m, [
    { kind: 'rule', subject: 'logging', statement: 'Never log the database URL, ever.', project: APP },
    {
      kind: 'rule',
      subject: 'secrets',
      statement: 'Do not print secrets in logging output or the status endpoint.',
      project: APP,
      authority: 'agent',
    },
    { kind: 'decision', subject: 'database', object: 'SQLite', statement: 'Switch the database to SQLite.', project: APP },
    { kind: 'preference', subject: 'test runner', object: 'Vitest', statement: 'I prefer Vitest over Jest.', project: APP },
    { kind: 'fact', subject: 'tests', statement: 'Run the unit tests with npm test.', project: APP },
    {
      kind: 'lesson',
      subject: 'CI',
      statement: 'CI failed because the npm cache was stale; clearing it fixed it.',
      project: APP,
      authority: 'agent',
    },
    { kind: 'rule', subject: 'commits', statement: 'Commit subjects stay under 72 characters.', project: null },
    { kind: 'rule', subject: 'deploys', statement: 'Deploy logging changes only on Tuesdays.', project: OTHER },
  ]);
  m.correct({ id: logging!, verdict: 'confirm' }, person);
  m.relate({ subject: 'Billing', predicate: 'uses', object: 'Postgres', prior: 'explicit' }, person);
  m.close();
  const client = await editorOn(folder);
  return {
    client,
    ids: { logging: logging!, secrets: secrets!, db: db!, vitest: vitest!, tests: tests!, ci: ci!, commits: commits!, deploys: deploys! },
  };
}

let held: Promise<Held> | undefined;
const memory = (): Promise<Held> => (held ??= heldMemory());

/** A chat response stream that keeps what the participant writes. */
function chatStream() {
  const parts: string[] = [];
  const buttons: { command: string; arguments: string[] }[] = [];
  return {
    parts,
    buttons,
    out: {
      markdown: (v: string | { value: string }) => void parts.push(typeof v === 'string' ? v : v.value),
      button: (b: { command: string; arguments: string[] }) => void buttons.push(b),
      progress: () => {},
    },
    text: () => parts.map((p) => rendered(p).text).join(''),
  };
}

test('Entities tree: the current project\'s rules and decisions come first, in their own group, confirmed ones reading "confirmed"', async () => {
  const { client, ids } = await memory();
  const ctx = { source: new MemorySource(client), log: quiet, push: () => {} };
  const tree = new ext.entities.EntitiesTree(ctx);
  const roots = await tree.getChildren();
  assert.equal(roots[0].kind, 'group', `the group is the first root: ${roots.map((r: { kind: string }) => r.kind)}`);
  assert.ok(
    roots.slice(1).every((r: { kind: string }) => r.kind === 'type'),
    'entity types follow it',
  );
  const group = tree.getTreeItem(roots[0]);
  assert.equal(group.label, 'Rules and decisions');
  // APP's two rules and its decision, and the global memory's rule: not the other project's, not the other kinds.
  assert.equal(group.description, '4');

  const children = await tree.getChildren(roots[0]);
  const shown = children.map((n: { fact: { id: string } }) => n.fact.id);
  assert.deepEqual(shown.slice(0, 3).sort(), [ids.logging, ids.secrets, ids.commits].sort(), 'rules first');
  assert.equal(shown[0], ids.logging, "among the rules, the person's confirmed one first");
  assert.equal(shown[3], ids.db, 'then the decisions');
  assert.equal(shown.length, 4);
  for (const other of [ids.deploys, ids.vitest, ids.tests, ids.ci]) assert.ok(!shown.includes(other), `${other} is not in the group`);

  const items = children.map((n: unknown) => tree.getTreeItem(n));
  const confirmed = items[0];
  assert.equal(confirmed.label, 'rule: Never log the database URL, ever.');
  assert.match(confirmed.description, /^confirmed · said by /);
  assert.doesNotMatch(confirmed.description, /%/, 'a confirmed item reads "confirmed", not a percentage');
  assert.doesNotMatch(rendered(confirmed.tooltip).text, /\d+%/, 'its tooltip neither');
  assert.equal(confirmed.contextValue, 'fact.current.pinned.rule.item');
  for (const c of [COMMANDS.markWrong, COMMANDS.editCheck]) assert.ok(offered(c, confirmed.contextValue), `${c} on a confirmed rule`);
  for (const c of [COMMANDS.confirm, COMMANDS.sameAs])
    assert.ok(!offered(c, confirmed.contextValue), `no ${c}: it is confirmed, so it stays`);
  assert.equal(confirmed.iconPath.id, 'law');
  const agents = items[shown.indexOf(ids.secrets)];
  assert.match(
    agents.description,
    /^\d+% · said by assistant · agent$/,
    "an agent's unconfirmed rule shows its confidence and who said it",
  );
  assert.equal(agents.contextValue, 'fact.current.rule.item');
  for (const c of [COMMANDS.confirm, COMMANDS.markWrong, COMMANDS.editCheck, COMMANDS.sameAs])
    assert.ok(offered(c, agents.contextValue), `${c} on an unconfirmed rule`);
  assert.match(items[3].label, /^decision: Switch the database to SQLite\.$/);
});

test('Entities tree: when the items cannot be listed, the entities still show, without the group, and the log says why', async () => {
  const { client } = await memory();
  const warned: string[] = [];
  const source = new MemorySource(client);
  // A service that does not answer the list (an older one still running, say).
  source.items = () => Promise.reject(new Error('unknown method browse.items'));
  const tree = new ext.entities.EntitiesTree({ source, log: { ...quiet, warn: (m: string) => warned.push(m) }, push: () => {} });
  const roots = await tree.getChildren();
  assert.ok(roots.length > 0 && roots.every((r: { kind: string }) => r.kind === 'type'), JSON.stringify(roots));
  assert.match(warned.join('\n'), /rules and decisions not listed: unknown method browse\.items/);
});

test('@recall: "what are our rules about logging?" answers from the rules of this project, by kind, with Confirm and Mark Wrong', async () => {
  const { client, ids } = await memory();
  const ctx = { human: client, log: quiet };
  const s = chatStream();
  const result = await ext.chatParticipant.answerChat(ctx, { prompt: 'What are our rules about logging?' }, s.out);
  const text = s.text();
  assert.deepEqual([...result.metadata.facts.slice(0, 2)].sort(), [ids.logging, ids.secrets].sort(), text);
  assert.match(text, /2 rules about "logging" in force in this project/);
  assert.match(text, /Rules\n/);
  assert.ok(text.includes('rule: Never log the database URL, ever. (confirmed, by user'), text);
  assert.ok(text.includes('rule: Do not print secrets in logging output or the status endpoint. ('), text);
  assert.ok(!text.includes('Tuesdays'), "another project's rule is not this project's");
  // Answered from the items first; what a search of the memory finds comes after them.
  const items = text.split('\nAlso found\n')[0]!;
  assert.ok(items.includes('rule: Never log') && items.includes('rule: Do not print secrets'), text);
  assert.ok(!items.includes('Episodes'), text);
  const confirmButtons = s.buttons.filter((b) => b.command === COMMANDS.confirm).map((b) => b.arguments[0]);
  assert.deepEqual(confirmButtons, [ids.secrets], 'Confirm is offered for the unconfirmed rule alone');
  assert.deepEqual(
    s.buttons
      .filter((b) => b.command === COMMANDS.markWrong)
      .map((b) => b.arguments[0])
      .sort(),
    [ids.logging, ids.secrets].sort(),
  );

  // "What did we decide" reads the decisions; with no topic, all of them.
  const d = chatStream();
  const decided = await ext.chatParticipant.answerChat(ctx, { prompt: 'what decisions did we make' }, d.out);
  assert.equal(decided.metadata.facts[0], ids.db, d.text());
  assert.match(d.text(), /^1 decision in force in this project:\nDecisions\n/);
  assert.match(d.text(), /Decisions\n/);
});

test('@recall: no rule about a topic says so, then searches what was said', async () => {
  const { client } = await memory();
  const s = chatStream();
  const result = await ext.chatParticipant.answerChat({ human: client, log: quiet }, { prompt: 'what are our rules about billing' }, s.out);
  assert.match(s.text(), /^No rules about "billing" in this project's memory\. What was said:\n/);
  assert.ok(result.metadata.facts.length > 0, `the search answers: ${s.text()}`);
});

test('@recall: a question lists the facts it finds under their kind, rules and decisions before plain facts', async () => {
  const { client } = await memory();
  const asked = await client.call('query', { query: 'database logging billing postgres' });
  const kinds = asked.facts.map((f) => f.kind ?? 'plain');
  assert.ok(kinds.includes('rule') && kinds.includes('plain'), `the query finds items and plain facts: ${kinds}`);
  const s = chatStream();
  await ext.chatParticipant.answerChat({ human: client, log: quiet }, { prompt: 'database logging billing postgres' }, s.out);
  const text = s.text();
  const headings = text.split('\n').filter((l) => /^(Rules|Decisions|Preferences|Project facts|Lessons learned|Facts|Episodes)$/.test(l));
  const order = ['Rules', 'Decisions', 'Preferences', 'Project facts', 'Lessons learned', 'Facts', 'Episodes'];
  assert.deepEqual(
    headings,
    order.filter((h) => headings.includes(h)),
    text,
  );
  assert.ok(headings.includes('Rules') && headings.indexOf('Rules') < headings.indexOf('Facts'), text);
  // Each item's line reads by its kind and sits under its kind's heading.
  let under = '';
  let items = 0;
  for (const line of text.split('\n')) {
    if (headings.includes(line)) under = line;
    const kind = /^(rule|decision|preference|fact|lesson): /.exec(line.replace(/^\S+ /, ''))?.[1];
    if (kind) assert.equal(under, order[['rule', 'decision', 'preference', 'fact', 'lesson'].indexOf(kind)], line);
    if (kind) items++;
  }
  assert.equal(items, kinds.filter((k) => k !== 'plain').length, text);
  assert.ok(text.includes('Billing uses Postgres'), text);
});

test('a confirmed item reads "confirmed", not a percentage, wherever it is rendered; an unconfirmed one shows its confidence', async () => {
  const { client, ids } = await memory();
  const confirmed = await client.call('fact', { id: ids.logging });
  const agents = await client.call('fact', { id: ids.secrets });
  const surfaces = {
    'the tools (recall_query, the CLI)': renderFact,
    'a tree row': ext.present.factDescription,
    'a tree tooltip': (f: typeof confirmed) => rendered(ext.present.factTooltip(f)).text,
    'a grouped row': ext.present.itemDescription,
  };
  for (const [where, render] of Object.entries(surfaces)) {
    const text: string = render(confirmed);
    assert.match(text, /confirmed/, `${where}: ${text}`);
    assert.doesNotMatch(text, /\d+%/, `${where}: ${text}`);
    assert.match(render(agents), /\d+%/, `${where}: an unconfirmed item shows its confidence`);
  }
  assert.match(renderFact(confirmed), /^rel_\d+: \[rule\] Never log the database URL, ever\. \(about logging\)/);
});

test('the items list refuses a kind that is not one, naming the kinds', async () => {
  const { client } = await memory();
  await assert.rejects(
    client.call('browse.items', { kinds: ['law' as 'rule'] }),
    (e: Error & { code?: string }) => e.code === 'invalid_input' && /kinds/.test(e.message),
  );
});

test('a chat question asks for knowledge of a kind, and about what, only when it names one', () => {
  assert.deepEqual(knowledgeAsk('What are our rules about logging?'), { kinds: ['rule'], about: 'logging' });
  assert.deepEqual(knowledgeAsk('what did we decide about the database'), { kinds: ['decision'], about: 'the database' });
  assert.deepEqual(knowledgeAsk('our conventions for naming repos'), { kinds: ['rule'], about: 'naming repos' });
  assert.deepEqual(knowledgeAsk('lessons learned on CI'), { kinds: ['lesson'], about: 'CI' });
  assert.deepEqual(knowledgeAsk('rules and decisions about auth'), { kinds: ['rule', 'decision'], about: 'auth' });
  assert.deepEqual(knowledgeAsk('what are the rules for this project?'), { kinds: ['rule'] });
  assert.deepEqual(knowledgeAsk('what are our rules'), { kinds: ['rule'] });
  assert.equal(knowledgeAsk('where does billing live?'), undefined);
  assert.equal(knowledgeAsk('what does the ruler component do'), undefined, 'a word that only starts like a kind is not one');
});

test("Same As… from a rule's row: the rule to keep is picked among the project's items sharing its words; dismissed, nothing changes", async () => {
  // The pair of spatialvault's .github/copilot-instructions.md (test/fixtures/knowledge, origin in its SOURCES.md).
  const folder = tmpFolder('ext-same');
  const m = await Memory.open(folder, { extract: false });
  const [kept, gone, other] = sayItems(m, [
    { kind: 'rule', subject: 'SQL queries', statement: 'Use prepared statements and parameterized queries', project: APP },
    { kind: 'rule', subject: 'SQL queries', statement: 'Use parameterized queries to prevent SQL injection', project: APP },
    { kind: 'rule', subject: 'SQL queries', statement: 'Use parameterized queries in the reports too', project: OTHER },
  ]);
  m.close();
  const client = await editorOn(folder);
  const ctx = editorContext(client);
  const row = { kind: 'fact', fact: await client.call('fact', { id: gone! }) };

  let offered: string[] = [];
  ext.host.pick = (items: any[]) => void (offered = items.map((i) => i.data.fact.id));
  await ext.sameAs.sameAs(ctx, row);
  assert.deepEqual(offered, [kept], "offered: the project's other item sharing its words, not the other project's, not itself");
  assert.equal((await client.call('fact', { id: gone! })).status, 'current', 'dismissed: nothing changed');

  ext.host.pick = (items: any[]) => items.find((i) => i.data.fact.id === kept);
  await ext.sameAs.sameAs(ctx, row);
  const ended = await client.call('fact', { id: gone! });
  assert.deepEqual([ended.status, ended.ended_reason], ['superseded', `the same as ${kept}`]);
  assert.equal((await client.call('fact', { id: kept! })).evidence.length, 2);
  assert.match(ext.host.messages.at(-1)!.text, new RegExp(`^${gone} is ${kept} said again: .* now has 2 piece\\(s\\) of evidence`));
  assert.equal((await client.call('fact', { id: other! })).status, 'current');
});
