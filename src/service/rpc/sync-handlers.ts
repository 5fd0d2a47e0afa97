/**
 * The service's team-sync methods: what was refused, the members' keys, and undoing a forget
 * from the team. Trusting a key and restoring are a person's acts.
 */
import type { Memory } from '../../core/memory/memory.js';
import { MemoryError } from '../../core/model/errors.js';
import type { Provenance } from '../../core/model/events.js';
import type { SyncLoop } from '../../sync/sync-loop.js';
import type { ParamsOf, ResultOf } from './protocol.js';

type SyncMethod = 'sync.quarantine' | 'sync.members' | 'sync.trust' | 'sync.forgotten' | 'sync.restore';

export function syncHandlers(
  memory: Memory,
  sync: SyncLoop | undefined,
): { [M in SyncMethod]: (params: ParamsOf<M>, by: Provenance) => ResultOf<M> } {
  const on = (): SyncLoop => {
    if (!sync) throw new MemoryError('invalid_input', 'Team sync is off for this memory.', 'Turn it on with `recall sync --postgres URL`.');
    return sync;
  };
  const person = (by: Provenance, what: string): void => {
    if (by.authority !== 'human') throw new MemoryError('forbidden', `Only a person can ${what}.`, 'Use the `recall` CLI or VS Code.');
  };
  return {
    'sync.quarantine': () => on().quarantined(),
    'sync.members': () => on().members(),
    'sync.trust': (p, by) => {
      person(by, "trust a member's key");
      try {
        return on().trust(p.origin);
      } catch (err) {
        if (err instanceof MemoryError) throw err;
        throw new MemoryError('not_found', (err as Error).message, '`recall sync members` lists the memories the server shows.');
      }
    },
    // Held aside even when sync has since been turned off: the person can still restore it.
    'sync.forgotten': () => memory.heldForgets(),
    'sync.restore': (p, by) => memory.restoreForget(p.id, by),
  };
}
