#!/usr/bin/env node
// Smoke test of the e2e chain: pack the probe extension as a VSIX, install it into code-server,
// start code-server, open the workbench in headless chromium, run "Probe: Say Hello" and
// "Probe: Invoke Tool" from the command palette, check the files they write, take a screenshot,
// stop everything. Run: node test/e2e/smoke.mjs   (after bash test/e2e/install-tools.sh)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import * as h from './harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const t0 = Date.now();
const timings = [];
let tStep = Date.now();
const step = (name) => {
  const now = Date.now();
  timings.push([name, now - tStep]);
  tStep = now;
  console.log(`  [${((now - t0) / 1000).toFixed(1)} s] ${name} (+${(timings.at(-1)[1] / 1000).toFixed(1)} s)`);
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-e2e-smoke-'));
const dirs = {
  userDataDir: path.join(work, 'user-data'),
  extensionsDir: path.join(work, 'extensions'),
  folder: path.join(work, 'workspace'),
  out: path.join(work, 'out'),
  recallHome: path.join(work, 'recall-home'),
};
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
fs.writeFileSync(path.join(dirs.folder, 'README.md'), '# smoke workspace\n');

let ok = false;
let page;
try {
  h.assertToolsInstalled();
  console.log(`smoke: work dir ${work}`);

  const vsix = h.packVsix(path.join(HERE, 'fixtures/probe-extension'), path.join(work, 'probe.vsix'));
  step('pack vsix');

  await h.installVsix(vsix, { extensionsDir: dirs.extensionsDir, userDataDir: dirs.userDataDir });
  assert.ok(
    fs.readdirSync(dirs.extensionsDir).some((d) => d.startsWith('recall-test.recall-e2e-probe-')),
    `probe not in ${dirs.extensionsDir}`,
  );
  step('install vsix');

  const env = {
    RECALL_HOME: dirs.recallHome,
    PROBE_ACTIVATED_FILE: path.join(dirs.out, 'activated.json'),
    PROBE_OUT: path.join(dirs.out, 'hello.json'),
    PROBE_TOOL_NAME: '/^probe_ech/',
    PROBE_TOOL_INPUT: JSON.stringify({ text: 'ping' }),
    PROBE_TOOL_OUT: path.join(dirs.out, 'tool.json'),
  };
  const cs = await h.startCodeServer({ ...dirs, env });
  console.log(`  code-server at ${cs.url} (pid ${cs.pid})`);
  step('code-server up (healthz)');

  ({ page } = await h.launchBrowser());
  step('chromium launched');

  const readyMs = await h.openWorkbench(page, cs.url);
  step('workbench ready');
  console.log(`  (openWorkbench measured ${readyMs} ms)`);

  await h.runCommand(page, 'Probe: Say Hello');
  const hello = JSON.parse(await h.waitForFile(env.PROBE_OUT));
  assert.equal(hello.hello, 'world');
  assert.deepEqual(hello.workspace, [dirs.folder]);
  assert.equal(hello.recallHome, dirs.recallHome, 'env reaches the extension host');
  assert.match(hello.node, /^v22\./, 'extension host runs Node 22');
  console.log(`  extension host: VS Code ${hello.vscode}, Node ${hello.node}`);
  step('Probe: Say Hello -> file written (command activates the extension)');

  await h.runCommand(page, 'Probe: Invoke Tool');
  const tool = JSON.parse(await h.waitForFile(env.PROBE_TOOL_OUT));
  assert.equal(tool.ok, true, tool.error);
  assert.deepEqual(JSON.parse(tool.content[0].value), { echo: { text: 'ping' } });
  step('Probe: Invoke Tool -> vscode.lm.invokeTool result written');

  // activate() ran (a contributed command activates on demand; onStartupFinished comes later).
  const activated = JSON.parse(await h.waitForFile(env.PROBE_ACTIVATED_FILE, { timeoutMs: 30000 }));
  assert.equal(activated.recallHome, dirs.recallHome);
  step('activation file present');

  await h
    .waitFor(async () => (await h.notifications(page)).some((t) => t.includes('hello written')), {
      timeoutMs: 5000,
      what: 'notification toast',
    })
    .catch(() => {});
  const shot = await h.screenshot(page, 'smoke-workbench');
  console.log(`  screenshot: ${shot}`);
  step('screenshot');
  ok = true;
} catch (e) {
  console.error('smoke FAILED:', e);
  if (page)
    await h.screenshot(page, 'smoke-failure').then(
      (f) => console.error(`  failure screenshot: ${f}`),
      () => {},
    );
} finally {
  await h.cleanupAll();
  step('cleanup');
  fs.rmSync(work, { recursive: true, force: true });
}
console.log('timings (s):');
for (const [name, ms] of timings) console.log(`  ${(ms / 1000).toFixed(1).padStart(6)}  ${name}`);
console.log(`smoke ${ok ? 'PASSED' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(ok ? 0 : 1);
