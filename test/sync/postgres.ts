/**
 * A real PostgreSQL server for the sync tests: initdb in a temporary folder, started on a free
 * loopback port, stopped (and removed) at the end, failures included. As root (CI, containers)
 * the server runs as the unprivileged `postgres` user, since initdb refuses root.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface PgServer {
  url: string;
  port: number;
  stop(): void;
  start(): void;
  /** Stops the server and removes its folder. */
  destroy(): void;
}

/** The folder of initdb and pg_ctl, or undefined when no PostgreSQL is installed. */
export function findPgBin(): string | undefined {
  const fromEnv = process.env.RECALL_PG_BIN;
  if (fromEnv && fs.existsSync(path.join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (fs.existsSync(root)) {
    const versions = fs
      .readdirSync(root)
      .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  try {
    return path.dirname(execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim()) || undefined;
  } catch {
    return undefined;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startPostgres(bin: string): Promise<PgServer> {
  const root = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-pg-'));
  const data = path.join(dir, 'data');
  const sockets = path.join(dir, 'sock');
  fs.mkdirSync(sockets);
  if (root) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const as = (cmd: string, args: string[]): void => {
    const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args];
    execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  };
  as('initdb', ['-D', data, '-U', 'recall', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const opts = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const log = path.join(dir, 'server.log');
  const start = (): void => as('pg_ctl', ['-D', data, '-o', opts, '-l', log, '-w', '-t', '30', 'start']);
  const stop = (): void => as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  let running = true;
  return {
    url: `postgres://recall@127.0.0.1:${port}/postgres`,
    port,
    start: () => {
      start();
      running = true;
    },
    stop: () => {
      stop();
      running = false;
    },
    destroy: () => {
      try {
        if (running) stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
