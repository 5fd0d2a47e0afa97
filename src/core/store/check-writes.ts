/**
 * The rows a rule's check and its hooks' decisions change: the check on the relationship (with
 * who set it), each decision in check_outcomes and its count on the relationship, so every reader
 * of a fact sees both without another query.
 */
import type { Check, CheckOutcome, CheckSetter } from '../model/checks.js';
import type { MemoryEvent } from '../model/events.js';
import { rowidOf } from './ids.js';
import { all, run, type Database } from './sqlite.js';

export function setCheck(db: Database, rowid: number, check: Check | null, by: CheckSetter): void {
  run(db, 'UPDATE relationships SET check_spec = ?, check_by = ? WHERE rowid = ?', [
    check ? JSON.stringify(check) : null,
    check ? by : null,
    rowid,
  ]);
}

/** Applies a relationship.check or check.outcome event; false for any other event. */
export function applyRuleEvent(db: Database, e: MemoryEvent): boolean {
  if (e.type !== 'relationship.check' && e.type !== 'check.outcome') return false;
  // A fact forgotten here before the event arrived from elsewhere: nothing to hold it.
  const rowid = rowidOf(db, 'rel', e.id);
  if (rowid === undefined) return true;
  if (e.type === 'relationship.check') {
    // A person of another memory sets checks there: here it is data, never a person's barrier.
    setCheck(db, rowid, e.check, e.origin === undefined ? 'person' : 'peer');
    return true;
  }
  run(
    db,
    'INSERT INTO check_outcomes(relationship_rowid, outcome, host, tool, call, session, call_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [rowid, e.outcome, e.host ?? null, e.tool ?? null, e.call ?? null, e.session ?? null, e.callId ?? null, e.at],
  );
  const counts = Object.fromEntries(
    all(db, 'SELECT outcome, COUNT(*) AS n FROM check_outcomes WHERE relationship_rowid = ? GROUP BY outcome ORDER BY outcome', [
      rowid,
    ]).map((r) => [String(r.outcome), Number(r.n)]),
  ) as Partial<Record<CheckOutcome, number>>;
  run(db, 'UPDATE relationships SET outcomes = ? WHERE rowid = ?', [JSON.stringify(counts), rowid]);
  return true;
}

export function dropOutcomes(db: Database, rowid: number): void {
  run(db, 'DELETE FROM check_outcomes WHERE relationship_rowid = ?', [rowid]);
}
