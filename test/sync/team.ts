/**
 * A team for the sync tests: a real PostgreSQL server (test/sync/postgres.ts), memory folders that
 * share a log through it, each with its own memory service and a person's and an agent's
 * connection. Without PostgreSQL installed the tests skip, except in CI, where that is a failure.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryClient } from '../../src/service/rpc/client';
import { onCleanup, ROOT, tmpFolder } from '../helpers';
import { findPgBin, startPostgres, type PgServer } from './postgres';

const bin = findPgBin();
if (!bin && process.env.CI) throw new Error('PostgreSQL is not installed (CI installs it: apt-get install postgresql)');
export const skip = bin ? false : 'no PostgreSQL found (install Debian\'s "postgresql" package or set RECALL_PG_BIN)';
if (skip) process.stderr.write(`test:sync skipped: ${skip}\n`);

export interface Machine {
  dir: string;
  person: MemoryClient;
  agent: MemoryClient;
}

export interface Team {
  pg: PgServer;
  /** A memory folder sharing the log `table` as `<tag>@team.example`, with a person's and an agent's connection. */
  machine(tag: string, table: string, sync?: Record<string, unknown>, dir?: string): Promise<Machine>;
  /** A client of `dir` in a project of its own (a person's, unless `surface` says otherwise). */
  connect(dir: string, opts?: { surface?: 'cli' | 'mcp'; project?: string }): Promise<MemoryClient>;
  /** Stops the server; the connections and the machines' services end with the file's tests (helpers.ts). */
  close(): Promise<void>;
}

export async function startTeam(): Promise<Team> {
  const pg = await startPostgres(bin!);
  const clients: MemoryClient[] = [];
  const connect: Team['connect'] = (dir, opts = {}) =>
    MemoryClient.connect({
      memory: dir,
      surface: opts.surface ?? 'cli',
      ...(opts.project ? { project: opts.project } : {}),
      serviceScript: path.join(ROOT, 'dist/service.js'),
    }).then((c) => (clients.push(c), c));
  // Before the memory folders go: the connections hold their services.
  onCleanup(() => {
    for (const c of clients.splice(0)) c.close();
  });
  return {
    pg,
    connect,
    async machine(tag, table, sync = {}, dir = tmpFolder(tag)) {
      const config = { sync: { postgres: pg.url, author: `${tag}@team.example`, table, ...sync } };
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
      return { dir, person: await connect(dir), agent: await connect(dir, { surface: 'mcp' }) };
    },
    async close() {
      pg.destroy();
    },
  };
}

export async function eventually(what: string, cond: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const episodeCount = async (m: Machine): Promise<number> => (await m.person.call('status', {})).episodes;
