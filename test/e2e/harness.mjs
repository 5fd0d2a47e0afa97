// End-to-end harness: a real VS Code (code-server, Node 22) driven by Debian's chromium through
// playwright-core. Plain ESM, runs on Node 20+. Tools come from test/e2e/install-tools.sh.
//
//   import * as h from './harness.mjs';
//   await h.installVsix(vsix, { extensionsDir });
//   const cs = await h.startCodeServer({ folder, userDataDir, extensionsDir, env: { RECALL_HOME } });
//   const { page } = await h.launchBrowser();
//   await h.openWorkbench(page, cs.url);
//   await h.runCommand(page, 'Recall: Something');
//   ... finally { await h.cleanupAll(); }
//
// Everything listens on 127.0.0.1 only. code-server runs in its own process group and stop()
// kills the whole group (extension host, pty host, MCP servers it spawned, ...).

import { spawn, execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '../..');
export const CACHE = path.resolve(process.env.RECALL_E2E_CACHE || path.join(REPO, '.cache/e2e'));
export const ARTIFACTS = path.join(HERE, 'artifacts');
export const NODE22 = path.join(CACHE, 'node22/bin/node');
export const CODE_SERVER_ENTRY = path.join(CACHE, 'code-server/node_modules/code-server/out/node/entry.js');
export const CONFORMANCE = path.join(CACHE, 'tools/node_modules/.bin/conformance');
export const CHROMIUM = process.env.RECALL_E2E_CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Settings written by startCodeServer when the user data dir has no settings.json yet. */
export const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
};

// ------------------------------------------------------------------------------------------------
// Small utilities

export function assertToolsInstalled() {
  const missing = [NODE22, CODE_SERVER_ENTRY, CHROMIUM].filter((p) => !fs.existsSync(p));
  if (missing.length) {
    throw new Error(`e2e tools missing (${missing.join(', ')}); run: bash test/e2e/install-tools.sh`);
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls fn() until it returns a truthy value (returned) or timeoutMs passes (throws). */
export async function waitFor(fn, { timeoutMs = 15000, intervalMs = 100, what = 'condition' } = {}) {
  const end = Date.now() + timeoutMs;
  let lastErr;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      lastErr = e;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? `: ${lastErr.message}` : ''}`);
    }
    await sleep(intervalMs);
  }
}

/** Waits for a file to exist and be non-empty; returns its text. */
export function waitForFile(file, opts = {}) {
  return waitFor(
    () => {
      try {
        const t = fs.readFileSync(file, 'utf8');
        return t.length ? t : null;
      } catch {
        return null;
      }
    },
    { what: `file ${file}`, ...opts },
  );
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Scratch HOME/XDG dirs so code-server never writes into ~ (config.yaml, logs, ...). */
function scratchEnv() {
  const base = path.join(CACHE, 'scratch/runtime');
  const dirs = { HOME: 'home', XDG_CONFIG_HOME: 'config', XDG_DATA_HOME: 'data', XDG_CACHE_HOME: 'cache' };
  const out = {};
  for (const [k, d] of Object.entries(dirs)) {
    out[k] = path.join(base, d);
    fs.mkdirSync(out[k], { recursive: true });
  }
  return out;
}

function codeServerEnv(extra = {}) {
  return {
    ...process.env,
    ...scratchEnv(),
    PATH: `${path.dirname(NODE22)}${path.delimiter}${process.env.PATH || ''}`,
    // Never inherit a password or a proxy from the caller.
    PASSWORD: '',
    HASHED_PASSWORD: '',
    ...extra,
  };
}

// ------------------------------------------------------------------------------------------------
// Cleanup registry: everything started here is stopped by cleanupAll(), and (synchronously, with
// SIGKILL) on process exit, so nothing is left running whether a test passes or fails.

const running = new Set(); // { name, stop(): Promise, killSync(): void }
let handlersInstalled = false;

function track(entry) {
  running.add(entry);
  if (!handlersInstalled) {
    handlersInstalled = true;
    process.on('exit', () => {
      for (const e of running) {
        try {
          e.killSync();
        } catch {}
      }
    });
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      process.once(sig, () => {
        cleanupAll().finally(() => process.exit(128 + (os.constants.signals[sig] || 1)));
      });
    }
  }
  return entry;
}

export async function cleanupAll() {
  const all = [...running].reverse(); // browsers first, then servers
  await Promise.allSettled(all.map((e) => e.stop()));
  running.clear();
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------------------------------------
// code-server

function runCodeServerCli(args, { env, timeoutMs = 120000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      NODE22,
      [CODE_SERVER_ENTRY, ...args],
      { env: codeServerEnv(env), timeout: timeoutMs, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (err) {
          err.message += `\n${stdout}\n${stderr}`;
          reject(err);
        } else resolve({ stdout, stderr });
      },
    );
  });
}

/** Installs a .vsix (or a marketplace id, which will fail offline) into extensionsDir. */
export async function installVsix(vsixPath, { extensionsDir, userDataDir } = {}) {
  assertToolsInstalled();
  if (!extensionsDir) throw new Error('installVsix: extensionsDir is required');
  fs.mkdirSync(extensionsDir, { recursive: true });
  const args = ['--install-extension', path.resolve(vsixPath), '--extensions-dir', extensionsDir, '--force'];
  if (userDataDir) args.push('--user-data-dir', userDataDir);
  const { stdout } = await runCodeServerCli(args);
  if (!/successfully installed|already installed/i.test(stdout)) {
    throw new Error(`installVsix: unexpected output:\n${stdout}`);
  }
  return stdout;
}

/** Merges obj into <userDataDir>/User/settings.json (creating it). Returns the file path. */
export function writeUserSettings(userDataDir, obj, { merge = true } = {}) {
  const file = path.join(userDataDir, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let current = {};
  if (merge && fs.existsSync(file)) {
    try {
      current = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {}
  }
  fs.writeFileSync(file, JSON.stringify({ ...current, ...obj }, null, 2));
  return file;
}

/**
 * Starts code-server on 127.0.0.1:<free port> with --auth none, in its own process group.
 * env is merged into code-server's environment; the extension host inherits it
 * (so tests can set RECALL_HOME etc. there). Resolves once /healthz answers.
 * Returns { url, port, pid, logFile, log(), stop() }.
 */
export async function startCodeServer({ folder, userDataDir, extensionsDir, env = {}, timeoutMs = 60000, extraArgs = [] } = {}) {
  assertToolsInstalled();
  if (!userDataDir || !extensionsDir) throw new Error('startCodeServer: userDataDir and extensionsDir are required');
  fs.mkdirSync(userDataDir, { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  if (!fs.existsSync(path.join(userDataDir, 'User', 'settings.json'))) writeUserSettings(userDataDir, DEFAULT_SETTINGS);
  const configFile = path.join(userDataDir, 'code-server-config.yaml');
  fs.writeFileSync(configFile, 'auth: none\ncert: false\n');
  fs.mkdirSync(ARTIFACTS, { recursive: true });

  let lastErr;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const logFile = path.join(ARTIFACTS, `code-server-${port}.log`);
    const logFd = fs.openSync(logFile, 'w');
    const args = [
      CODE_SERVER_ENTRY,
      '--config',
      configFile,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--disable-proxy',
      ...extraArgs,
      ...(folder ? [path.resolve(folder)] : []),
    ];
    const child = spawn(NODE22, args, { detached: true, env: codeServerEnv(env), stdio: ['ignore', logFd, logFd] });
    fs.closeSync(logFd);
    const pid = child.pid;
    let exited = false;
    const exitP = new Promise((r) =>
      child.once('exit', (code, sig) => {
        exited = true;
        r({ code, sig });
      }),
    );

    let stopped = null;
    const killSync = () => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    };
    const stop = () => {
      if (stopped) return stopped;
      stopped = (async () => {
        try {
          process.kill(-pid, 'SIGTERM');
        } catch {}
        const end = Date.now() + 5000;
        while (groupAlive(pid) && Date.now() < end) await sleep(100);
        if (groupAlive(pid)) {
          killSync();
          await sleep(200);
        }
        running.delete(entry);
      })();
      return stopped;
    };
    const entry = track({ name: `code-server:${port}`, stop, killSync });
    const url = `http://127.0.0.1:${port}/`;
    const log = () => {
      try {
        return fs.readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    };

    try {
      await waitFor(
        async () => {
          if (exited) throw Object.assign(new Error(`code-server exited early:\n${log()}`), { fatal: true });
          const res = await fetch(`${url}healthz`, { signal: AbortSignal.timeout(2000) });
          return res.ok;
        },
        { timeoutMs, intervalMs: 200, what: `code-server on port ${port}` },
      );
      return { url, port, pid, logFile, log, stop, exited: exitP };
    } catch (e) {
      lastErr = e;
      await stop();
      if (!/EADDRINUSE/.test(log())) break; // only retry a lost port race
    }
  }
  throw lastErr;
}

// ------------------------------------------------------------------------------------------------
// Browser

let playwright;
function loadPlaywright() {
  if (!playwright) {
    const req = createRequire(path.join(CACHE, 'tools/package.json'));
    try {
      playwright = req('playwright-core');
    } catch (e) {
      throw new Error(`playwright-core not found in ${CACHE}/tools; run: bash test/e2e/install-tools.sh (${e.message})`);
    }
  }
  return playwright;
}

/** Launches Debian chromium (headless, fresh profile). Returns { browser, context, page, close() }. */
export async function launchBrowser({ viewport = { width: 1400, height: 900 } } = {}) {
  assertToolsInstalled();
  const { chromium } = loadPlaywright();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-e2e-chromium-'));
  // launchPersistentContext takes the profile dir explicitly; playwright starts chromium
  // in its own process group and kills that group on close.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    env: { ...process.env, ...scratchEnv() },
  });
  const page = context.pages()[0] || (await context.newPage());
  const browserProcess = context.browser?.()?.process?.();
  let closed = null;
  const close = () => {
    if (closed) return closed;
    closed = (async () => {
      try {
        await Promise.race([context.close(), sleep(10000)]);
      } catch {}
      running.delete(entry);
      fs.rmSync(profile, { recursive: true, force: true });
    })();
    return closed;
  };
  const entry = track({
    name: 'chromium',
    stop: close,
    killSync: () => {
      try {
        browserProcess?.kill('SIGKILL');
      } catch {}
      try {
        fs.rmSync(profile, { recursive: true, force: true });
      } catch {}
    },
  });
  return { browser: context, context, page, close };
}

/** Opens the workbench and waits until it is usable. Returns the elapsed milliseconds. */
export async function openWorkbench(page, url, { timeoutMs = 60000 } = {}) {
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs });
  await page.locator('.monaco-workbench').first().waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.part.activitybar, .part.sidebar .composite-bar').first().waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.part.statusbar').first().waitFor({ state: 'visible', timeout: timeoutMs });
  return Date.now() - t0;
}

/**
 * Runs a command from the command palette by its full title as shown there
 * (`Category: Title`, e.g. "Probe: Say Hello"). Selects the row whose label equals title
 * exactly (not just the first fuzzy match) and presses Enter.
 */
export async function runCommand(page, title, { timeoutMs = 30000 } = {}) {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('input.input');
  // Open the palette. Focus may sit in a webview/terminal that eats F1: retry, then fall back.
  await waitFor(
    async () => {
      if (!(await widget.isVisible())) {
        await page
          .locator('.monaco-workbench')
          .first()
          .focus()
          .catch(() => {});
        await page.keyboard.press('F1');
        await sleep(300);
      }
      return (await widget.isVisible()) && (await input.inputValue()).startsWith('>');
    },
    { timeoutMs, intervalMs: 300, what: 'command palette' },
  );

  await input.fill(`>${title}`);
  const rows = widget.locator('.quick-input-list .monaco-list-row');
  const labelOf = async (row) => (await row.locator('.label-name').first().textContent({ timeout: 1000 }))?.trim();
  // Wait until a row with exactly this label is listed, then move the focus onto it. Right after
  // the workbench shows, the extension host may not have registered the extensions' commands yet
  // ("No matching commands") and the open palette does not refresh: re-type the filter each second.
  let lastFill = Date.now();
  await waitFor(
    async () => {
      const n = await rows.count();
      for (let i = 0; i < n; i++) if ((await labelOf(rows.nth(i))) === title) return true;
      if (Date.now() - lastFill > 1000) {
        lastFill = Date.now();
        await input.fill('>');
        await input.fill(`>${title}`);
      }
      return false;
    },
    { timeoutMs, intervalMs: 200, what: `command "${title}" in the palette` },
  );
  for (let i = 0; i < 30; i++) {
    const focused = widget.locator('.quick-input-list .monaco-list-row.focused').first();
    if ((await focused.count()) && (await labelOf(focused)) === title) {
      await page.keyboard.press('Enter');
      await widget.waitFor({ state: 'hidden', timeout: timeoutMs }).catch(() => {});
      return;
    }
    await page.keyboard.press('ArrowDown');
    await sleep(50);
  }
  throw new Error(`could not focus command "${title}" in the palette`);
}

/** Saves a PNG into test/e2e/artifacts/<name>.png and returns its path. */
export async function screenshot(page, name, { fullPage = false } = {}) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(
    ARTIFACTS,
    `${String(name)
      .replace(/[^\w.-]+/g, '_')
      .replace(/\.png$/i, '')}.png`,
  );
  await page.screenshot({ path: file, fullPage });
  return file;
}

/**
 * The offer's notification: its toast, or its row in the notification center once the toast has hidden
 * (an info toast hides after a while, also between being found and being read or clicked on a slow
 * machine). `read` gets the offer's text before the answer; the `done` returned waits for a message
 * matching `re` (if given) and hides the center again: while it is open no toast shows, and later
 * checks read toasts.
 */
export async function answerOffer(page, text, button, read) {
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  // Short timeouts: a toast that hides meanwhile is answered from the center instead of failing.
  const offered = await toast
    .waitFor({ state: 'visible', timeout: 5000 })
    .then(() => toast.innerText({ timeout: 2000 }))
    .catch(() => undefined);
  if (offered !== undefined) {
    await read(offered);
    const clicked = await toast
      .locator('.monaco-button', { hasText: button })
      .click({ timeout: 5000 })
      .then(
        () => true,
        () => false,
      );
    if (clicked)
      return async (re) =>
        re &&
        waitFor(async () => (await notifications(page)).some((t) => re.test(t)), {
          timeoutMs: 20000,
          what: `${re} in the notifications`,
        });
  }
  await runCommand(page, 'Notifications: Show Notifications');
  const row = page.locator('.notifications-center .notification-list-item', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 30000 });
  if (offered === undefined) await read(await row.innerText());
  await row.locator('.monaco-button', { hasText: button }).click();
  // The answer's message shows in the center, or as a toast when the center closed with its last item.
  const messages = page.locator(
    '.notifications-center .notification-list-item-message, .notifications-toasts .notification-list-item-message',
  );
  return async (re) => {
    try {
      if (re)
        await waitFor(async () => (await messages.allTextContents()).some((t) => re.test(t)), {
          timeoutMs: 20000,
          what: `${re} in the notifications`,
        });
    } finally {
      await runCommand(page, 'Notifications: Hide Notifications').catch(() => {});
    }
  };
}

/** Texts of the visible notification toasts (useful to assert on showInformationMessage). */
export async function notifications(page) {
  return page.locator('.notifications-toasts .notification-list-item-message').allTextContents();
}

// ------------------------------------------------------------------------------------------------
// VSIX packing without vsce: a VSIX is a zip with extension.vsixmanifest, [Content_Types].xml and
// the extension under extension/. Good for test fixtures (no .vscodeignore, no dependency checks).

const xmlEsc = (s) =>
  String(s ?? '').replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]);

function listFiles(dir, base = dir) {
  const out = [];
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, ent.name);
    if (ent.isDirectory()) out.push(...listFiles(full, base));
    else if (ent.isFile()) out.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return out.sort();
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32(buf) {
  if (zlib.crc32) return zlib.crc32(buf) >>> 0;
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Writes a zip (deflate) from [{name, data: Buffer}] entries. */
export function writeZip(outPath, entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBuf = Buffer.from(name, 'utf8');
    const comp = zlib.deflateRawSync(data);
    const crc = crc32(data);
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(0x0800, 6);
    lh.writeUInt16LE(8, 8);
    lh.writeUInt16LE(0, 10);
    lh.writeUInt16LE(0x21, 12);
    lh.writeUInt32LE(crc, 14);
    lh.writeUInt32LE(comp.length, 18);
    lh.writeUInt32LE(data.length, 22);
    lh.writeUInt16LE(nameBuf.length, 26);
    lh.writeUInt16LE(0, 28);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(0x031e, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(0x0800, 8);
    ch.writeUInt16LE(8, 10);
    ch.writeUInt16LE(0, 12);
    ch.writeUInt16LE(0x21, 14);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(comp.length, 20);
    ch.writeUInt32LE(data.length, 24);
    ch.writeUInt16LE(nameBuf.length, 28);
    ch.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    ch.writeUInt32LE(offset, 42);
    locals.push(lh, nameBuf, comp);
    centrals.push(ch, nameBuf);
    offset += lh.length + nameBuf.length + comp.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  fs.mkdirSync(path.dirname(outPath), { recursive: true });
  fs.writeFileSync(outPath, Buffer.concat([...locals, cd, end]));
  return outPath;
}

/** Packs every file of extDir (which holds package.json) into a .vsix at outPath. */
export function packVsix(extDir, outPath) {
  const pkg = JSON.parse(fs.readFileSync(path.join(extDir, 'package.json'), 'utf8'));
  const files = listFiles(extDir);
  const exts = new Set(files.map((f) => path.extname(f).toLowerCase()).filter(Boolean));
  const mime = {
    '.json': 'application/json',
    '.js': 'application/javascript',
    '.cjs': 'application/javascript',
    '.mjs': 'application/javascript',
    '.md': 'text/markdown',
    '.txt': 'text/plain',
    '.png': 'image/png',
    '.svg': 'image/svg+xml',
    '.wasm': 'application/wasm',
  };
  const types = ['.vsixmanifest', ...exts]
    .map(
      (e) =>
        `<Default Extension="${xmlEsc(e)}" ContentType="${e === '.vsixmanifest' ? 'text/xml' : mime[e] || 'application/octet-stream'}"/>`,
    )
    .join('');
  const contentTypes = `<?xml version="1.0" encoding="utf-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">${types}</Types>\n`;
  const manifest = `<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011" xmlns:d="http://schemas.microsoft.com/developer/vsx-schema-design/2011">
  <Metadata>
    <Identity Language="en-US" Id="${xmlEsc(pkg.name)}" Version="${xmlEsc(pkg.version)}" Publisher="${xmlEsc(pkg.publisher)}"/>
    <DisplayName>${xmlEsc(pkg.displayName || pkg.name)}</DisplayName>
    <Description xml:space="preserve">${xmlEsc(pkg.description || '')}</Description>
    <Tags></Tags>
    <Categories>${xmlEsc((pkg.categories || ['Other']).join(','))}</Categories>
    <GalleryFlags>Public</GalleryFlags>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value="${xmlEsc(pkg.engines?.vscode || '*')}"/>
      <Property Id="Microsoft.VisualStudio.Code.ExtensionKind" Value="workspace"/>
    </Properties>
  </Metadata>
  <Installation><InstallationTarget Id="Microsoft.VisualStudio.Code"/></Installation>
  <Dependencies/>
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/>
  </Assets>
</PackageManifest>
`;
  const entries = [
    { name: 'extension.vsixmanifest', data: Buffer.from(manifest) },
    { name: '[Content_Types].xml', data: Buffer.from(contentTypes) },
    ...files.map((f) => ({ name: `extension/${f}`, data: fs.readFileSync(path.join(extDir, f)) })),
  ];
  return writeZip(outPath, entries);
}
