/**
 * package.json is the extension's contract with VS Code: it must say exactly what the code does.
 * Fails when the languageModelTools differ from the catalogue (fix: npm run sync-manifest), when
 * a declared command has no handler or a handler is not declared, when views, settings or the MCP
 * provider id drift from src/extension/common/ids.ts, when a setting's default is not the one in
 * src/core/model/defaults.ts, when a setting's scope or Restricted Mode disagree with
 * src/extension/common/setting-scope.ts, and when the extension bundle would pull sql.js into the extension host.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { SETTING_DEFAULTS } from '../src/core/model/defaults.js';
import { TOOL_LIST, inputJsonSchema } from '../src/tools/catalogue.js';
import {
  COMMANDS,
  INTERNAL_COMMANDS,
  MCP_PROVIDER_ID,
  SETTINGS,
  SETTINGS_SECTION,
  VIEW_CONTAINER,
  VIEWS,
} from '../src/extension/common/ids.js';
import { PERSON_ONLY_SETTINGS, WORKSPACE_MAY_SET, WORKSPACE_MAY_TURN_OFF } from '../src/extension/common/setting-scope.js';
// @ts-expect-error: a plain ESM script without types
import { configurationWithDefaults, toolContributions } from '../scripts/sync-manifest.mjs';

const ROOT = path.resolve(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const contributes = pkg.contributes ?? {};

test('languageModelTools are generated from the tool catalogue', () => {
  const want = toolContributions({ TOOL_LIST, inputJsonSchema });
  assert.deepEqual(contributes.languageModelTools, want, 'package.json and src/tools/catalogue.ts disagree: run `npm run sync-manifest`');
  for (const t of contributes.languageModelTools) {
    assert.ok(t.name && t.toolReferenceName && t.displayName && t.modelDescription && t.userDescription, `${t.name}: a field is empty`);
    assert.equal(t.canBeReferencedInPrompt, true);
    assert.match(t.icon, /^\$\([a-z-]+\)$/);
    assert.equal(t.inputSchema.type, 'object');
  }
});

test('every declared command has a handler, and every handler is declared', () => {
  const declared = (contributes.commands ?? []).map((c: { command: string }) => c.command).sort();
  assert.deepEqual(declared, Object.values(COMMANDS).sort());
  for (const c of contributes.commands) assert.equal(c.category, 'Recall', `${c.command} is in the "Recall" category`);
  const titles = contributes.commands.map((c: { title: string }) => c.title);
  for (const t of [
    'Search Memory',
    'Mark Fact Wrong…',
    'Confirm Fact…',
    'Add a Fact…',
    'Forget Entity…',
    'Import Conversations…',
    'Show Status',
    'Open Memory Folder',
    'Restart Memory Service',
  ]) {
    assert.ok(titles.includes(t), `missing command "${t}"`);
  }
});

test('menus name declared commands only; internal commands stay out of the palette', () => {
  const ids = new Set(Object.values(COMMANDS) as string[]);
  for (const [menu, items] of Object.entries(contributes.menus ?? {})) {
    for (const item of items as { command: string }[]) assert.ok(ids.has(item.command), `${menu} names unknown command ${item.command}`);
  }
  const hidden = (contributes.menus.commandPalette ?? [])
    .filter((m: { when?: string }) => m.when === 'false')
    .map((m: { command: string }) => m.command);
  assert.deepEqual(hidden.sort(), [...INTERNAL_COMMANDS].sort());
  const onFacts = contributes.menus['view/item/context'].filter((m: { when: string }) => m.when.includes('viewItem =~ /^fact'));
  assert.ok(
    onFacts.some((m: { command: string }) => m.command === COMMANDS.markWrong),
    'Mark Fact Wrong is on fact items',
  );
});

test('the activity-bar container, its two views and their welcome content match the code', () => {
  const container = contributes.viewsContainers.activitybar.find((c: { id: string }) => c.id === VIEW_CONTAINER);
  assert.ok(container, 'an activity-bar container "recall"');
  assert.equal(container.title, 'Recall');
  assert.ok(fs.existsSync(path.join(ROOT, container.icon)), `${container.icon} exists`);
  assert.deepEqual(
    contributes.views[VIEW_CONTAINER].map((v: { id: string }) => v.id),
    Object.values(VIEWS),
  );
  for (const view of Object.values(VIEWS)) {
    assert.ok(
      contributes.viewsWelcome.some((w: { view: string; contents: string }) => w.view === view && /\(command:recall\./.test(w.contents)),
      `${view} has a welcome with actions`,
    );
  }
});

test('settings declared are the ones the code reads', () => {
  const declared = Object.keys(contributes.configuration.properties).sort();
  assert.deepEqual(
    declared,
    Object.values(SETTINGS)
      .map((k) => `${SETTINGS_SECTION}.${k}`)
      .sort(),
  );
});

test('every setting default is the one in src/core/model/defaults.ts', () => {
  const properties = contributes.configuration.properties as Record<string, { default?: unknown }>;
  assert.deepEqual(
    Object.keys(properties).sort(),
    Object.keys(SETTING_DEFAULTS)
      .map((k) => `${SETTINGS_SECTION}.${k}`)
      .sort(),
  );
  for (const [key, value] of Object.entries(SETTING_DEFAULTS)) {
    assert.deepEqual(
      properties[`${SETTINGS_SECTION}.${key}`]!.default,
      value,
      `${key}: package.json and src/core/model/defaults.ts disagree: run \`npm run sync-manifest\``,
    );
  }
});

test('settings that move the memory or its data, or change trust, are the person’s alone (machine scope)', () => {
  const properties = contributes.configuration.properties as Record<string, { scope?: string }>;
  const judged = [...PERSON_ONLY_SETTINGS, ...WORKSPACE_MAY_TURN_OFF, ...WORKSPACE_MAY_SET];
  assert.deepEqual(
    [...judged].sort(),
    Object.values(SETTINGS).sort(),
    'every setting is judged once in src/extension/common/setting-scope.ts',
  );
  for (const key of Object.values(SETTINGS)) {
    const want = PERSON_ONLY_SETTINGS.includes(key) ? 'machine' : undefined;
    assert.equal(properties[`${SETTINGS_SECTION}.${key}`]!.scope, want, `${key}: scope ${want ?? 'window (the default)'}`);
  }
});

test('Restricted Mode is declared: limited, with the person-only settings restricted and what runs described', () => {
  const untrusted = pkg.capabilities?.untrustedWorkspaces;
  assert.equal(untrusted?.supported, 'limited');
  assert.deepEqual([...untrusted.restrictedConfigurations].sort(), PERSON_ONLY_SETTINGS.map((k) => `${SETTINGS_SECTION}.${k}`).sort());
  assert.match(untrusted.description, /Restricted Mode/);
  assert.match(untrusted.description, /chat sessions/);
  assert.match(untrusted.description, /anchors/);
  assert.match(untrusted.description, /instructions/);
});

test('sync-manifest finds a drifted default and puts the source default back', () => {
  const drifted = structuredClone(contributes.configuration);
  drifted.properties['recall.http.port'].default = 1;
  assert.equal(configurationWithDefaults(drifted, SETTING_DEFAULTS).properties['recall.http.port'].default, SETTING_DEFAULTS['http.port']);
  assert.deepEqual(
    configurationWithDefaults(contributes.configuration, SETTING_DEFAULTS),
    contributes.configuration,
    'nothing to change when in sync',
  );
  assert.throws(
    () => configurationWithDefaults(contributes.configuration, { ...SETTING_DEFAULTS, 'made.up': 1 }),
    /not declared in package.json: made\.up/,
  );
});

test('the MCP server definition provider id, entry point, icon and packaging', () => {
  assert.deepEqual(
    contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id),
    [MCP_PROVIDER_ID],
  );
  assert.equal(pkg.main, './dist/extension.js');
  assert.ok(fs.existsSync(path.join(ROOT, pkg.icon)) && pkg.icon.endsWith('.png'), 'a PNG marketplace icon');
  assert.match(pkg.engines.vscode, /^\^1\.101\./, 'engines.vscode stays at ^1.101 (MCP provider and LM tools are stable there)');
  const ignore = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8');
  // dist/hook.js: the agent hooks the extension installs run it.
  for (const f of ['dist/extension.js', 'dist/cli.js', 'dist/service.js', 'dist/hook.js', 'dist/sql-wasm.wasm'])
    assert.ok(ignore.includes(`!${f}`), `.vscodeignore keeps ${f}`);
  assert.ok(pkg.scripts.package.includes('--no-dependencies'), 'the VSIX carries bundles, not node_modules');
});

test('the extension bundle never loads sql.js or the store into the extension host', async () => {
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, 'src/extension/extension.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
    write: false,
    metafile: true,
    logLevel: 'silent',
    outfile: path.join(ROOT, 'dist/extension.js'),
  });
  const inputs = Object.keys(result.metafile!.inputs);
  // The extension may read the vocabulary (core/model) and parse transcripts (core/ingest); the store and what runs on it stay in the service.
  const heavy = inputs.filter((f) => /node_modules\/sql\.js|src\/core\/(store|memory|retrieval|vectors)\//.test(f));
  assert.deepEqual(heavy, [], 'the extension host must not bundle these (the service does the work)');
});
