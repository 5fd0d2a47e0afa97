#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, on Node 22 from the
// e2e cache) against `recall mcp --http` on a free 127.0.0.1 port with a scratch memory.
//
//   node scripts/conformance.mjs [--no-build] [--scenario NAME]... [--verbose]
//
// Scenarios default to the ones that fit a real server (the others expect the reference server's
// fixture tools): server-initialize, ping, tools-list, dns-rebinding-protection.
// Installs the tools with test/e2e/install-tools.sh when the cache is missing. Prints a summary;
// exits 1 if any scenario fails. Always stops the server and the memory service it started.
import { spawn, spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = process.env.RECALL_E2E_CACHE ?? path.join(ROOT, '.cache', 'e2e');
const CONFORMANCE = path.join(CACHE, 'bin', 'conformance');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const DEFAULT_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

const argv = process.argv.slice(2);
const verbose = argv.includes('--verbose');
const scenarios = argv.flatMap((a, i) => (argv[i - 1] === '--scenario' ? [a] : []));
if (!scenarios.length) scenarios.push(...DEFAULT_SCENARIOS);

const log = (msg) => process.stderr.write(`[conformance] ${msg}\n`);
const cleanups = [];
let cleaning;
function cleanup() {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (e) {
        log(`cleanup: ${e.message}`);
      }
    }
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => void cleanup().then(() => process.exit(130)));
}

/**
 * A loopback HTTP proxy to `target` that adds `Authorization: Bearer token`; responses (SSE too)
 * stream through. Host and Origin keep their host names and get the server's port instead of the
 * proxy's, so the server's DNS-rebinding checks judge what the client sent.
 */
function bearerProxy(target, token) {
  const server = http.createServer((req, res) => {
    const own = `:${server.address().port}`;
    const retarget = (v) => (typeof v === 'string' && v.endsWith(own) ? v.slice(0, -own.length) + `:${target.port}` : v);
    const headers = { ...req.headers, host: retarget(req.headers.host), authorization: `Bearer ${token}` };
    if (req.headers.origin !== undefined) headers.origin = retarget(req.headers.origin);
    const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}${target.pathname}` })),
  );
}

function runCapture(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), out });
    });
  });
}

async function main() {
  // 1. Tools: Node 22 + the conformance package, in the e2e cache.
  if (!fs.existsSync(CONFORMANCE)) {
    log(`${CONFORMANCE} is missing: running test/e2e/install-tools.sh`);
    const r = spawnSync('bash', [path.join(ROOT, 'test/e2e/install-tools.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0 || !fs.existsSync(CONFORMANCE)) throw new Error('install-tools.sh failed');
  }
  // 2. The server under test, built from this tree.
  if (!argv.includes('--no-build') || !fs.existsSync(CLI)) {
    const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new Error('build failed');
  }

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-conformance-'));
  const memory = path.join(scratch, 'memory');
  const results = path.join(scratch, 'results');
  cleanups.push(() => fs.rmSync(scratch, { recursive: true, force: true }));
  cleanups.push(() => {
    // The MCP server starts the memory service on the first tool call: stop it too.
    spawnSync(process.execPath, [CLI, '--memory', memory, 'service', 'stop'], { stdio: 'ignore', timeout: 15_000 });
  });

  // The server always requires a bearer token, and the conformance client cannot send one: a
  // loopback proxy in front of the server adds it to every request (see bearerProxy).
  const token = crypto.randomBytes(24).toString('base64url');
  const env = { ...process.env, RECALL_MCP_TOKEN: token };
  const server = spawn(process.execPath, [CLI, '--memory', memory, 'mcp', '--http', '--host', '127.0.0.1', '--port', '0'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let serverLog = '';
  cleanups.push(
    () =>
      new Promise((resolve) => {
        if (server.exitCode !== null || server.signalCode !== null) return resolve();
        const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
        server.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        server.kill('SIGTERM');
      }),
  );
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server printed no URL in 20 s:\n${serverLog}`)), 20_000);
    server.stderr.on('data', (d) => {
      serverLog += d;
      const m = /MCP over HTTP at (http:\/\/\S+\/mcp)/.exec(serverLog);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.once('exit', (code) => reject(new Error(`recall mcp --http exited ${code}:\n${serverLog}`)));
  });
  const proxy = await bearerProxy(new URL(url), token);
  cleanups.push(() => new Promise((resolve) => proxy.server.close(() => resolve())));
  log(`server: ${url} (memory ${memory}), through ${proxy.url} which adds the token`);
  const version = spawnSync(CONFORMANCE, ['--version'], { encoding: 'utf8' }).stdout.trim();

  // 3. The scenarios, one at a time.
  const rows = [];
  for (const scenario of scenarios) {
    const t0 = Date.now();
    const r = await runCapture(
      CONFORMANCE,
      ['server', '--url', proxy.url, '--scenario', scenario, '--output-dir', path.join(results, scenario)],
      {
        cwd: scratch,
      },
    );
    const out = r.out.replace(/\x1b\[[0-9;]*m/g, '');
    const m = /Passed:\s*(\d+)\/(\d+),\s*(\d+)\s*failed(?:,\s*(\d+)\s*warnings?)?/.exec(out);
    const passed = m ? Number(m[1]) : 0;
    const total = m ? Number(m[2]) : 0;
    const failed = m ? Number(m[3]) : 1;
    const warnings = m?.[4] ? Number(m[4]) : 0;
    const ok = r.code === 0 && m !== null && failed === 0 && passed === total && total > 0;
    rows.push({ scenario, ok, passed, total, failed, warnings, ms: Date.now() - t0 });
    if (!ok || verbose) process.stderr.write(`--- ${scenario} (exit ${r.code})\n${out}\n`);
    if (server.exitCode !== null) throw new Error(`the server died during ${scenario}:\n${serverLog}`);
  }

  // 4. Summary.
  const w = Math.max(...rows.map((r) => r.scenario.length));
  console.log(`MCP conformance ${version ? `(@modelcontextprotocol/conformance ${version}) ` : ''}against recall mcp --http`);
  for (const r of rows) {
    const checks = `${r.passed}/${r.total} checks${r.warnings ? `, ${r.warnings} warning(s)` : ''}`;
    console.log(`  ${r.ok ? 'PASS' : 'FAIL'}  ${r.scenario.padEnd(w)}  ${checks.padEnd(24)} ${(r.ms / 1000).toFixed(1)} s`);
  }
  const failedRows = rows.filter((r) => !r.ok);
  console.log(failedRows.length ? `${failedRows.length} of ${rows.length} scenario(s) failed` : `all ${rows.length} scenarios passed`);
  return failedRows.length ? 1 : 0;
}

let code = 1;
try {
  code = await main();
} catch (e) {
  log(`error: ${e.message}`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
