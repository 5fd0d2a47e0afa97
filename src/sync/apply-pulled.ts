/**
 * One pulled batch into the memory: each row judged (pulled.ts), the good ones applied in log
 * order, and a row that is refused, or that fails to apply, quarantined so the pull goes on.
 */
import type { ErasureScope, Memory, RemoteApplied } from '../core/memory/memory.js';
import type { MemoryEvent } from '../core/model/events.js';
import type { Pins } from './members.js';
import { judgeRow, type RawRow } from './pulled.js';
import type { Quarantine } from './quarantine.js';

export interface PullContext {
  pins: Pins;
  quarantine: Quarantine;
  /** What this memory shares: a forget from the team erases nothing of its own outside it. */
  scope: ErasureScope;
  log: (msg: string) => void;
}

export function applyPulled(memory: Memory, rows: RawRow[], ctx: PullContext): RemoteApplied {
  const judge = { keyOf: (o: string, a: string) => ctx.pins.keyOf(o, a), maxTextChars: memory.config.maxTextChars, now: Date.now() };
  const refuse = (row: RawRow, reason: string): void => {
    const e = ctx.quarantine.add(row, reason);
    ctx.log(`sync: quarantined log row ${e.row} (${e.type} from ${e.author ?? 'no author'}, memory ${e.origin}): ${e.reason}`);
  };
  const good: { row: RawRow; event: MemoryEvent }[] = [];
  const failed = new Set<number>();
  for (const row of rows) {
    const j = judgeRow(row, judge);
    if (j.ok) good.push({ row, event: j.event });
    else refuse(row, j.reason);
  }
  const total: RemoteApplied = {
    applied: 0,
    erased: { episodes: [], relationships: [] },
    erasedRowids: { episodes: [], relationships: [] },
    held: [],
  };
  const add = (r: RemoteApplied): void => {
    total.applied += r.applied;
    total.erased.episodes.push(...r.erased.episodes);
    total.erased.relationships.push(...r.erased.relationships);
    total.erasedRowids.episodes.push(...r.erasedRowids.episodes);
    total.erasedRowids.relationships.push(...r.erasedRowids.relationships);
    total.held.push(...r.held);
  };
  try {
    add(
      memory.applyRemote(
        good.map((g) => g.event),
        ctx.scope,
      ),
    );
  } catch {
    // One of them breaks the batch (which rolled back whole): apply one at a time to find it.
    for (const g of good) {
      try {
        add(memory.applyRemote([g.event], ctx.scope));
      } catch (err) {
        failed.add(g.row.id);
        refuse(g.row, `it could not be applied here: ${(err as Error).message}`);
      }
    }
  }
  ctx.quarantine.release(good.filter((g) => !failed.has(g.row.id)).map((g) => g.row.id));
  for (const id of total.held) ctx.log(`sync: a forget from the team erased things here; held aside as ${id} (recall sync restore ${id})`);
  return total;
}
