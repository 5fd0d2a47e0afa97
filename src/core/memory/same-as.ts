/**
 * A person's correction: two knowledge items say the same thing ("Use parameterized queries to
 * prevent SQL injection" and, further down the same file, "Use prepared statements and
 * parameterized queries"), which no word count tells apart from two rules that share their words.
 * The one named goes (superseded by the one kept, under history); the turns and lines it rests on
 * become the kept one's evidence, each weighed as its own speaker's; and what says it again later
 * (the file read again, a new conversation) counts for the kept one (memory/knowledge.ts).
 */
import { invalid } from '../model/errors.js';
import type { EventBody, Provenance } from '../model/events.js';
import { sameFamily } from '../model/knowledge.js';
import type { FactView } from '../model/views.js';
import { supportingTurns } from '../store/graph-writes.js';
import type { JournaledGraph } from './journaled-graph.js';
import { requireFact, requireHuman } from './validate.js';

export function sameAs(mem: JournaledGraph, input: { id: string; as: string }, by: Provenance): FactView {
  requireHuman(by, 'say two items are the same');
  requireFact(mem.graph, input.id);
  requireFact(mem.graph, input.as);
  const gone = mem.graph.factById(input.id)!;
  const kept = mem.graph.factById(input.as)!;
  const hint = '`recall query TEXT` shows the current items with their ids; then `recall correct ITEM --same-as KEPT`.';
  if (gone.id === kept.id) throw invalid(`${gone.id} is the item itself: name the other one to keep.`, hint);
  for (const f of [gone, kept]) {
    if (f.kind === undefined) throw invalid(`${f.id} is a fact, not a knowledge item: correct it with --wrong or --confirm.`, hint);
    if (f.status !== 'current') throw invalid(`${f.id} is ${f.status}, not current: only current items are joined.`, hint);
  }
  if (!sameFamily(gone.kind!, kept.kind!))
    throw invalid(
      `${gone.id} is a ${gone.kind} and ${kept.id} a ${kept.kind}: what was set (rule, decision, preference) and what was found out (fact, lesson) are not joined.`,
      hint,
    );
  if (gone.project !== kept.project)
    throw invalid(
      `${gone.id} is in ${gone.project ?? 'the global memory'} and ${kept.id} in ${kept.project ?? 'the global memory'}.`,
      hint,
    );
  if (gone.pinned)
    throw invalid(`${gone.id} is confirmed, so it stays: join the other way round.`, `recall correct ${kept.id} --same-as ${gone.id}`);
  const cited = new Set(kept.evidence);
  const evidence: EventBody[] = supportingTurns(mem.db, gone.id)
    .filter((t) => !cited.has(t.episode) && cited.add(t.episode))
    .map((t) => ({
      type: 'relationship.evidence',
      id: kept.id,
      episode: t.episode,
      polarity: 1,
      ...(t.extractedBy ? { extractedBy: t.extractedBy } : {}),
    }));
  mem.commit([...evidence, { type: 'relationship.retract', id: gone.id, reason: `the same as ${kept.id}`, sameAs: kept.id }], by);
  return mem.graph.factById(kept.id)!;
}
