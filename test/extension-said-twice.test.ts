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
import { MemoryClient } from '../src/service/rpc/client';
import { editorConnection, editorContext, loadExtension, type Bundle } from './extension-host';
import { onCleanup, ROOT, tmpFolder, waitFor } from './helpers';

let ext: Bundle;
before(async () => (ext = await loadExtension()));

const APP = 'github.com/02JanDal/spatialvault';
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'knowledge', 'instructions', 'spatialvault', '.github', 'copilot-instructions.md');
const KEPT = 'Use prepared statements and parameterized queries';
const GONE = 'Use parameterized queries to prevent SQL injection';

/** The file read into a fresh memory as the person's, in APP; the editor's connection to it. */
async function readFile(tag: string): Promise<{ client: MemoryClient; ctx: any }> {
  const folder = tmpFolder(`said-twice-${tag}`);
  const m = await Memory.open(folder, { extract: false });
  m.readMemoryFile(
    { file: FIXTURE, text: fs.readFileSync(FIXTURE, 'utf8'), written: { authority: 'user', authors: [] }, project: APP },
    { authority: 'human', source: 'cli' },
  );
  m.close();
  const client = await editorConnection(folder, APP);
  const ctx = { ...editorContext(client), settings: { extraction: { languageModel: false, modelFamily: '' } } };
  return { client, ctx };
}

/** The id the prompt shows for a statement, as a model reading it would name it. */
const idIn = (prompt: string, statement: string): string => new RegExp(`^\\[(rel_\\d+)\\] \\(\\w+\\) ${statement}$`, 'm').exec(prompt)![1]!;

/** The scripted model, the only one offered: it names spatialvault's SQL pair by the ids its prompt shows. */
function pairModel(): InstanceType<Bundle['vscode']['ScriptedModel']> {
  const model = new ext.vscode.ScriptedModel('Scripted', 'scripted', (prompt: string) =>
    JSON.stringify({ same: [{ id: idIn(prompt, GONE), as: idIn(prompt, KEPT) }] }),
  );
  ext.host.models = [model];
  onCleanup(() => (ext.host.models = []));
  return model;
}

/** The editor's context with background model use on (the setting) and VS Code's answer on whether Recall may use the model. */
function backgrounded(ctx: any, allowed: () => boolean | undefined): any {
  const state = new Map<string, unknown>();
  return {
    ...ctx,
    settings: { extraction: { languageModel: true, modelFamily: '' } },
    extension: {
      languageModelAccessInformation: { canSendRequest: () => allowed() },
      workspaceState: { get: (k: string, d: unknown) => state.get(k) ?? d, update: async (k: string, v: unknown) => void state.set(k, v) },
    },
  };
}

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

  pairModel();
  ext.host.pick = () => undefined;
  await ext.saidTwice.findSaidTwice(ctx);
  const after = (await client.call('browse.items', { offset: 0, limit: 500 })).items.filter((f: any) => f.status === 'current').length;
  assert.equal(after, before, 'dismissed: every item still current');

  const none = new ext.vscode.ScriptedModel('Scripted', 'scripted', () => '{"same": []}');
  ext.host.models = [none];
  await ext.saidTwice.findSaidTwice(ctx);
  assert.match(ext.host.messages.at(-1)!.text, /found no two of .* items that say the same/);
});

test('memory files adding items: with the setting on and a model VS Code allows, the pairs found are offered; unticked ones are not offered again', async () => {
  const { client, ctx } = await readFile('offer');
  let allowed: boolean | undefined = true;
  const logged: string[] = [];
  const bg = {
    ...backgrounded(ctx, () => allowed),
    log: { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error() {} },
  };
  const model = pairModel();
  const offer = new ext.saidTwice.JoinOffer(bg, 0);
  onCleanup(() => offer.dispose());
  const settle = async (): Promise<void> => {
    await new Promise((r) => setTimeout(r, 20));
    await offer.checked;
  };

  // Offered; the person reviews and leaves the pair unticked: nothing joined, and it is not offered again.
  const offered: string[] = [];
  ext.host.answer = (text: string, items: string[]) => (offered.push(text), items.includes('Review…') ? 'Review…' : undefined);
  ext.host.pick = () => [];
  offer.itemsAdded();
  await settle();
  assert.equal(model.prompts.length, 1, 'the model is asked once things are quiet');
  assert.match(offered.at(-1)!, /finds 1 pair\(s\) among .* that may say the same thing\. Nothing is joined unless you pick it\./);
  const gone = idIn(model.prompts[0]!, GONE);
  assert.equal((await client.call('fact', { id: gone })).status, 'current', 'unticked: not joined');
  const before = offered.length;
  offer.itemsAdded();
  await settle();
  assert.equal(offered.length, before, 'a pair left unticked is not offered again');
  assert.ok(logged.some((l) => /0 pair\(s\) to offer/.test(l)));

  // The setting off, or a model VS Code has not yet allowed: no request at all.
  const asked = model.prompts.length;
  bg.settings.extraction.languageModel = false;
  offer.itemsAdded();
  await settle();
  bg.settings.extraction.languageModel = true;
  allowed = undefined;
  offer.itemsAdded();
  await settle();
  assert.equal(model.prompts.length, asked, 'never asks unallowed');
  assert.ok(logged.some((l) => /has not let Recall use Scripted; run "Recall: Find Items Said Twice…" to be asked/.test(l)));
  ext.host.answer = () => undefined;
});

test('the memory folder changed while the person was picking: its ids name other items there, so nothing is joined', async () => {
  const { client, ctx } = await readFile('moved');
  ctx.memory = '/the/memory/asked';
  const model = pairModel();
  ext.host.pick = (items: any[]) => {
    ctx.memory = '/another/memory';
    return items;
  };
  await ext.saidTwice.findSaidTwice(ctx);
  assert.match(ext.host.messages.at(-1)!.text, /the memory folder changed meanwhile; nothing is joined/);
  assert.equal((await client.call('fact', { id: idIn(model.prompts[0]!, GONE) })).status, 'current');
});

test('one offer at a time: items added while the person has not answered are checked after the answer', async () => {
  const { ctx } = await readFile('busy');
  const bg = backgrounded(ctx, () => true);
  const model = pairModel();
  const offer = new ext.saidTwice.JoinOffer(bg, 0);
  onCleanup(() => offer.dispose());
  let answer: ((choice: string | undefined) => void) | undefined;
  ext.host.answer = (_text: string, items: string[]) =>
    items.includes('Review…') ? new Promise<string | undefined>((r) => (answer = r)) : undefined;
  offer.itemsAdded();
  await waitFor(() => answer !== undefined, 10_000, 'the offer shown');
  assert.equal(model.prompts.length, 1, 'the offer waits for the person');
  // Time enough for a second check to reach the model, were one started (the first took less).
  offer.itemsAdded();
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(model.prompts.length, 1, 'not asked again while the offer is open');
  ext.host.answer = () => undefined;
  answer!(undefined);
  await waitFor(() => model.prompts.length === 2, 10_000, 'the second check');
  await offer.checked;
  assert.equal(model.prompts.length, 2, 'the items added meanwhile are checked once the person answered');
});
