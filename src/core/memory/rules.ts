/**
 * Rules with checks in the memory: a person sets, changes or removes a rule's check; an agent
 * host's hook asks what to do with a pending tool call (rule-decision.ts decides), and what was
 * decided is recorded on each rule it concerned, journaled like every write: complied, asked,
 * blocked, and overridden (the person let through a call they were asked about, seen when the
 * call ran). The same call reported twice (two hook files, a retry) is recorded once.
 */
import { checkOf, type CheckOutcome, type CheckSetter, type ToolCall } from '../model/checks.js';
import type { Authority } from '../model/config.js';
import { invalid } from '../model/errors.js';
import type { EventBody, Provenance } from '../model/events.js';
import { HOLDING_KINDS } from '../model/knowledge.js';
import { LIMITS } from '../model/limits.js';
import { decide, whoSet, type CheckedRule, type Decision, type Verdict } from '../model/rule-decision.js';
import { toolCallOf } from '../model/tool-call.js';
import type { FactView } from '../model/views.js';
import { redactSecrets } from '../ingest/redact.js';
import { resolveId } from '../store/ids.js';
import { all, scalar } from '../store/sqlite.js';
import type { JournaledGraph } from './journaled-graph.js';
import { KnowledgeWriter } from './knowledge.js';
import { requireFact, requireHuman } from './validate.js';

/** How long after a question the call it asked about counts as let through by the person when it runs. */
const OVERRIDE_WINDOW_MS = 10 * 60_000;
/** The same decision on the same call within this is one decision (two hook files ran it). */
const REPEAT_WINDOW_MS = 60_000;

/** A pending or finished tool call, as a hook reports it. */
export interface HookCall {
  /** pre: before the call runs (decide); post: it ran (or failed). */
  event: 'pre' | 'post';
  host: string;
  tool: string;
  input?: unknown;
  session?: string;
  call_id?: string;
  /** Where the agent works: relative paths are read from it. */
  cwd?: string;
  /** The project whose rules apply (null: global only); absent: the connection's. */
  project?: string | null;
}

export interface HookAnswer {
  decision: Verdict;
  reason: string;
  rules: { id: string; statement: string; may: 'deny' | 'ask'; set_by: string; matched: string }[];
  /** Decisions newly recorded on the rules (a repeat of the same call records none). */
  recorded: number;
}

/**
 * A person states a rule (in the connection's project, or `project`; null: everywhere): an item of
 * their authority, with the check its words state exactly (ingest/checks.ts), if any. The same
 * rule said again is the rule already held.
 */
export function addRule(mem: JournaledGraph, input: { statement: string; project?: string | null }, by: Provenance): FactView {
  requireHuman(by, 'state a rule directly');
  const project = input.project !== undefined ? input.project : (by.project ?? null);
  const read = new KnowledgeWriter(mem).read({
    kind: 'rule',
    statement: input.statement,
    subject: project ?? 'global',
    // Whose word it is, as a turn's speaker would be: the person's (an authority a teammate's memory takes).
    assertedBy: 'user',
    prior: 'explicit',
    project,
  });
  if (read.event) mem.commit([read.event], by);
  return mem.graph.factById(read.id)!;
}

/** A person sets (or, with null, removes) the check on a rule, or on a decision or preference to keep to. */
export function setCheck(mem: JournaledGraph, input: { id: string; check: unknown }, by: Provenance): FactView {
  requireHuman(by, 'set a check on a rule');
  requireFact(mem.graph, input.id);
  const fact = mem.graph.factById(input.id)!;
  if (!fact.kind || !HOLDING_KINDS.has(fact.kind))
    throw invalid(
      `${fact.id} is ${fact.kind ? `a ${fact.kind}` : 'a plain fact'}; a check goes on a rule (or a decision or preference).`,
      'See the rules with `recall rule list`.',
    );
  if (fact.status !== 'current') throw invalid(`${fact.id} is ${fact.status}; a check goes on a rule that holds.`);
  const check = input.check === null ? null : checkOf(input.check);
  mem.commit([{ type: 'relationship.check', id: fact.id, check }], by);
  return mem.graph.factById(fact.id)!;
}

/** The current rules of a project and the global memory: with checks (`checked`), or every rule and checked item. */
export function rulesOf(mem: JournaledGraph, project: string | null, opts: { checked?: boolean; limit?: number } = {}): FactView[] {
  const which = opts.checked ? 'check_spec IS NOT NULL' : "(kind = 'rule' OR check_spec IS NOT NULL)";
  const ids = all(
    mem.db,
    `SELECT id FROM relationships WHERE ${which} AND valid_to IS NULL AND (project IS NULL OR project = ?) ORDER BY rowid DESC LIMIT ?`,
    [project, Math.min(opts.limit ?? LIMITS.hookRules, LIMITS.hookRules)],
  ).map((r) => String(r.id));
  return ids.flatMap((id) => mem.graph.factById(id) ?? []);
}

/**
 * What a hook needs when the service is not running (model/hook-cache.ts): the global rules with
 * checks and each project's own.
 */
export function checkedRulesByProject(mem: JournaledGraph): { global: CheckedRule[]; projects: Record<string, CheckedRule[]> } {
  const projects: Record<string, CheckedRule[]> = {};
  const keys = all(
    mem.db,
    'SELECT DISTINCT project FROM relationships WHERE check_spec IS NOT NULL AND valid_to IS NULL AND project IS NOT NULL LIMIT ?',
    [LIMITS.hookRules],
  );
  for (const { project } of keys) projects[String(project)] = checkedRules(mem, String(project), 'own');
  return { global: checkedRules(mem, null, 'own'), projects };
}

/** A project's rules with checks and the global ones (`own`: only those in `project`, null the global). */
function checkedRules(mem: JournaledGraph, project: string | null, which: 'with-global' | 'own' = 'with-global'): CheckedRule[] {
  const where = which === 'own' ? 'r.project IS ?' : '(r.project IS NULL OR r.project = ?)';
  const rows = all(
    mem.db,
    `SELECT r.id, r.statement, r.authority, r.pinned, r.pinned_by, r.check_spec, r.check_by, s.name AS subject, r.predicate, o.name AS object
       FROM relationships r JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
      WHERE r.check_spec IS NOT NULL AND r.valid_to IS NULL AND ${where} ORDER BY r.rowid DESC LIMIT ?`,
    [project, LIMITS.hookRules],
  );
  return rows.map((r) => ({
    id: String(r.id),
    statement: String(r.statement ?? `${String(r.subject)} ${String(r.predicate)} ${String(r.object)}`),
    authority: r.authority as Authority,
    // A teammate's confirmation is theirs: only this memory's person makes a rule binding here.
    confirmed: Number(r.pinned) === 1 && !r.pinned_by,
    check: JSON.parse(String(r.check_spec)),
    setter: r.check_by as CheckSetter,
  }));
}

/**
 * What to do with the call, and what was decided recorded on each rule it concerned (at the
 * hook's authority); `recorded`: how many decisions were new.
 */
export function hookCheck(mem: JournaledGraph, call: HookCall, by: Provenance, workspace?: string): HookAnswer {
  const { decision, events } = plan(mem, call, by, workspace);
  if (events.length) mem.commit(events, by);
  return {
    decision: call.event === 'pre' ? decision.decision : 'allow',
    reason: call.event === 'pre' ? decision.reason : '',
    rules: decision.hits.map((h) => ({
      id: h.rule.id,
      statement: h.rule.statement,
      may: h.may,
      set_by: whoSet(h.rule),
      matched: h.match.what,
    })),
    recorded: events.length,
  };
}

function plan(mem: JournaledGraph, call: HookCall, by: Provenance, workspace?: string): { decision: Decision; events: EventBody[] } {
  if (call === null || typeof call !== 'object' || typeof call.tool !== 'string' || !call.tool.trim())
    throw invalid('A hook call names its tool: { event, host, tool, input }.');
  const project = call.project !== undefined ? call.project : (by.project ?? null);
  const toolCall = toolCallOf(call.tool, call.input, workspace, call.cwd ?? workspace);
  const decision = decide(checkedRules(mem, project), toolCall);
  const events: EventBody[] = [];
  const base = { host: bounded(call.host), tool: bounded(call.tool), session: call.session, callId: call.call_id };
  const add = (id: string, outcome: CheckOutcome, what: string): void => {
    const text = redactSecrets(what).text.slice(0, LIMITS.hookCallChars);
    if (!recorded(mem, id, outcome, text, call)) events.push({ type: 'check.outcome', id, outcome, ...base, call: text });
  };
  if (call.event === 'pre') {
    for (const h of decision.hits) add(h.rule.id, decision.decision === 'deny' ? 'blocked' : 'asked', h.match.what);
    for (const r of decision.followed) add(r.id, 'complied', firstOf(toolCall));
  } else {
    for (const h of decision.hits) if (askedBefore(mem, h.rule.id, h.match.what, call)) add(h.rule.id, 'overridden', h.match.what);
  }
  return { decision, events };
}

const bounded = (s: string | undefined): string | undefined => s?.slice(0, LIMITS.nameChars);
const firstOf = (c: ToolCall): string => c.commands[0] ?? c.paths[0] ?? c.urls[0] ?? c.tool;
const since = (ms: number): string => new Date(Date.now() - ms).toISOString();

/**
 * Whether this decision on this call is already recorded: the same tool call id, or (without one)
 * the same session and call moments ago; a rule kept to counts once a session.
 */
function recorded(mem: JournaledGraph, id: string, outcome: CheckOutcome, text: string, call: HookCall): boolean {
  const rowid = resolveId(mem.db, 'rel', id);
  const where =
    outcome === 'complied'
      ? call.session
        ? ['session = ?', [call.session]]
        : ['call = ? AND at > ?', [text, since(REPEAT_WINDOW_MS)]]
      : call.call_id
        ? ['call_id = ?', [call.call_id]]
        : ['session IS ? AND call = ? AND at > ?', [call.session ?? null, text, since(REPEAT_WINDOW_MS)]];
  return (
    scalar(
      mem.db,
      `SELECT 1 FROM check_outcomes o JOIN relationships r ON r.rowid = o.relationship_rowid
        WHERE r.id = ? AND o.outcome = ? AND ${where[0] as string} LIMIT 1`,
      [rowid, outcome, ...(where[1] as unknown[])],
    ) !== undefined
  );
}

/** A question this hook asked about the same call (its id, or the same session and call lately), not yet answered by the call running. */
function askedBefore(mem: JournaledGraph, id: string, what: string, call: HookCall): boolean {
  const text = redactSecrets(what).text.slice(0, LIMITS.hookCallChars);
  const same = call.call_id ? 'o.call_id = ?' : 'o.session IS ? AND o.call = ? AND o.at > ?';
  const params = call.call_id ? [call.call_id] : [call.session ?? null, text, since(OVERRIDE_WINDOW_MS)];
  return (
    scalar(
      mem.db,
      `SELECT 1 FROM check_outcomes o JOIN relationships r ON r.rowid = o.relationship_rowid
        WHERE r.id = ? AND o.outcome = 'asked' AND ${same} LIMIT 1`,
      [resolveId(mem.db, 'rel', id), ...params],
    ) !== undefined
  );
}
