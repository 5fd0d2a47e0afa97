/**
 * Any local user can open connections to `recall mcp --http` without its token. Hundreds of slow
 * ones, trickling headers and never finishing, must neither starve the person's own client nor
 * stay open: the server keeps at most LIMITS.httpStrangers of them and closes each in the end.
 * Where `prlimit` exists (util-linux), the server runs under a hard open-files limit the strangers
 * alone would use up, as on a machine whose hard limit is 1024 with 1,000 of them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as net from 'node:net';
import { after, test } from 'node:test';
import { LIMITS } from '../../src/core/model/limits';
import { CLI, cleanup, spawn, tmpMemory, track, waitFor } from './kit';

after(cleanup);

const STRANGERS = 300;
/** Room for the server's own files and the strangers it keeps, not for all of them. */
const OPEN_FILES = 256;
const prlimit = process.platform === 'linux' && spawnSync('prlimit', ['--version']).status === 0;

test('slow unauthenticated connections neither starve an authenticated client nor stay open', async () => {
  assert.ok(LIMITS.httpStrangers + 64 < OPEN_FILES && OPEN_FILES < STRANGERS, 'the limits make the attack meaningful');
  const memory = tmpMemory('http-strangers');
  const port = await freePort();
  const token = 'the-persons-own-token';
  const command = [process.execPath, CLI, '--memory', memory, 'mcp', '--http', '--port', String(port)];
  const [file, ...args] = prlimit ? ['prlimit', `--nofile=${OPEN_FILES}:${OPEN_FILES}`, '--', ...command] : command;
  const server = track(spawn(file!, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, RECALL_MCP_TOKEN: token } }));
  let log = '';
  server.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  await waitFor(() => /MCP over HTTP at/.test(log), 20_000, `the HTTP server (${log})`);

  // Each stranger sends a request line and headers, one a second, and never ends them.
  const strangers: net.Socket[] = [];
  let closed = 0;
  for (let i = 0; i < STRANGERS; i++) {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    s.once('close', () => closed++);
    s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n`);
    strangers.push(s);
    await new Promise((resolve) => s.once('connect', resolve).once('close', resolve));
  }
  const trickle = setInterval(() => {
    for (const s of strangers) if (!s.destroyed) s.write('X-Slow: 1\r\n');
  }, 1000);
  try {
    // The person's client is answered while they are open.
    const listed = await toolsList(port, token);
    assert.equal(listed.status, 200, listed.body);
    assert.match(listed.body, /recall_query/);
    // The server kept no more of them than its bound (well before any header timeout).
    await waitFor(() => STRANGERS - closed <= LIMITS.httpStrangers, 8_000, `at most ${LIMITS.httpStrangers} strangers open`);
    // And closes the rest, though they keep sending.
    await waitFor(() => closed === STRANGERS, 30_000, 'every stranger closed by the server');
    const again = await toolsList(port, token);
    assert.equal(again.status, 200, again.body);
  } finally {
    clearInterval(trickle);
    for (const s of strangers) s.destroy();
  }
});

async function toolsList(port: number, token: string): Promise<{ status: number | string; body: string }> {
  return fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    signal: AbortSignal.timeout(20_000),
  }).then(
    async (r) => ({ status: r.status, body: await r.text() }),
    (e: Error) => ({ status: 'failed', body: `${e.message} ${String((e as { cause?: unknown }).cause ?? '')}` }),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
