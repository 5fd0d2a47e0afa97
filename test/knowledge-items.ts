/**
 * Knowledge items on a real memory, recorded the way every reader records them: the turn is
 * ingested, then KnowledgeWriter (core/memory/knowledge.ts) reads the item from it and its events
 * are committed to the journal. Nothing is faked downstream: the brief, the views and @recall read
 * them as they would read the extractor's.
 */
import type { Authority } from '../src/core/model/config';
import type { KnowledgeKind } from '../src/core/model/knowledge';
import type { JournaledGraph } from '../src/core/memory/journaled-graph';
import { KnowledgeWriter } from '../src/core/memory/knowledge';
import type { Memory } from '../src/core/memory/memory';

export interface Said {
  kind: KnowledgeKind;
  statement: string;
  subject: string;
  object?: string;
  /** Who said it: the person's turn (user), an agent's, or a file others wrote (external). Default user. */
  authority?: Exclude<Authority, 'human'>;
  speaker?: string;
  /** When it was said (the item holds from then). */
  time?: string;
  /** Its project; default the global memory. */
  project?: string | null;
}

const person = { authority: 'human' as const, source: 'test' };
let turn = 0;

/** Says each statement in a turn of its own and records the item read from it; returns the items' ids, in order. */
export function sayItems(memory: Memory, items: Said[]): string[] {
  const mem = (memory as unknown as { mem: JournaledGraph }).mem;
  const ingested = memory.ingest(
    items.map((s) => ({
      text: s.statement,
      role: s.authority === 'agent' ? 'assistant' : 'user',
      speaker: s.speaker ?? (s.authority === 'agent' ? 'assistant' : 'user'),
      authority: s.authority ?? 'user',
      session: `items-${++turn}`,
      time: s.time ?? '2026-11-01T10:00:00.000Z',
      project: s.project ?? null,
    })),
    person,
  );
  const writer = new KnowledgeWriter(mem);
  const read = items.map((s, i) => {
    const evidence = ingested.results[i]!.id;
    return writer.read({ ...s, evidence, assertedBy: s.authority ?? 'user', project: s.project ?? null });
  });
  mem.commit(
    read.flatMap((r) => (r.event ? [r.event] : [])),
    person,
  );
  return read.map((r) => r.id);
}
