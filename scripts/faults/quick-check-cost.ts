/**
 * What `PRAGMA quick_check` on open costs: builds a memory of N episodes (default 30000) in a temp
 * folder, snapshots it, and times the check on the reloaded snapshot.
 * usage: node --import tsx scripts/faults/quick-check-cost.ts [N]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Memory } from '../../src/core/memory/memory';
import { checkIntegrity } from '../../src/core/store/recovery';
import { loadSqlJs } from '../../src/core/store/sqlite';

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 30_000);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-quick-check-'));
  try {
    const memory = await Memory.open(folder);
    const by = { authority: 'user' as const, source: 'bench' };
    for (let i = 0; i < n; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
        text: `Episode ${i + j}: we moved service ${(i + j) % 97} to Postgres after the outage in region ${(i + j) % 13}`,
        session: `s${(i + j) % 50}`,
      }));
      memory.ingest(batch, by);
    }
    memory.close({ snapshot: true });
    const bytes = fs.readFileSync(path.join(folder, 'snapshot.sqlite'));
    const SQL = await loadSqlJs();
    const db = new SQL.Database(bytes);
    const started = process.hrtime.bigint();
    checkIntegrity(db);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`${n} episodes, snapshot ${(bytes.length / 1e6).toFixed(1)} MB: quick_check ${ms.toFixed(0)} ms`);
    db.close();
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

void main();
