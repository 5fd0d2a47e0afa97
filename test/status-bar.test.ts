/**
 * The status bar says when rows of the team's log were refused (quarantined), with the latest
 * reason in its tooltip: the extension's own StatusBar, bundled with `vscode` swapped for
 * test/vscode-stub.ts (a stand-in: no VS Code runs here), fed a service status as the memory
 * service reports it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadExtension } from './extension-host';

const status = (sync: Record<string, unknown>) => ({
  episodes: 3,
  entities: 2,
  relationships: 1,
  current_relationships: 1,
  journal_bytes: 2048,
  snapshot_bytes: 0,
  last_write: null,
  embedder: 'disabled',
  service_pid: 1,
  clients: 1,
  sync: { connected: true, backlog: 0, behind: 0, quarantined: 0, removed_forged: 0, ...sync },
});

async function shown(sync: Record<string, unknown>): Promise<{ text: string; tooltip: string; warned: boolean }> {
  const x = await loadExtension();
  const before = x.host.statusBarItems.length;
  const ctx = { state: 'connected', memory: '/m', human: { connected: true, call: async () => status(sync) } };
  const bar = new x.statusBar.StatusBar(ctx, { url: undefined });
  await bar.update();
  const item = x.host.statusBarItems[before]!;
  return {
    text: String(item.text),
    tooltip: String((item.tooltip as { value: string }).value),
    warned: item.backgroundColor !== undefined,
  };
}

test('the status bar warns when rows of the team log were refused, and its tooltip says the latest and why', async () => {
  const quiet = await shown({});
  assert.doesNotMatch(quiet.text, /refused/);
  assert.equal(quiet.warned, false);
  const latest = {
    row: 14,
    origin: 'mallory00001',
    origin_seq: 3,
    author: 'alice@team.example',
    type: 'relationship.correct',
    reason: 'memory mallory00001 has no registered key',
    at: '2026-12-01T00:00:00.000Z',
  };
  const refused = await shown({ quarantined: 2, last_quarantined: latest });
  assert.match(refused.text, /\$\(shield\) 2 refused/);
  assert.equal(refused.warned, true);
  assert.match(
    refused.tooltip,
    /Refused from the team's log: 2 row\(s\); latest row 14 from alice\\?@team\\?\.example: memory mallory00001 has no registered key/,
  );
});
