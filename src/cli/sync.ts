/**
 * `recall sync`: shares this memory through a team's PostgreSQL. `--postgres URL` checks the
 * server, writes the connection (never its password) to config.json and restarts the service;
 * `status` shows cursors, backlog and the last error; `off` stops sharing (nothing is deleted).
 */
import { readServiceConfig, updateServiceConfig } from '../service/config-file.js';
import type { MemoryClient } from '../service/rpc/client.js';
import { runningServicePid, stopService } from '../service/rpc/launch.js';
import type { ServiceStatus } from '../service/rpc/protocol.js';
import { ensureOrigin } from '../core/store/ids.js';
import { passwordIn, resolveSync, withoutPassword } from '../sync/config.js';
import { ServerLog } from '../sync/server-log.js';
import type { SyncStatus } from '../sync/sync-loop.js';
import { UsageError } from './usage.js';

export interface SyncCommand {
  action: string | undefined;
  postgres?: string;
  author?: string;
  projects?: string[];
  json?: boolean;
  memory: string;
  connect: () => Promise<MemoryClient>;
  out: (s: string) => void;
  err: (s: string) => void;
}

/** One line for `recall status` and the sync status header. */
export function renderSync(s: SyncStatus | undefined): string {
  if (!s) return 'off (recall sync --postgres URL to share this memory)';
  const state = s.connected ? 'connected' : `not connected${s.last_error ? ` (${s.last_error})` : ''}`;
  return `${s.server} as ${s.author}, ${state}; backlog ${s.backlog} event(s) to push, ${s.behind} to pull`;
}

export async function runSync(c: SyncCommand): Promise<number> {
  const action = c.action ?? (c.postgres ? 'on' : 'status');
  if (!['on', 'off', 'status'].includes(action)) throw new UsageError('sync takes one of: status, off (or --postgres URL).');
  if (action === 'on') await turnOn(c);
  if (action === 'off') {
    updateServiceConfig(c.memory, { sync: { postgres: '' } });
    c.err('sync is off: this memory keeps everything it pulled, and stops pushing and pulling');
  }
  if (action !== 'status' && runningServicePid(c.memory) !== undefined) {
    c.err('restarting the memory service to apply the change');
    await stopService(c.memory);
  }
  const client = await c.connect();
  let status: ServiceStatus;
  try {
    status = await client.call('status', {});
    // The first push and pull take a moment after a (re)start.
    for (let i = 0; action === 'on' && i < 40 && status.sync && !status.sync.connected && !status.sync.last_error; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = await client.call('status', {});
    }
  } finally {
    client.close();
  }
  const s = status.sync;
  if (c.json) c.out(JSON.stringify(s ?? { enabled: false }));
  else if (!s) c.out(`sync ${renderSync(undefined)}`);
  else
    c.out(
      [
        `sync          ${renderSync(s)}`,
        `memory id     ${s.origin}`,
        `pushed        up to seq ${s.pushed_seq}${s.last_push ? ` (last ${s.last_push})` : ''}`,
        `pulled        up to log row ${s.pulled_id}${s.last_pull ? ` (last ${s.last_pull})` : ''}`,
        ...(s.last_error ? [`last error    ${s.last_error}`] : []),
      ].join('\n'),
    );
  return s?.last_error ? 1 : 0;
}

async function turnOn(c: SyncCommand): Promise<void> {
  const url = c.postgres ?? readServiceConfig(c.memory).sync?.postgres;
  if (!url) throw new UsageError('Give the server: recall sync --postgres postgres://user@host:5432/db?sslmode=require');
  if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError(`"${withoutPassword(url)}" is not a postgres:// URL.`);
  const stored = withoutPassword(url);
  const settings = { postgres: stored, ...(c.author ? { author: c.author } : {}), ...(c.projects?.length ? { projects: c.projects } : {}) };
  // The check uses the password from the URL if one was given; the service gets it from the environment.
  const cfg = resolveSync(settings, { ...process.env, RECALL_SYNC_PASSWORD: passwordIn(url) ?? process.env.RECALL_SYNC_PASSWORD })!;
  const server = await ServerLog.connect(
    cfg,
    () => {},
    () => {},
  ).catch((err: Error) => {
    throw new UsageError(`Cannot reach ${stored}: ${err.message}. Nothing was changed.`);
  });
  await server.close();
  if (passwordIn(url))
    c.err('The password was not stored: the memory service reads it from RECALL_SYNC_PASSWORD or PGPASSWORD (VS Code: its SecretStorage).');
  updateServiceConfig(c.memory, { sync: settings });
  ensureOrigin(c.memory);
}
