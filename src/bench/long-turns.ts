/**
 * LoCoMo with long turns (`bench locomo --long-turns N`): in every other session (the first, the
 * third, ...) the turns are joined N at a time into one turn, as a coding agent's long answer
 * holds many statements; the other sessions keep their short turns, so long and short turns
 * compete as in an agent's memory. The questions stay; a question's evidence becomes the turns
 * that now hold its evidence turns. What it measures is finding the one statement in a long
 * turn, which LoCoMo's own short turns never ask for.
 */
import type { EpisodeInput } from '../core/model/events.js';
import type { LocomoConversation } from '../core/ingest/locomo.js';

export function joinTurns(conv: LocomoConversation, n: number): LocomoConversation {
  if (!Number.isInteger(n) || n < 2) throw new Error(`--long-turns takes a whole number of turns to join, 2 or more; got ${n}.`);
  const bySession = new Map<string, EpisodeInput[]>();
  for (const e of conv.episodes) {
    const key = e.session ?? '';
    const list = bySession.get(key) ?? [];
    list.push(e);
    bySession.set(key, list);
  }
  const heldBy = new Map<string, string>();
  const episodes: EpisodeInput[] = [];
  for (const [index, turns] of [...bySession.values()].entries()) {
    const step = index % 2 === 0 ? n : 1;
    for (let i = 0; i < turns.length; i += step) {
      const part = turns.slice(i, i + step);
      if (part.length === 1) {
        episodes.push(part[0]!);
        if (part[0]!.ref) heldBy.set(part[0]!.ref, part[0]!.ref);
        continue;
      }
      const ref = part.map((t) => t.ref).join('+');
      for (const t of part) if (t.ref) heldBy.set(t.ref, ref);
      episodes.push({
        ...part[0]!,
        ref,
        speaker: 'assistant',
        role: 'assistant',
        text: part.map((t) => `${t.speaker ?? ''}: ${t.text}`).join('\n'),
      });
    }
  }
  const qa = conv.qa.map((q) => ({ ...q, evidence: [...new Set(q.evidence.flatMap((ev) => heldBy.get(ev) ?? []))] }));
  return { ...conv, episodes, qa };
}
