/**
 * Find Items Said Twice (views/said-twice.ts): a model proposes pairs among the project's items, the
 * person picks, and only what the person picked is joined. The extension's code runs bundled against
 * the stand-in vscode (test/extension-host.ts); the memory is real, on disk, served by the real
 * service. The model is a mock (test/vscode-stub.ts ScriptedModel: no model can run here) that
 * answers from the prompt it is sent, so the ids it names are the ones the extension showed it.
 * The items are read from the real spatialvault .github/copilot-instructions.md (test/fixtures/knowledge,
 * origin in its SOURCES.md).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { Memory } from '../src/core/memory/memory';
import { MemorySource } from '../src/extension/views/common/source';
import { MemoryClient } from '../src/service/rpc/client';
import { loadExtension, type Bundle } from './extension-host';
import { onCleanup, ROOT, tmpFolder } from './helpers';

let ext: Bundle;
before(async () => (ext = await loadExtension()));

const APP = 'github.com/02JanDal/spatialvault';
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'knowledge', 'instructions', 'spatialvault', '.github', 'copilot-instructions.md');
const KEPT = 'Use prepared statements and parameterized queries';
const GONE = 'Use parameterized queries to prevent SQL injection';
const quiet = { info() {}, warn() {}, error() {} };

/** The file read into a fresh memory as the person's, in APP; the editor's connection to it. */
async function readFile(tag: string): Promise<{ client: MemoryClient; ctx: any }> {
  const folder = tmpFolder(`said-twice-${tag}`);
  const m = await Memory.open(folder, { extract: false });
  m.readMemoryFile(
    { file: FIXTURE, text: fs.readFileSync(FIXTURE, 'utf8'), written: { authority: 'user', authors: [] }, project: APP },
    { authority: 'human', source: 'cli' },
  );
  m.close();
  const client = await MemoryClient.connect({
    memory: folder,
    surface: 'extension',
    project: APP,
    serviceScript: path.join(ROOT, 'dist', 'service.js'),
  });
  onCleanup(() => client.close());
  const ctx = {
    human: client,
    source: new MemorySource(client),
    log: quiet,
    push: () => {},
    memoryChanged: () => {},
    settings: { extraction: { languageModel: false, modelFamily: '' } },
  };
  return { client, ctx };
}

/** The id the prompt shows for a statement, as a model reading it would name it. */
const idIn = (prompt: string, statement: string): string => new RegExp(`^\\[(rel_\\d+)\\] \\(\\w+\\) ${statement}$`, 'm').exec(prompt)![1]!;

test('a model proposes pairs, the person picks one, and only that one is joined', async () => {
  const { client, ctx } = await readFile('picked');
  const model = new ext.vscode.ScriptedModel('Scripted', 'scripted', (prompt: string) =>
    JSON.stringify({
      same: [
        { id: idIn(prompt, GONE), as: idIn(prompt, KEPT) },
        {
          id: idIn(prompt, 'Never modify existing migration files'),
          as: idIn(prompt, 'DO NOT: Modify database migration files that have already been applied'),
        },
        { id: 'rel_99999', as: idIn(prompt, KEPT) },
      ],
    }),
  );
  ext.host.models = [model];
  onCleanup(() => (ext.host.models = []));
  let offered: any[] = [];
  ext.host.pick = (items: any[], options: any) => {
    offered = items;
    assert.equal(options.canPickMany, true);
    return items.filter((i) => i.label.includes(GONE));
  };
  await ext.saidTwice.findSaidTwice(ctx);

  const prompt = model.prompts[0]!;
  assert.ok(prompt.includes(KEPT) && prompt.includes(GONE), "the project's items are shown to the model");
  assert.equal(offered.length, 2, 'the pair naming an id it was not shown is not offered');
  const gone = idIn(prompt, GONE);
  const kept = idIn(prompt, KEPT);
  const ended = await client.call('fact', { id: gone });
  assert.deepEqual([ended.status, ended.ended_reason], ['superseded', `the same as ${kept}`]);
  const migration = idIn(prompt, 'Never modify existing migration files');
  assert.equal((await client.call('fact', { id: migration })).status, 'current', 'a pair not picked is not joined');
  assert.match(ext.host.messages.at(-1)!.text, /joined 1 pair\(s\)/);
});

test('dismissed, no model, a model failing or an answer not as asked: nothing is joined, and the person is told why', async () => {
  const { client, ctx } = await readFile('nothing');
  const before = (await client.call('browse.items', { offset: 0, limit: 500 })).items.filter((f: any) => f.status === 'current').length;

  ext.host.models = [];
  await ext.saidTwice.findSaidTwice(ctx);
  assert.match(ext.host.messages.at(-1)!.text, /no language model is available/);

  const prose = new ext.vscode.ScriptedModel('Chatty', 'chatty', () => 'These two look alike to me: the SQL ones.');
  ext.host.models = [prose];
  onCleanup(() => (ext.host.models = []));
  await ext.saidTwice.findSaidTwice(ctx);
  assert.equal(ext.host.messages.at(-1)!.kind, 'warning');
  assert.match(ext.host.messages.at(-1)!.text, /did not answer as asked; nothing is proposed/);

  const broken = new ext.vscode.ScriptedModel('Broken', 'broken', () => {
    throw new Error('quota exceeded');
  });
  ext.host.models = [broken];
  await ext.saidTwice.findSaidTwice(ctx);
  assert.match(ext.host.messages.at(-1)!.text, /Broken failed: quota exceeded; nothing is proposed/);

  const model = new ext.vscode.ScriptedModel('Scripted', 'scripted', (prompt: string) =>
    JSON.stringify({ same: [{ id: idIn(prompt, GONE), as: idIn(prompt, KEPT) }] }),
  );
  ext.host.models = [model];
  ext.host.pick = () => undefined;
  await ext.saidTwice.findSaidTwice(ctx);
  const after = (await client.call('browse.items', { offset: 0, limit: 500 })).items.filter((f: any) => f.status === 'current').length;
  assert.equal(after, before, 'dismissed: every item still current');

  const none = new ext.vscode.ScriptedModel('Scripted', 'scripted', () => '{"same": []}');
  ext.host.models = [none];
  await ext.saidTwice.findSaidTwice(ctx);
  assert.match(ext.host.messages.at(-1)!.text, /found no two of .* items that say the same/);
});
