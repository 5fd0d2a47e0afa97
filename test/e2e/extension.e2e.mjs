#!/usr/bin/env node
// End-to-end test of the Recall extension in a real VS Code (code-server 4.112, Node 22),
// driven by Debian chromium through playwright-core. `npm run test:e2e`.
//
//  1. installs the tools (test/e2e/install-tools.sh; a no-op once cached),
//  2. builds and packages the VSIX with vsce (`npm run package`), checks what it carries,
//  3. seeds a memory with known facts through `node dist/cli.js` (RECALL_HOME reaches code-server),
//  4. installs the VSIX and a small driver extension (written here; it calls vscode.lm.invokeTool
//     and writes the results to a file, and registers a MOCK language model standing in for
//     Copilot's) into a scratch profile, starts code-server on 127.0.0.1,
//  5. asserts on the rendered workbench, the memory (via the CLI) and the tool results,
//  6. stops everything it started, pass or fail, and prints "N passed, M failed".
// Screenshots and logs go to test/e2e/artifacts/.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as h from './harness.mjs';
import { checkAnchors } from './checks-anchors.mjs';
import { START_MCP_SERVERS, checksBriefChatTools, checksInstructionsOffer, checksToolSurface } from './checks-brief.mjs';
import { humanChecks } from './checks-human.mjs';
import { checksTrust } from './checks-trust.mjs';
import { checksHooksOffer, checksRuleCheckEditor } from './checks-hooks.mjs';
import { checksKnowledge, MOCK_JOIN } from './checks-knowledge.mjs';

const t0 = Date.now();
const timings = [];
let tStep = Date.now();
const step = (name) => {
  const now = Date.now();
  const ms = now - tStep;
  timings.push([name, ms]);
  tStep = now;
  console.log(`  [${((now - t0) / 1000).toFixed(1)} s] ${name} (+${(ms / 1000).toFixed(1)} s)`);
};

const results = [];
let page;
/** Runs one named check; a failure is recorded (with a screenshot) and the run goes on. */
async function check(name, fn) {
  const started = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`  ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (err) {
    results.push({ name, ok: false, err });
    console.log(
      `  FAIL ${name}\n       ${String(err?.stack ?? err)
        .split('\n')
        .slice(0, 6)
        .join('\n       ')}`,
    );
    if (page) await h.screenshot(page, `failure-${results.length}`).catch(() => {});
  }
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-e2e-ext-'));
const dirs = {
  claude: path.join(work, 'claude-projects'),
  userDataDir: path.join(work, 'user-data'),
  extensionsDir: path.join(work, 'extensions'),
  folder: path.join(work, 'workspace'),
  home: path.join(work, 'recall-home'),
  empty: path.join(work, 'empty-home'),
  driver: path.join(work, 'driver'),
  out: path.join(work, 'out'),
};
for (const [k, d] of Object.entries(dirs)) if (k !== 'empty') fs.mkdirSync(d, { recursive: true });
fs.writeFileSync(path.join(dirs.folder, 'README.md'), '# e2e workspace\n');

// Services started for this memory exit by themselves 2 min after their last client, should
// anything below fail to stop them.
const serviceEnv = { ...process.env, RECALL_HOME: dirs.home, RECALL_IDLE_EXIT_MS: '120000' };
const cli = (...args) =>
  // The person's own (global) memory, read across every project: what the test seeds is seen from the workspace's project too.
  execFileSync(process.execPath, [path.join(h.REPO, 'dist/cli.js'), '--memory', dirs.home, '--global', '--all', ...args], {
    encoding: 'utf8',
    env: serviceEnv,
  });
const cliJson = (...args) => JSON.parse(cli(...args, '--json'));

// ------------------------------------------------------------------------------------------------
// The driver: a throwaway extension that runs a list of tool calls (exact name or /regex/ over
// vscode.lm.tools), commands (with file arguments), settings changes or questions about itself
// (its workspace storage folder, which Copilot Chat's chatSessions/ sits in) read from
// $DRIVER_REQUEST at the moment its command runs, and writes the results.
//
// It also registers a MOCK language model (vendor recall-e2e-mock), standing in for Copilot's:
// whatever it is asked, it answers one fixed relationship in a ```json fence, and it appends each
// prompt it gets to $DRIVER_LM_LOG.

const MOCK_MODEL = { vendor: 'recall-e2e-mock', family: 'mock-stand-in-for-copilot' };
const MOCK_FACT = { subject: 'Ledger service', predicate: 'depends on', object: 'MockQueue' };

const DRIVER_JS = String.raw`'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const MOCK_MODEL = ${JSON.stringify(MOCK_MODEL)};
const MOCK_ANSWER = '\x60\x60\x60json\n' + JSON.stringify([{ turn: 1, ...${JSON.stringify(MOCK_FACT)} }]) + '\n\x60\x60\x60';
const write = (file, obj) => { fs.writeFileSync(file + '.tmp', JSON.stringify(obj, null, 2)); fs.renameSync(file + '.tmp', file); };
const part = (p) => (p instanceof vscode.LanguageModelTextPart ? { type: 'text', value: p.value } : { type: 'other', value: String(p && (p.value ?? p)) });
async function resolveTool(spec, timeoutMs) {
  const m = /^\/(.*)\/([a-z]*)$/.exec(spec);
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hit = vscode.lm.tools.find((t) => (m ? new RegExp(m[1], m[2]).test(t.name) : t.name === spec));
    if (hit) return hit.name;
    if (Date.now() > end) return undefined;
    await new Promise((r) => setTimeout(r, 200));
  }
}
exports.activate = (context) => {
  context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider(MOCK_MODEL.vendor, {
    provideLanguageModelChatInformation: async () => [{ id: 'mock-1', name: 'Mock (e2e stand-in for Copilot)', family: MOCK_MODEL.family, version: '1', maxInputTokens: 100000, maxOutputTokens: 4000, capabilities: {} }],
    provideLanguageModelChatResponse: async (model, messages, options, progress) => {
      const prompt = messages.map((m) => m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('')).join('\n');
      fs.appendFileSync(process.env.DRIVER_LM_LOG, JSON.stringify({ prompt, initiator: options.requestInitiator }) + '\n');
      const idOf = (s) => prompt.split('\n').find((l) => l.endsWith(') ' + s))?.match(/^\[(rel_\d+)\]/)?.[1];
      const join = ${JSON.stringify(MOCK_JOIN)};
      const asked = prompt.includes('{"same": [');
      progress.report(new vscode.LanguageModelTextPart(asked ? JSON.stringify({ same: [{ id: idOf(join.goes), as: idOf(join.kept) }] }) : MOCK_ANSWER));
    },
    provideTokenCount: async (model, text) => Math.ceil(String(typeof text === 'string' ? text : '').length / 4),
  }));
  context.subscriptions.push(vscode.commands.registerCommand('recallE2E.run', async () => {
    const req = JSON.parse(fs.readFileSync(process.env.DRIVER_REQUEST, 'utf8'));
    const results = [];
    for (const call of req.calls) {
      const started = Date.now();
      try {
        if (call.setting) {
          const dot = call.setting.indexOf('.');
          await vscode.workspace.getConfiguration(call.setting.slice(0, dot)).update(call.setting.slice(dot + 1), call.value, vscode.ConfigurationTarget.Global);
          results.push({ setting: call.setting, ok: true, ms: Date.now() - started });
          continue;
        }
        if (call.workspaceStorage) {
          results.push({ workspaceStorage: path.dirname(context.storageUri.fsPath), ok: true });
          continue;
        }
        if (call.globalStorage) {
          results.push({ globalStorage: path.dirname(context.globalStorageUri.fsPath), ok: true });
          continue;
        }
        if (call.command) {
          const args = (call.args || []).map((a) => (a && a.$uri ? vscode.Uri.file(a.$uri) : a));
          await vscode.commands.executeCommand(call.command, ...args);
          results.push({ command: call.command, ok: true, ms: Date.now() - started });
          continue;
        }
        const name = await resolveTool(call.tool, call.timeoutMs ?? 30000);
        if (!name) throw new Error('tool not found: ' + call.tool + '; known: ' + vscode.lm.tools.map((t) => t.name).join(', '));
        const r = await vscode.lm.invokeTool(name, { input: call.input || {}, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
        results.push({ spec: call.tool, tool: name, ok: true, ms: Date.now() - started, text: r.content.map(part).map((p) => p.value).join('\n') });
      } catch (e) {
        results.push({ spec: call.tool, ok: false, ms: Date.now() - started, error: String((e && e.stack) || e) });
      }
    }
    write(req.out, { results, tools: vscode.lm.tools.map((t) => t.name) });
  }));
};
exports.deactivate = () => {};
`;

const DRIVER_PKG = {
  name: 'recall-e2e-driver',
  displayName: 'Recall E2E Driver',
  version: '0.0.1',
  publisher: 'recall-test',
  private: true,
  engines: { vscode: '^1.101.0' },
  main: './driver.js',
  activationEvents: ['onStartupFinished'],
  contributes: {
    commands: [{ command: 'recallE2E.run', title: 'Run Request', category: 'Recall E2E' }],
    languageModelChatProviders: [{ vendor: MOCK_MODEL.vendor, displayName: 'Recall E2E mock model' }],
  },
};

let requestNo = 0;
/** Runs tool calls through the driver (from the palette) and returns its results. */
async function invokeTools(calls, { whileRunning } = {}) {
  const out = path.join(dirs.out, `tools-${++requestNo}.json`);
  fs.writeFileSync(process.env.DRIVER_REQUEST_FILE, JSON.stringify({ out, calls }));
  await h.runCommand(page, 'Recall E2E: Run Request');
  if (whileRunning) await whileRunning();
  return JSON.parse(await h.waitForFile(out, { timeoutMs: 90000 }));
}

// ------------------------------------------------------------------------------------------------
// Reading the workbench

const tree = (view) => page.locator(`[role=tree][aria-label="${view}"]`);
/** What each rendered row shows: its label, a space, its description. */
const rowLabels = (view) =>
  tree(view)
    .locator('[role=treeitem]')
    .evaluateAll((els) =>
      els.map((e) =>
        [e.querySelector('.label-name')?.textContent ?? '', e.querySelector('.label-description')?.textContent ?? ''].join(' ').trim(),
      ),
    );

/** Waits for a row of the view whose text (label + description) matches re; returns its locator. */
async function waitRow(view, re, timeoutMs = 20000) {
  await h
    .waitFor(async () => (await rowLabels(view)).some((l) => re.test(l)), {
      timeoutMs,
      what: `a row matching ${re} in the ${view} view (rows: ${JSON.stringify(await rowLabels(view).catch(() => []))})`,
    })
    .catch(async (e) => {
      throw new Error(`${e.message}; rows now: ${JSON.stringify(await rowLabels(view).catch(() => []))}`);
    });
  const labels = await rowLabels(view);
  return tree(view)
    .locator('[role=treeitem]')
    .nth(labels.findIndex((l) => re.test(l)));
}

/** Expands every entity-type row (more than three types start collapsed). */
async function expandTypes() {
  const types = tree('Entities').locator('[role=treeitem][aria-level="1"]');
  for (let i = 0; i < (await types.count()); i++) {
    if ((await types.nth(i).getAttribute('aria-expanded')) === 'false') await expand(types.nth(i));
  }
}

/**
 * Waits for the entity row of `name` (matching re) after a service restart: the tree may empty for
 * a moment and refill with its types collapsed, and it renders only the rows in sight, so all is
 * collapsed, the entity's type (from the CLI) opened and the name typed until the row shows.
 */
async function waitEntity(re, name = 'Recall', timeoutMs = 30000) {
  const type = cliJson('search', name).find((x) => x.name === name)?.type ?? 'thing';
  const header = page.locator('.pane-header', { hasText: 'Entities' });
  await h
    .waitFor(
      async () => {
        if ((await rowLabels('Entities')).some((l) => re.test(l))) return true;
        await header.hover();
        await header
          .locator('.codicon-collapse-all')
          .click({ timeout: 2000 })
          .catch(() => {});
        const row = await waitRow('Entities', new RegExp(`^${type} \\d+$`), 5000).catch(() => undefined);
        if (row) await expand(row).catch(() => {});
        // A type of hundreds is longer than the view: typing the name brings its row into sight, as a person would.
        await tree('Entities').focus();
        await page.keyboard.press('Escape');
        await page.keyboard.type(name);
        return (await rowLabels('Entities')).some((l) => re.test(l));
      },
      { timeoutMs, what: `the entity row of ${name} (${type})` },
    )
    .catch(async (e) => {
      const rows = await rowLabels('Entities').catch(() => []);
      throw new Error(`${e.message}; rows now: ${JSON.stringify(rows)}`);
    });
  return waitRow('Entities', re);
}

async function expand(row) {
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  await h.waitFor(async () => (await row.getAttribute('aria-expanded')) === 'true', { timeoutMs: 10000, what: 'row expanded' });
}

async function waitNotification(re, timeoutMs = 20000) {
  let seen = [];
  await h
    .waitFor(async () => (seen = await h.notifications(page)).some((t) => re.test(t)), { timeoutMs, what: `a notification matching ${re}` })
    .catch((e) => {
      throw new Error(`${e.message}; notifications: ${JSON.stringify(seen)}`);
    });
  return seen.find((t) => re.test(t));
}

async function dialog(re) {
  const box = page.locator('.monaco-dialog-box');
  await box.waitFor({ state: 'visible', timeout: 20000 });
  await h.waitFor(async () => re.test(await box.innerText()), { what: `a dialog matching ${re}` });
  return box;
}

/**
 * Runs a palette command that opens one of Recall's own quick picks (titled pickTitle): the
 * palette's widget is reused, so waiting for it to close (as runCommand does) would only time out.
 */
async function runCommandOpeningPick(title, pickTitle) {
  const opened = page
    .locator('.quick-input-widget .quick-input-title', { hasText: pickTitle })
    .first()
    .waitFor({ state: 'visible', timeout: 30000 });
  await Promise.race([h.runCommand(page, title).catch(() => {}), opened]);
  await opened;
}

async function quickInput() {
  const widget = page.locator('.quick-input-widget');
  await widget.waitFor({ state: 'visible', timeout: 15000 });
  return widget;
}

/** Best effort: a wider side bar makes the tree descriptions readable in screenshots. */
async function widenSidebar(px = 520) {
  const box = await page.locator('.part.sidebar').first().boundingBox();
  if (!box) return;
  const x = box.x + box.width;
  const y = box.y + box.height / 2;
  await page.mouse.move(x - 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + px, y, { steps: 8 });
  await page.mouse.up();
}

function vsixEntries(file) {
  const buf = fs.readFileSync(file);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const names = [];
  for (let i = 0; i < count; i++) {
    const n = buf.readUInt16LE(at + 28);
    names.push(buf.subarray(at + 46, at + 46 + n).toString('utf8'));
    at += 46 + n + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }
  return names;
}

/** Calls the memory service directly over its socket (JSON-RPC, one message a line), as a CLI client. */
function serviceCalls(memory, calls) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(path.join(memory, 'service.sock'));
    const results = [];
    let buffer = '';
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const msg = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (msg.id === undefined) continue; // change notifications
        if (msg.error) return reject(new Error(msg.error.message));
        results[msg.id] = msg.result;
        if (results.filter((r) => r !== undefined).length === calls.length + 1) {
          socket.end();
          resolve(results.slice(1));
        }
      }
    });
    const all = [['hello', { surface: 'cli' }], ...calls];
    socket.on('connect', () =>
      all.forEach(([method, params], id) => socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n')),
    );
  });
}

const processesMentioning = (needle) => {
  const ps = spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).stdout ?? '';
  return ps.split('\n').filter((l) => l.includes(needle) && !l.includes(' ps -eo'));
};

// ------------------------------------------------------------------------------------------------

const seeded = {};
let vsix;
let vsixBytes = 0;
let cs;
let closeBrowser;
try {
  console.log(`extension e2e: work dir ${work}`);
  const install = spawnSync('bash', [path.join(h.REPO, 'test/e2e/install-tools.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (install.status !== 0) throw new Error(`install-tools.sh failed:\n${install.stderr}`);
  step('install tools');

  vsix = path.join(work, 'recall.vsix');
  const pack = spawnSync('npm', ['run', 'package', '--', '--out', vsix], { cwd: h.REPO, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm run package failed:\n${pack.stdout}\n${pack.stderr}`);
  vsixBytes = fs.statSync(vsix).size;
  step(`build + package VSIX (${(vsixBytes / 1024).toFixed(0)} KB)`);

  await check('the VSIX carries the bundles only (nothing from node_modules, no source maps)', () => {
    const names = vsixEntries(vsix);
    for (const f of [
      'extension/package.json',
      'extension/dist/extension.js',
      'extension/dist/cli.js',
      'extension/dist/service.js',
      'extension/dist/hook.js',
      'extension/dist/embed-worker.js',
      'extension/dist/sql-wasm.wasm',
      'extension/dist/ort-wasm.wasm',
      'extension/dist/ort-wasm-simd.wasm',
      `extension/dist/native/${process.platform}-${process.arch}/onnxruntime_binding.node`,
      'extension/media/recall.svg',
      'extension/media/icon.png',
    ]) {
      assert.ok(names.includes(f), `${f} missing from the VSIX: ${names.join(', ')}`);
    }
    assert.deepEqual(
      names.filter((n) => /node_modules|\.map$|\/src\/|\.ts$/.test(n)),
      [],
    );
    // ~1 MB of bundles and the sql.js wasm, ~5.5 MB (compressed) of ONNX Runtime wasm, ~6 MB of native ONNX Runtime.
    assert.ok(vsixBytes < 16 * 1024 * 1024, `VSIX is ${vsixBytes} bytes`);
    // The extension host never loads sql.js: the service does the work.
    const bundle = fs.readFileSync(path.join(h.REPO, 'dist/extension.js'), 'utf8');
    assert.ok(!/sql-wasm|initSqlJs/.test(bundle), 'dist/extension.js must not contain sql.js');
  });

  // ---- a memory with known facts ----
  const ep = (text, ...opts) => cliJson('remember', text, ...opts).id;
  seeded.ep1 = ep(
    'We chose sql.js for storage because it needs no native build step',
    '--entity',
    'Recall',
    '--entity',
    'sql.js',
    '--session',
    'design-review',
    '--source',
    'notes.md',
  );
  seeded.ep2 = ep(
    'Recall is deployed on Kubernetes in the staging cluster',
    '--entity',
    'Recall',
    '--entity',
    'Kubernetes',
    '--session',
    'design-review',
  );
  seeded.ep3 = ep('Ada prefers tabs over spaces in TypeScript files', '--entity', 'Ada', '--entity', 'tabs', '--session', 'preferences');
  seeded.uses = cliJson('relate', 'Recall', 'uses', 'sql.js', '--evidence', seeded.ep1).id;
  seeded.deployed = cliJson('relate', 'Recall', 'deployed on', 'Kubernetes', '--evidence', seeded.ep2).id;
  seeded.prefers = cliJson('relate', 'Ada', 'prefers', 'tabs', '--evidence', seeded.ep3).id;
  step(`seed memory (${JSON.stringify(seeded)})`);

  fs.writeFileSync(path.join(dirs.driver, 'driver.js'), DRIVER_JS);
  fs.writeFileSync(path.join(dirs.driver, 'package.json'), JSON.stringify(DRIVER_PKG, null, 2));
  await h.installVsix(vsix, { extensionsDir: dirs.extensionsDir, userDataDir: dirs.userDataDir });
  await h.installVsix(h.packVsix(dirs.driver, path.join(work, 'driver.vsix')), {
    extensionsDir: dirs.extensionsDir,
    userDataDir: dirs.userDataDir,
  });
  const installed = fs.readdirSync(dirs.extensionsDir).find((d) => d.startsWith('recall-dev.recall-memory-'));
  assert.ok(installed, `Recall not installed in ${dirs.extensionsDir}`);
  step('install VSIX + driver');

  process.env.DRIVER_REQUEST_FILE = path.join(dirs.out, 'request.json');
  const lmLog = path.join(dirs.out, 'mock-lm.jsonl');
  // chat.useHooks (Preview, on by default in 1.112): VS Code reads and runs workspace hook files.
  h.writeUserSettings(dirs.userDataDir, {
    ...h.DEFAULT_SETTINGS,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.useHooks': true,
  });
  cs = await h.startCodeServer({
    ...dirs,
    env: {
      RECALL_HOME: dirs.home,
      RECALL_IDLE_EXIT_MS: '120000',
      DRIVER_REQUEST: process.env.DRIVER_REQUEST_FILE,
      DRIVER_LM_LOG: lmLog,
      RECALL_E2E_HOOKS: '1',
    },
  });
  step(`code-server up at ${cs.url}`);
  ({ page, close: closeBrowser } = await h.launchBrowser());
  await h.openWorkbench(page, cs.url);
  step('workbench ready');
  await checksInstructionsOffer({ check, page, h, dirs });
  await checksHooksOffer({ check, page, h, dirs, dialog, waitNotification });

  // ---- the views ----
  await check('the Recall activity-bar container shows the seeded entities (Entities view)', async () => {
    await page
      .locator('.activitybar .action-item a[aria-label^="Recall"], .activitybar .action-item[aria-label^="Recall"]')
      .first()
      .click({ timeout: 30000 });
    await widenSidebar();
    // Entities are grouped by type (the ingest may type them: thing, person, technology, ...).
    await waitRow('Entities', /^[\w-]+ \d+$/, 45000);
    await expandTypes();
    for (const name of ['Ada', 'Kubernetes', 'Recall', 'sql.js', 'tabs'])
      await waitRow('Entities', new RegExp(`^${name.replace('.', '\\.')} \\d+ facts? · \\d+ episodes?$`));
  });
  step('Entities view rendered');

  await check('the Episodes view lists the seeded sessions and their episodes', async () => {
    // Sessions are named by their first question (these have no title of their own).
    await waitRow('Episodes', /^We chose sql\.js for storage because it needs no native build step \d{4}-\d{2}-\d{2} · 2 episodes$/);
    await waitRow('Episodes', /^Ada prefers tabs over spaces in TypeScript files \d{4}-\d{2}-\d{2} · 1 episode$/);
    await expand(await waitRow('Episodes', /^We chose sql\.js .* · 2 episodes$/));
    await waitRow('Episodes', new RegExp(`^We chose sql\\.js for storage .* ${seeded.ep1} · `));
    await waitRow('Episodes', new RegExp(`^Recall is deployed on Kubernetes .* ${seeded.ep2} · `));
  });

  await check('an entity expands to its relationships: predicate, other entity, confidence %, provenance', async () => {
    await expand(await waitRow('Entities', /^Recall \d+ facts?/));
    const uses = await waitRow('Entities', /^uses → sql\.js \d+% · human · explicit$/);
    await waitRow('Entities', /^deployed on → Kubernetes \d+% · human · explicit$/);
    assert.equal(await uses.getAttribute('aria-label'), 'Recall uses sql.js, ' + (await uses.locator('.label-description').textContent()));
    await expand(await waitRow('Entities', /^sql\.js \d+ facts?/));
    await waitRow('Entities', /^uses ← Recall \d+% · human · explicit$/); // seen from the object
  });

  await check('a relationship expands to its evidence episodes', async () => {
    await expand(await waitRow('Entities', /^uses → sql\.js /));
    await waitRow('Entities', new RegExp(`^We chose sql\\.js .* ${seeded.ep1} · `));
  });
  await h.screenshot(page, 'recall-views');

  await check('opening an episode shows it read-only, with its citation and the entities it mentions', async () => {
    await (await waitRow('Entities', new RegExp(`^We chose sql\\.js .* ${seeded.ep1} · `))).click();
    const tab = page.locator(`.tab[data-resource-name="${seeded.ep1}.md"]`);
    await tab.waitFor({ state: 'visible', timeout: 15000 });
    const lines = page.locator('.part.editor .monaco-editor .view-lines');
    await h.waitFor(
      async () => /Cite as: \[ep_\d+ · session design-review · notes\.md/.test((await lines.innerText()).replace(/\u00a0/g, ' ')),
      { what: 'the citation in the episode document' },
    );
    const text = (await lines.innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, new RegExp(`# Episode ${seeded.ep1}`));
    assert.match(text, /Mentions: +Recall, sql\.js/);
    assert.match(text, /We chose sql\.js for storage/);
    await page.locator('.part.editor .monaco-editor .view-lines').click();
    await page.keyboard.type('XYZZY');
    await h.sleep(500);
    assert.ok(!(await lines.innerText()).includes('XYZZY'), 'the episode document must be read-only');
  });
  await h.screenshot(page, 'recall-episode');

  await check('the status bar shows the memory size and that the service runs', async () => {
    const item = page.locator('.statusbar-item', { hasText: 'Recall:' }).first();
    await h.waitFor(async () => /Recall: 3 episodes, \d+ KB/.test(await item.innerText()), {
      timeoutMs: 20000,
      what: 'status bar "Recall: 3 episodes, N KB"',
    });
  });

  // ---- a person's correction ----
  await check('Mark Fact Wrong… from the palette ends the fact in the tree and in the memory', async () => {
    await runCommandOpeningPick('Recall: Mark Fact Wrong…', 'Recall: Mark Fact Wrong');
    let widget = await quickInput();
    await widget.locator('input.input').fill('Kubernetes');
    const pick = widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Recall deployed on Kubernetes' }).first();
    await pick.waitFor({ state: 'visible', timeout: 20000 });
    await pick.click();
    widget = await quickInput();
    await h.waitFor(async () => /Why is "Recall deployed on Kubernetes" wrong/.test(await widget.innerText()), {
      what: 'the reason prompt',
    });
    await widget.locator('input.input').fill('we run on bare metal now');
    await page.keyboard.press('Enter');
    // The tree: still listed (history is kept), marked wrong, dimmed.
    const row = await waitRow('Entities', /^deployed on → Kubernetes wrong since \d{4}-\d{2}-\d{2} · /);
    assert.match(await row.innerHTML(), /codicon-circle-slash/, 'ended facts get the circle-slash icon');
    // Dimmed: the decoration colours its label unlike a current fact's.
    const current = await waitRow('Entities', /^uses → sql\.js \d+% /);
    const color = (r) => r.locator('.label-name').evaluate((e) => getComputedStyle(e).color);
    await h.waitFor(async () => (await color(row)) !== (await color(current)), { timeoutMs: 10000, what: 'the ended fact dimmed' });
    // The memory: answers no longer carry it; history still does.
    const now = cliJson('query', 'Where is Recall deployed? Kubernetes');
    assert.ok(!now.facts.some((f) => f.id === seeded.deployed), `query still returns ${seeded.deployed}: ${JSON.stringify(now.facts)}`);
    const past = cliJson('query', 'Where is Recall deployed? Kubernetes', '--history');
    const ended = past.facts.find((f) => f.id === seeded.deployed);
    assert.equal(ended?.status, 'wrong', JSON.stringify(past.facts));
    assert.equal(ended?.ended_reason, 'we run on bare metal now');
  });
  await h.screenshot(page, 'recall-mark-wrong');

  // ---- agents: native LM tools and the MCP server ----
  let toolRun;
  await check('vscode.lm.invokeTool("recall_query") returns cited results (and not the fact marked wrong)', async () => {
    toolRun = await invokeTools([
      { tool: 'recall_query', input: { query: 'Why did we choose sql.js for storage?' } },
      { tool: 'recall_query', input: { query: 'Where is Recall deployed? Kubernetes' } },
    ]);
    const [why, where] = toolRun.results;
    assert.ok(why.ok, why.error);
    assert.match(
      why.text,
      new RegExp(`\\[${seeded.ep1} · session design-review · notes\\.md · \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} · user · score`),
    );
    assert.match(why.text, new RegExp(`${seeded.uses}: Recall —uses→ sql\\.js`));
    assert.ok(where.ok, where.error);
    assert.ok(!where.text.includes(`${seeded.deployed}:`), `the wrong fact is still answered:\n${where.text}`);
    for (const t of [
      'recall_query',
      'recall_search',
      'recall_episodes',
      'recall_traverse',
      'recall_status',
      'recall_overview',
      'recall_remember',
    ]) {
      assert.ok(toolRun.tools.includes(t), `${t} not registered: ${toolRun.tools.join(', ')}`);
    }
  });

  await checksToolSurface({ check, page, h, invokeTools });
  await check("the MCP server from Recall's provider starts and its recall_query answers through VS Code", async () => {
    // Chat sees one tool set (recall.chat.toolSurface): the server definition is offered under "mcp".
    const run = await invokeTools([
      { setting: 'recall.chat.toolSurface', value: 'mcp' },
      START_MCP_SERVERS,
      { tool: '/^mcp_.*recall_query$/', input: { query: 'Why did we choose sql.js for storage?' }, timeoutMs: 45000 },
      { setting: 'recall.chat.toolSurface', value: 'native' },
    ]);
    const mcp = run.results[2];
    assert.ok(mcp, 'no MCP result');
    assert.ok(mcp.ok, mcp.error);
    assert.match(mcp.tool, /^mcp_recall_memory_recall_query$/, 'tool prefixed from the server label "Recall memory"');
    assert.match(mcp.text, new RegExp(`"id":"${seeded.ep1}"|\\[${seeded.ep1} ·`));
    assert.match(mcp.text, /design-review/);
    // It is our definition: the bundled cli.js, the editor's runtime, the configured memory.
    const procs = processesMentioning(`${installed}/dist/cli.js --memory ${dirs.home} mcp`);
    assert.ok(procs.length >= 1, `no MCP server process launched from the VSIX; ps: ${processesMentioning('cli.js').join(' | ')}`);
  });

  await check('recall_remember asks for confirmation showing the note, then stores it at agent authority', async () => {
    const note = 'The team reviews the memory every Friday';
    const run = await invokeTools([{ tool: 'recall_remember', input: { text: note, entities: ['Recall'] } }], {
      whileRunning: async () => {
        const dialog = page.locator('.monaco-dialog-box');
        await dialog.waitFor({ state: 'visible', timeout: 20000 });
        const text = await dialog.innerText();
        assert.match(text, /Remember this in Recall\?/);
        assert.ok(text.includes(note), `the dialog must show the note: ${text}`);
        assert.match(text, /agent's observation/);
        await h.screenshot(page, 'recall-remember-confirmation');
        await dialog
          .locator('.monaco-button', { hasText: /^(Yes|Continue|Allow)$/ })
          .first()
          .click();
      },
    });
    const [r] = run.results;
    assert.ok(r.ok, r.error);
    const id = /Remembered as (ep_\d+)/.exec(r.text)?.[1];
    assert.ok(id, r.text);
    const [stored] = cliJson('episodes', 'Friday', '--limit', '1');
    assert.equal(stored?.id, id);
    assert.equal(stored.authority, 'agent', 'a model can never write at human or user authority');
  });

  await check('the views refresh when another client (the CLI) writes to the memory', async () => {
    cli('remember', 'CI runs the end-to-end tests on every push', '--entity', 'CI', '--session', 'ci-notes');
    await waitRow('Episodes', /^CI runs the end-to-end tests on every push \d{4}-\d{2}-\d{2} · 1 episode$/, 20000);
    await expandTypes();
    await waitRow('Entities', /^CI \d+ facts? · 1 episode$/, 20000);
  });
  await h.screenshot(page, 'recall-final');

  await check('Search Memory: a live quick pick answers as you type (facts, entities, episodes)', async () => {
    await runCommandOpeningPick('Recall: Search Memory', 'Recall: Search Memory');
    const widget = await quickInput();
    await widget.locator('input.input').fill('why sql.js for storage');
    await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Recall uses sql.js' }).first().waitFor({ timeout: 15000 });
    const episode = widget.locator('.quick-input-list .monaco-list-row', { hasText: 'We chose sql.js for storage' }).first();
    await episode.waitFor({ timeout: 15000 });
    await h.screenshot(page, 'recall-search');
    await episode.click();
    await page.locator(`.tab[data-resource-name="${seeded.ep1}.md"]`).waitFor({ state: 'visible', timeout: 15000 });
  });

  await check('Import Conversations… stores a JSONL transcript (assistant turns at agent authority)', async () => {
    const file = path.join(work, 'standup.jsonl');
    const turns = [
      { role: 'user', content: 'Let us move the nightly build to 2am', session: 'standup' },
      { role: 'assistant', content: 'I will update the cron entry for the nightly build', session: 'standup' },
      { role: 'user', content: 'And notify the release channel afterwards', session: 'standup' },
    ];
    fs.writeFileSync(file, turns.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const run = await invokeTools([{ command: 'recall.importConversations', args: [{ $uri: file }] }]);
    assert.ok(run.results[0].ok, run.results[0].error);
    await waitNotification(/Imported 3 turn\(s\) from 1 file\(s\): 3 new, 0 already there/);
    await waitRow('Episodes', /^Let us move the nightly build to 2am \d{4}-\d{2}-\d{2} · 3 episodes$/);
    const stored = cliJson('episodes', '--session', 'standup');
    assert.equal(stored.length, 3);
    assert.deepEqual(stored.map((e) => e.authority).sort(), ['agent', 'user', 'user']);
  });

  // ---- chat sessions stored as they happen ----
  const COPILOT_SESSION = '6a1f9c3e-2b7d-4e0a-8c5f-1d2e3f4a5b6c';
  const copilotFixture = JSON.parse(fs.readFileSync(path.join(h.REPO, 'test/fixtures/copilot', `${COPILOT_SESSION}.json`), 'utf8'));
  const sessionEpisodes = (session) => cliJson('episodes', '--session', session, '--limit', '100');
  let chatSessions;
  await check('Copilot Chat: a session written into the workspace storage is stored by itself, turns at user/agent authority', async () => {
    const [where] = (await invokeTools([{ workspaceStorage: true }])).results;
    assert.ok(where.ok && where.workspaceStorage, JSON.stringify(where));
    chatSessions = path.join(where.workspaceStorage, 'chatSessions');
    fs.mkdirSync(chatSessions, { recursive: true });
    // The session as Copilot writes it after the first request: one question, one answer.
    fs.writeFileSync(
      path.join(chatSessions, `${COPILOT_SESSION}.json`),
      JSON.stringify({ ...copilotFixture, requests: copilotFixture.requests.slice(0, 1) }, null, 2),
    );
    const stored = await h.waitFor(() => (sessionEpisodes(COPILOT_SESSION).length >= 2 ? sessionEpisodes(COPILOT_SESSION) : false), {
      timeoutMs: 30000,
      what: 'the Copilot session in the memory',
    });
    assert.equal(stored.length, 2, JSON.stringify(stored));
    const byRole = Object.fromEntries(stored.map((e) => [e.speaker, e]));
    assert.equal(byRole.user?.authority, 'user', 'what the person typed is theirs');
    assert.equal(byRole.assistant?.authority, 'agent', "Copilot's answer is the agent's");
    assert.equal(byRole.user.text, 'Why does the settlement job run twice on Mondays?');
    assert.equal(byRole.user.session, COPILOT_SESSION);
    // Named by the title Copilot gave it (customTitle), not by its id.
    await waitRow('Episodes', /^Settlement job runs twice \d{4}-\d{2}-\d{2} · 2 episodes$/);
  });

  await check('Copilot Chat: the grown session adds only its new turns', async () => {
    const before = sessionEpisodes(COPILOT_SESSION);
    fs.writeFileSync(path.join(chatSessions, `${COPILOT_SESSION}.json`), JSON.stringify(copilotFixture, null, 2));
    // 3 more requests: two with answers, one cancelled (the person's words only), one system-initiated (skipped).
    const after = await h.waitFor(() => (sessionEpisodes(COPILOT_SESSION).length >= 5 ? sessionEpisodes(COPILOT_SESSION) : false), {
      timeoutMs: 30000,
      what: '5 episodes of the grown session',
    });
    await h.sleep(3000); // past another debounce: nothing more arrives
    const settled = sessionEpisodes(COPILOT_SESSION);
    assert.equal(settled.length, 5, JSON.stringify(settled.map((e) => e.text)));
    assert.equal(new Set(settled.map((e) => e.text)).size, 5, 'no turn stored twice');
    for (const e of before)
      assert.ok(
        after.some((a) => a.id === e.id),
        `${e.id} kept its id`,
      );
    assert.ok(!settled.some((e) => /exit code/.test(e.text)), 'a system-initiated request is not the person speaking');
  });

  await check(
    'Claude Code (recall.autoIngest.claudeCode on, folder set): transcripts there and dropped later are stored, tool lines left out',
    async () => {
      const project = path.join(dirs.claude, '-home-dana-ledger');
      fs.mkdirSync(project, { recursive: true });
      const CLAUDE_SESSION = '7b3f0c2e-5d41-4e8a-9c6b-2f1d8a7e4b90';
      fs.copyFileSync(
        path.join(h.REPO, 'test/fixtures/claude-code', `${CLAUDE_SESSION}.jsonl`),
        path.join(project, `${CLAUDE_SESSION}.jsonl`),
      );
      const set = await invokeTools([
        { setting: 'recall.autoIngest.claudeCodeFolder', value: dirs.claude },
        { setting: 'recall.autoIngest.claudeCode', value: true },
      ]);
      assert.ok(
        set.results.every((r) => r.ok),
        JSON.stringify(set.results),
      );
      // Already there when watching starts: read on the first pass.
      const first = await h.waitFor(() => (sessionEpisodes(CLAUDE_SESSION).length >= 7 ? sessionEpisodes(CLAUDE_SESSION) : false), {
        timeoutMs: 30000,
        what: 'the Claude Code session in the memory',
      });
      assert.equal(first.length, 7);
      assert.deepEqual(first.map((e) => e.authority).sort(), ['agent', 'agent', 'agent', 'user', 'user', 'user', 'user']);
      assert.ok(!first.some((e) => /toolu_|tool_result|PASS src/.test(e.text)), 'tool calls and their output are not turns');
      // Dropped while watching: a new project folder, a user turn, a tool-use line, an answer.
      const later = path.join(dirs.claude, '-home-dana-billing');
      fs.mkdirSync(later);
      const line = (o) => JSON.stringify({ sessionId: 'claude-dropped', timestamp: new Date().toISOString(), ...o });
      fs.writeFileSync(
        path.join(later, 'claude-dropped.jsonl'),
        [
          line({
            type: 'user',
            uuid: 'd-1',
            message: { role: 'user', content: 'The billing service talks to Stripe through the payments gateway' },
          }),
          line({
            type: 'assistant',
            uuid: 'd-2',
            message: {
              role: 'assistant',
              model: 'claude',
              content: [{ type: 'tool_use', id: 'toolu_e2e', name: 'Read', input: { file_path: '/srv/billing.ts' } }],
            },
          }),
          line({
            type: 'user',
            uuid: 'd-3',
            message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_e2e', content: 'export const gateway = ...' }] },
          }),
          line({
            type: 'assistant',
            uuid: 'd-4',
            message: {
              role: 'assistant',
              model: 'claude',
              content: [{ type: 'text', text: 'Yes: billing.ts calls the payments gateway, which wraps Stripe.' }],
            },
          }),
        ].join('\n') + '\n',
      );
      const dropped = await h.waitFor(() => (sessionEpisodes('claude-dropped').length >= 2 ? sessionEpisodes('claude-dropped') : false), {
        timeoutMs: 30000,
        what: 'the dropped Claude Code transcript in the memory',
      });
      assert.deepEqual(dropped.map((e) => [e.speaker, e.authority]).sort(), [
        ['assistant', 'agent'],
        ['user', 'user'],
      ]);
    },
  );

  await check('Claude Code: turning the setting off stops watching', async () => {
    await invokeTools([{ setting: 'recall.autoIngest.claudeCode', value: false }]);
    const off = path.join(dirs.claude, '-home-dana-off');
    fs.mkdirSync(off);
    fs.writeFileSync(
      path.join(off, 'claude-off.jsonl'),
      JSON.stringify({
        type: 'user',
        sessionId: 'claude-off',
        uuid: 'o-1',
        message: { role: 'user', content: 'This must not be stored' },
      }) + '\n',
    );
    await h.sleep(5000); // two debounce periods
    assert.deepEqual(sessionEpisodes('claude-off'), []);
  });

  await check(
    'language-model extraction: the MOCK model (standing in for Copilot) reads new turns; its facts land at agent authority',
    async () => {
      const set = await invokeTools([
        { setting: 'recall.extraction.modelFamily', value: MOCK_MODEL.family },
        { setting: 'recall.extraction.languageModel', value: true },
      ]);
      assert.ok(
        set.results.every((r) => r.ok),
        JSON.stringify(set.results),
      );
      // A rule held on what the new turns are about (the person's, global): the model is shown it with its id.
      const held = cliJson(
        'remember',
        'Never change the retry policy without a review.',
        '--kind',
        'rule',
        '--subject',
        'retry policy',
      ).item;
      fs.copyFileSync(path.join(h.REPO, 'test/fixtures/copilot/early-export.json'), path.join(chatSessions, 'early-export.json'));
      const fact = await h.waitFor(
        () =>
          cliJson('query', `${MOCK_FACT.subject} ${MOCK_FACT.object}`).facts.find(
            (f) => f.subject === MOCK_FACT.subject && f.predicate === MOCK_FACT.predicate && f.object === MOCK_FACT.object,
          ),
        { timeoutMs: 30000, what: `"${MOCK_FACT.subject} ${MOCK_FACT.predicate} ${MOCK_FACT.object}" in the memory` },
      );
      assert.equal(fact.authority, 'agent', "a model's reading is never the person's word");
      assert.equal(fact.prior, 'inferred');
      // An export carries no session id: its session is the file name and its first request's digest.
      const session = cliJson('episodes', '--limit', '500').find((e) => e.session?.startsWith('early-export '))?.session;
      assert.ok(session, 'the export is stored under a session named after the file');
      const turns = sessionEpisodes(session);
      assert.equal(turns.length, 4);
      assert.ok(
        fact.evidence.every((id) => turns.some((t) => t.id === id)),
        `evidence ${fact.evidence} is among the new turns`,
      );
      // What the model was asked: the new turns, numbered, and JSON only; from Recall, not from the editor.
      const prompts = fs
        .readFileSync(lmLog, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(prompts.length, 1, 'four turns make one request');
      assert.match(prompts[0].prompt, /Turn 1 \(user\):\n"""\n@workspace where is the retry policy configured\?/);
      assert.match(prompts[0].prompt, /Turn 4 \(assistant\):\n"""\nThree attempts\./);
      assert.match(prompts[0].initiator, /recall-dev\.recall-memory/);
      assert.ok(
        prompts[0].prompt.includes(`- ${held} (rule): Never change the retry policy without a review.`),
        `the items held are shown with their ids:\n${prompts[0].prompt.slice(0, 4000)}`,
      );
      // Gone again, so the views later checks read are as they were (no rules group yet).
      cli('forget', 'retry policy', '--confirm');
      // Turns stored before the setting was on are not sent.
      assert.ok(!prompts[0].prompt.includes('settlement job'));
      await invokeTools([
        { setting: 'recall.extraction.languageModel', value: false },
        // Later checks switch to an empty memory and count its episodes: chat sessions stay out of it.
        { setting: 'recall.autoIngest.copilotChat', value: false },
      ]);
    },
  );
  await h.screenshot(page, 'recall-auto-ingest');

  await check('Recall: Ingest Chat Sessions Now re-reads the sessions with a progress notification and reports counts', async () => {
    // Two Copilot session files, 5 + 4 turns, all stored already; no SpecStory history in the workspace. Since
    // 1.112 VS Code writes a session file of its own (no turns) when the chat view opens, as the tool-surface check does.
    const files = fs.readdirSync(chatSessions).filter((f) => /\.jsonl?$/.test(f)).length;
    assert.ok(files >= 2, `chat session files: ${fs.readdirSync(chatSessions).join(', ')}`);
    await h.runCommand(page, 'Recall: Ingest Chat Sessions Now');
    await waitNotification(
      new RegExp(
        `Recall: 9 turn\\(s\\) from ${files} chat session file\\(s\\) \\(Copilot Chat ${files}, SpecStory 0\\): 0 new, 9 already there\\.`,
      ),
      30000,
    );
  });

  await checkAnchors({
    check,
    h,
    dirs,
    ui: { page, invokeTools, waitRow, expand, expandTypes, waitNotification, runCommandOpeningPick, quickInput },
  });

  await check('Forget Entity… asks twice (modal, listing what goes) and then erases it', async () => {
    await runCommandOpeningPick('Recall: Forget Entity…', 'Recall: Forget Entity');
    const widget = await quickInput();
    await widget.locator('input.input').fill('tabs');
    const pick = widget.locator('.quick-input-list .monaco-list-row', { hasText: /^\s*tabs/ }).first();
    await pick.waitFor({ timeout: 15000 });
    await pick.click();
    let box = await dialog(/Forget "tabs"\?/);
    const listing = await box.innerText();
    assert.match(listing, new RegExp(`${seeded.prefers}: Ada prefers tabs`), listing);
    assert.match(listing, /relationship\(s\)/);
    await h.screenshot(page, 'recall-forget');
    await box.locator('.monaco-button', { hasText: 'Forget…' }).click();
    box = await dialog(/Erase "tabs" permanently\?/);
    assert.match(await box.innerText(), /cannot be undone/);
    await box.locator('.monaco-button', { hasText: 'Erase Permanently' }).click();
    await waitNotification(/Forgot "tabs"/);
    await h.waitFor(async () => !(await rowLabels('Entities')).some((l) => /^tabs /.test(l)), { what: 'tabs gone from the Entities view' });
    assert.ok(!cliJson('search', 'tabs').some((e) => e.name.toLowerCase() === 'tabs'), 'tabs is still in the memory');
    assert.ok(
      !cliJson('query', 'Ada prefers tabs', '--history').facts.some((f) => f.id === seeded.prefers),
      'the relationship is erased, history included',
    );
  });

  await check('settings: half-life and weights go to <memory>/config.json and restart the service; HTTP transport on and off', async () => {
    const before = cliJson('status').service_pid;
    const port = await h.freePort();
    const set = await invokeTools([
      { setting: 'recall.confidence.halfLifeDays', value: 30 },
      { setting: 'recall.http.port', value: port },
      { setting: 'recall.http.enabled', value: true },
    ]);
    assert.ok(
      set.results.every((r) => r.ok),
      JSON.stringify(set.results),
    );
    const configFile = path.join(dirs.home, 'config.json');
    await h.waitFor(() => fs.existsSync(configFile) && JSON.parse(fs.readFileSync(configFile, 'utf8')).confidence?.halfLifeDays === 30, {
      timeoutMs: 30000,
      what: 'config.json with halfLifeDays 30',
    });
    const config = JSON.parse(fs.readFileSync(configFile, 'utf8'));
    assert.deepEqual(config.confidence.provenanceWeights, { external: 0.5, user: 0.8, agent: 0.05 });
    await h.waitFor(() => cliJson('status').service_pid !== before, { timeoutMs: 30000, what: 'the memory service restarted' });
    const url = `http://127.0.0.1:${port}/mcp`;
    await h.waitFor(async () => (await fetch(url, { signal: AbortSignal.timeout(2000) })).status > 0, {
      timeoutMs: 30000,
      what: `MCP over HTTP at ${url}`,
    });
    await waitRow('Entities', /^Recall \d+ facts?/); // the views reconnected
    await invokeTools([{ setting: 'recall.http.enabled', value: false }]);
    await h.waitFor(
      async () =>
        fetch(url, { signal: AbortSignal.timeout(2000) }).then(
          () => false,
          () => true,
        ),
      { timeoutMs: 20000, what: 'the HTTP transport stopped' },
    );
  });

  await check("embeddings from the settings: the VSIX's embedding worker loads a model and vector search answers", async () => {
    const model = path.join(work, 'tiny-model');
    execFileSync(process.execPath, [path.join(h.REPO, 'scripts', 'make-test-model.mjs'), model], { stdio: 'pipe' });
    // One setting, one restart: a second write that lands while the service is still starting is
    // not applied until the next restart (extension.ts skips the restart when no service runs yet).
    for (const [setting, value] of [
      ['recall.embeddings.modelPath', model],
      ['recall.embeddings.enabled', true],
    ]) {
      const before = cliJson('status').service_pid;
      const set = await invokeTools([{ setting, value }]);
      assert.ok(
        set.results.every((r) => r.ok),
        JSON.stringify(set.results),
      );
      await h.waitFor(() => cliJson('status').service_pid !== before, { timeoutMs: 30000, what: 'the memory service restarted' });
    }
    await h.waitFor(
      () => {
        const s = cliJson('status');
        return s.embedder.startsWith('ready') && s.embedding_pending === 0 && s.vectors_by_kind.episode === s.episodes;
      },
      { timeoutMs: 60000, what: "every episode embedded by the extension's service" },
    );
    // The VSIX's native ONNX Runtime loads in the extension host's Node (22 in code-server).
    assert.match(cliJson('status').embedding_backend, /^native \(onnxruntime-node, linux-x64\)$/);
    const nearest = cliJson('query', 'Recall is deployed on Kubernetes in the staging cluster', '--mode', 'vector');
    assert.equal(nearest.episodes[0].id, seeded.ep2, JSON.stringify(nearest.episodes.slice(0, 2)));
    // Off again, and the extension's restart over before the next check restarts on its own.
    const running = cliJson('status').service_pid;
    await invokeTools([{ setting: 'recall.embeddings.enabled', value: false }]);
    await h.waitFor(() => cliJson('status').service_pid !== running, { timeoutMs: 30000, what: 'the memory service restarted' });
    await waitEntity(/^Recall \d+ facts?/);
    const settled = cliJson('status');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(cliJson('status').service_pid, settled.service_pid, 'one restart, then a steady service');
    assert.match(settled.embedder, /^disabled/);
  });

  await check('Restart Memory Service from the palette starts a fresh service and the views keep working', async () => {
    const before = cliJson('status').service_pid;
    await h.runCommand(page, 'Recall: Restart Memory Service');
    const note = await waitNotification(/memory service restarted \(pid \d+\)/, 30000);
    const pid = Number(/pid (\d+)/.exec(note)[1]);
    assert.notEqual(pid, before);
    assert.equal(cliJson('status').service_pid, pid);
    await waitEntity(/^Recall \d+ facts?/);
  });

  await check('a long list shows one page of 200 and "Load more…" pages on', async () => {
    const episodes = Array.from({ length: 250 }, (_, i) => ({
      text: `Module ${String(i + 1).padStart(3, '0')} owns part of the build`,
      entities: [`Module ${String(i + 1).padStart(3, '0')}`],
      session: 'bulk-import',
    }));
    cli('service', 'start');
    const typeCounts = async () =>
      new Map(
        (await rowLabels('Entities'))
          .map((l) => /^([\w-]+) (\d+)$/.exec(l))
          .filter(Boolean)
          .map((m) => [m[1], Number(m[2])]),
      );
    const before = await typeCounts();
    await serviceCalls(dirs.home, [['ingest', { episodes }]]);
    // Whichever type the modules landed in grew by 250.
    const grown = await h.waitFor(async () => [...(await typeCounts())].find(([t, n]) => n >= (before.get(t) ?? 0) + 250), {
      timeoutMs: 20000,
      what: 'a type with 250 more entities',
    });
    const [type, total] = grown;
    // Only that type open: collapse all, expand it.
    await page.locator('.pane-header', { hasText: 'Entities' }).hover();
    await page.locator('.pane-header', { hasText: 'Entities' }).locator('.codicon-collapse-all').click();
    await expand(await waitRow('Entities', new RegExp(`^${type} ${total}$`)));
    // End brings the last row into view once the page has loaded: pressed until it shows.
    const moreRow = new RegExp(`^Load more… 200 of ${total} shown$`);
    await h.waitFor(
      async () => {
        await tree('Entities').focus();
        await page.keyboard.press('End');
        return (await rowLabels('Entities')).some((l) => moreRow.test(l));
      },
      { timeoutMs: 20000, intervalMs: 500, what: 'the Load more… row in view' },
    );
    const more = await waitRow('Entities', moreRow, 10000);
    assert.ok(
      !(await rowLabels('Entities')).some((l) => /^Module 250 /.test(l)),
      'Module 250 (past the first page) must not be listed yet',
    );
    await h.screenshot(page, 'recall-paging');
    await more.click();
    await h.waitFor(
      async () => {
        await tree('Entities').focus();
        await page.keyboard.press('End');
        const rows = await rowLabels('Entities');
        return rows.some((l) => /^Module 250 0 facts · 1 episode$/.test(l)) && !rows.some((l) => l.startsWith('Load more'));
      },
      { timeoutMs: 15000, intervalMs: 500, what: 'Module 250 listed after Load more…, and no further Load more…' },
    );
  });

  // Late: its task adds entities of several types, which folds the Entities view that checks above read.
  await check(
    "Cline (recall.autoIngest.cline on): a task in Cline's globalStorage folder, next to Recall's, is stored by itself",
    async () => {
      const [where] = (await invokeTools([{ globalStorage: true }])).results;
      assert.ok(where.ok && where.globalStorage, JSON.stringify(where));
      const TASK = '1764543000000';
      const task = path.join(where.globalStorage, 'saoudrizwan.claude-dev', 'tasks', TASK);
      fs.mkdirSync(task, { recursive: true });
      fs.copyFileSync(
        path.join(h.REPO, 'test/fixtures/real/cline/feedback-resumption-api_conversation_history.slice.json'),
        path.join(task, 'api_conversation_history.json'),
      );
      fs.writeFileSync(path.join(task, 'ui_messages.json'), '[]');
      const set = await invokeTools([{ setting: 'recall.autoIngest.cline', value: true }]);
      assert.ok(
        set.results.every((r) => r.ok),
        JSON.stringify(set.results),
      );
      const stored = await h.waitFor(() => (sessionEpisodes(TASK).length >= 11 ? sessionEpisodes(TASK) : false), {
        timeoutMs: 30000,
        what: 'the Cline task in the memory',
      });
      assert.equal(stored.length, 11);
      assert.ok(stored.some((e) => e.speaker === 'user') && stored.some((e) => e.speaker === 'assistant'));
      for (const e of stored) assert.equal(e.authority, e.speaker === 'user' ? 'user' : 'agent', JSON.stringify(e));
      await invokeTools([{ setting: 'recall.autoIngest.cline', value: false }]);
    },
  );

  await checksBriefChatTools({ check, page, h, dirs, invokeTools, cli, cliJson });
  await humanChecks({ check, page, h, work, cli, cliJson, invokeTools, waitRow, waitEntity, waitNotification, dialog });
  await checksTrust({ check, h, dirs, cliJson, waitNotification });
  await checksKnowledge({ check, page, h, dirs, invokeTools, waitRow, waitNotification });
  await checksRuleCheckEditor({ check, page, h, dirs, cliJson, waitRow, waitNotification });

  await check(
    "the views' project filter: Show Current Project Only hides other projects' sessions; Show All Projects brings them back",
    async () => {
      // A session of another project carries that project's name after its count (imported transcripts name their own folder).
      const otherProject = /· \d+ episodes? · \S+$/;
      await waitRow('Episodes', otherProject);
      const only = await invokeTools([{ command: 'recall.showCurrentProjectOnly' }]);
      assert.ok(only.results[0].ok, only.results[0].error);
      await h.waitFor(async () => !(await rowLabels('Episodes')).some((l) => otherProject.test(l)), {
        timeoutMs: 20000,
        what: "other projects' sessions to leave the Episodes view",
      });
      await waitRow('Episodes', /^We chose sql\.js for storage/);
      const all = await invokeTools([{ command: 'recall.showAllProjects' }]);
      assert.ok(all.results[0].ok, all.results[0].error);
      await waitRow('Episodes', otherProject);
    },
  );

  await check('another memory folder (recall.memoryFolder): an empty memory shows the welcome view with actions', async () => {
    fs.mkdirSync(dirs.empty, { recursive: true });
    await invokeTools([{ setting: 'recall.memoryFolder', value: dirs.empty }]);
    const welcome = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Entities' }) }).locator('.welcome-view-content');
    await h.waitFor(async () => /No entities yet/.test(await welcome.innerText().catch(() => '')), {
      timeoutMs: 30000,
      what: 'the Entities welcome view',
    });
    const buttons = await welcome.locator('.monaco-button').allInnerTexts();
    assert.ok(buttons.includes('Import Conversations…') && buttons.includes('Add a Fact…'), JSON.stringify(buttons));
    const item = page.locator('.statusbar-item', { hasText: 'Recall:' }).first();
    await h.waitFor(async () => /Recall: 0 episodes/.test(await item.innerText()), {
      timeoutMs: 20000,
      what: 'status bar "Recall: 0 episodes"',
    });
    await h.screenshot(page, 'recall-welcome');
  });
  step('checks in the workbench');
} catch (err) {
  results.push({ name: 'setup', ok: false, err });
  console.log(`  FAIL setup: ${err?.stack ?? err}`);
  if (page) await h.screenshot(page, 'failure-setup').catch(() => {});
} finally {
  // Keep the extension's own log with the artifacts.
  try {
    const logs = fs
      .readdirSync(path.join(dirs.userDataDir, 'logs'), { recursive: true })
      .filter((f) => /recall-memory.*Recall\.log$|Recall\.log$/.test(String(f)));
    for (const f of logs) fs.copyFileSync(path.join(dirs.userDataDir, 'logs', String(f)), path.join(h.ARTIFACTS, 'recall-extension.log'));
  } catch {}
  await closeBrowser?.();
  step('cleanup: chromium');
  await cs?.stop();
  step('cleanup: code-server (with the extension host and the MCP server it started)');
  await h.cleanupAll();
  // Memory services are detached from code-server (they outlive any one client): stop them too.
  for (const memory of [dirs.home, dirs.empty]) {
    if (!fs.existsSync(memory)) continue;
    try {
      execFileSync(process.execPath, [path.join(h.REPO, 'dist/cli.js'), '--memory', memory, 'service', 'stop'], {
        env: serviceEnv,
        stdio: 'ignore',
      });
    } catch {}
  }
  step('cleanup: memory service');
}

await check('everything started is stopped (code-server, extension host, MCP server, memory service, chromium)', async () => {
  await h
    .waitFor(() => processesMentioning(work).length === 0, { timeoutMs: 15000, what: `no process mentioning ${work}` })
    .catch(() => {
      throw new Error(`still running:\n${processesMentioning(work).join('\n')}`);
    });
});
fs.rmSync(work, { recursive: true, force: true });

console.log('timings (s):');
for (const [name, ms] of timings) console.log(`  ${(ms / 1000).toFixed(1).padStart(6)}  ${name}`);
if (vsixBytes) console.log(`VSIX: ${(vsixBytes / 1024).toFixed(0)} KB`);
const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(`extension e2e: ${passed} passed, ${failed} failed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
