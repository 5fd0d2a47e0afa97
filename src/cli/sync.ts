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
  /** The memory id of `trust`, the held-aside forget of `restore`. */
  target?: string;
  extra?: string[];
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

const ACTIONS = ['on', 'off', 'status', 'quarantine', 'members', 'forgotten', 'trust', 'restore'];

export async function runSync(c: SyncCommand): Promise<number> {
  const action = c.action ?? (c.postgres ? 'on' : 'status');
  if (!ACTIONS.includes(action)) throw new UsageError(`sync takes one of: ${ACTIONS.slice(1).join(', ')} (or --postgres URL).`);
  const needsTarget = action === 'trust' || action === 'restore';
  if (needsTarget !== (c.target !== undefined) || c.extra?.length)
    throw new UsageError(
      needsTarget ? `sync ${action} takes one ${action === 'trust' ? 'MEMORY_ID' : 'ID'}.` : `sync ${action} takes no more arguments.`,
    );
  if (!['on', 'off', 'status'].includes(action)) return runTeamCommand(c, action);
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
        `quarantined   ${s.quarantined} row(s) refused${s.last_quarantined ? `; latest: row ${s.last_quarantined.row} from ${s.last_quarantined.author ?? 'no author'}: ${s.last_quarantined.reason}` : ''}`,
        ...(s.removed_forged ? [`removed       ${s.removed_forged} row(s) under this memory's id that it did not write`] : []),
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

/** The team commands: what was refused, the members' keys, forgets held aside, and the person's answers to them. */
async function runTeamCommand(c: SyncCommand, action: string): Promise<number> {
  const client = await c.connect();
  try {
    const show = (value: unknown, lines: () => string[]): void => c.out(c.json ? JSON.stringify(value) : lines().join('\n'));
    switch (action) {
      case 'quarantine': {
        const rows = await client.call('sync.quarantine', {});
        show(rows, () =>
          rows.length
            ? rows.map(
                (r) =>
                  `row ${r.row}  ${r.type} from ${r.author ?? 'no author'} (memory ${r.origin}, seq ${r.origin_seq}), ${r.at}\n    ${r.reason}`,
              )
            : ['No row of the shared log was refused here.'],
        );
        break;
      }
      case 'members': {
        const members = await client.call('sync.members', {});
        show(members, () =>
          members.length
            ? members.map((m) => `${m.origin}  ${m.author}  key ${m.fingerprint}  ${m.state}${m.why ? `: ${m.why}` : ''}`)
            : ['No member seen yet.'],
        );
        break;
      }
      case 'trust': {
        const m = await client.call('sync.trust', { origin: c.target! });
        show(m, () => [`Trusted memory ${m.origin} (${m.author}, key ${m.fingerprint}); its refused rows are pulled again.`]);
        break;
      }
      case 'forgotten': {
        const held = await client.call('sync.forgotten', {});
        show(held, () =>
          held.length
            ? held.map(
                (h) =>
                  `${h.id}  "${h.entity}" forgotten by ${h.author ?? 'unknown'} on ${h.at.slice(0, 10)}: ${h.episodes} episode(s), ${h.facts} fact(s); held until ${h.expires.slice(0, 10)} (recall sync restore ${h.id})`,
              )
            : ['Nothing a forget from the team erased is held aside.'],
        );
        break;
      }
      case 'restore': {
        const r = await client.call('sync.restore', { id: c.target! });
        show(r, () => [`Restored ${r.episodes} episode(s) and ${r.facts} fact(s); this memory's own are shared with the team again.`]);
        break;
      }
    }
    return 0;
  } finally {
    client.close();
  }
}
