/**
 * Recording knowledge items (model/knowledge.ts), from wherever they are read: the offline
 * extractor, a model's reading, an agent's `recall_remember`, the memory files people keep. One
 * item per piece of knowledge: the same rule said again, in the same or other words, is new evidence
 * for the item already held (same project, a kind of the same family, the same statement by
 * knowledge-same.ts), not a second item; so is one a person said is the same as an item held.
 */
import { authorityRank, type Authority, type PriorKind } from '../model/config.js';
import { checkFromStatement } from '../ingest/checks.js';
import { invalid } from '../model/errors.js';
import type { EventBody } from '../model/events.js';
import { FAMILY, isKnowledgeKind, type KnowledgeKind } from '../model/knowledge.js';
import { LIMITS } from '../model/limits.js';
import { heldItems, sameItems, stillHeld, stillSame, stillWrong, wrongItems, type HeldItem } from '../store/held-items.js';
import { all } from '../store/sqlite.js';
import type { JournaledGraph } from './journaled-graph.js';
import { sameStatement, statementKey, type StatementKey } from './knowledge-same.js';
import { validName } from './validate.js';

/** Items of a kind compared against when a new one is read (the newest held in its project). */
const COMPARED = 2_000;

/**
 * The keys of held statements, kept between writes: every new item is compared with up to COMPARED
 * held ones, and making their keys again each time made ingest slow down as items accumulated.
 * A statement's key depends on its text alone; the oldest are dropped past the bound.
 */
const HELD_KEYS = 4 * COMPARED;
const heldKeys = new Map<string, StatementKey>();
function heldKey(statement: string): StatementKey {
  let key = heldKeys.get(statement);
  if (!key) {
    key = statementKey(statement);
    heldKeys.set(statement, key);
    if (heldKeys.size > HELD_KEYS) heldKeys.delete(heldKeys.keys().next().value!);
  }
  return key;
}
export interface KnowledgeCandidate {
  kind: KnowledgeKind;
  /** The sentence, in the words of whoever said it. */
  statement: string;
  /** What it is about: an entity's name. */
  subject: string;
  /** The other end when there is one (a decision's choice: "Postgres"); default: the subject. */
  object?: string;
  /** The turn it was read from, when it was read from one. */
  evidence?: string;
  /** Whose word it rests on: the turn's speaker's authority, or the agent's for a model's reading. */
  assertedBy: Authority;
  /** A language model read it: weighed as the agent's whoever spoke. */
  extractedBy?: string;
  project: string | null;
  prior?: PriorKind;
  /**
   * Read from a file (a memory file, read again at every start), not said anew: like any word but the
   * person's own (an agent's, a model's, a repository's), it does not bring back what the person
   * marked wrong; what a teammate marked wrong it does, when the file is the person's own.
   */
  fromFile?: boolean;
}

/** A statement as stored: one line, trimmed, within LIMITS.statementChars. */
export function statementOf(v: unknown): string {
  if (typeof v !== 'string' || !v.trim()) throw invalid('A knowledge item needs a statement: the sentence itself.');
  const s = v.replace(/\s+/g, ' ').trim();
  if (s.length > LIMITS.statementChars)
    throw invalid(
      `The statement is ${s.length} characters; keep it under ${LIMITS.statementChars}.`,
      'State one rule or decision at a time.',
    );
  return s;
}

/** A rule whose words state a check exactly carries it from the start (ingest/checks.ts). */
function ruleCheck(kind: KnowledgeKind, statement: string): { check?: ReturnType<typeof checkFromStatement> } {
  const check = kind === 'rule' ? checkFromStatement(statement) : undefined;
  return check ? { check } : {};
}

/**
 * Events recording candidates: an item already held (or read earlier in this batch) gains the
 * turn as evidence; a new one is asserted with the next ids. `idOffset`: ids already handed out in
 * the same commit.
 */
/** An item this writer has met: read in this batch, or found held. */
type Met = { id: string; kind: KnowledgeKind; project: string | null; key: StatementKey; cited: Set<string> };

/** A turn as an item's evidence, once: the event recording it, none when it already counts (or there is no turn). */
function cite(held: Met, evidence: string | undefined, extractedBy: string | undefined): { id: string; event?: EventBody } {
  if (evidence === undefined || held.cited.has(evidence)) return { id: held.id };
  held.cited.add(evidence);
  return { id: held.id, event: { type: 'relationship.evidence', id: held.id, episode: evidence, polarity: 1, extractedBy } };
}

export class KnowledgeWriter {
  private readonly batch: Met[] = [];
  private asserted = 0;

  constructor(
    private readonly mem: JournaledGraph,
    private readonly idOffset = 0,
  ) {}

  /** How many new relationship ids this writer handed out (for the next writer in the same commit). */
  get used(): number {
    return this.asserted;
  }

  /** The item it is recorded under and the event recording it; `rejected`: a person marked it wrong (that item), nothing recorded. */
  read(c: KnowledgeCandidate): { id: string; event?: EventBody; rejected?: true } {
    if (!isKnowledgeKind(c.kind))
      throw invalid(`"${String(c.kind)}" is not a kind of knowledge (decision, rule, preference, fact, lesson).`);
    const statement = statementOf(c.statement);
    const subject = validName(c.subject, 'subject');
    const object = c.object === undefined ? subject : validName(c.object, 'object');
    const key = statementKey(statement);
    const mine = authorityRank(c.assertedBy) >= authorityRank('user');
    const anew = !c.fromFile && mine;
    // Marked wrong, a statement stays out unless said anew; a teammate's verdict does not keep out the person's own words.
    const heldBack = (wrongBy: string | undefined): boolean => !anew && (wrongBy === undefined || !mine);
    const wrong = this.markedWrong(c.kind, c.project, key, heldBack);
    if (wrong) return { id: wrong, rejected: true };
    const held = this.find(c.kind, c.project, key);
    if (held) return cite(held, c.evidence, c.extractedBy);
    const same = this.sameAsHeld(c.kind, c.project, key, heldBack);
    if (same && 'wrong' in same) return { id: same.wrong, rejected: true };
    if (same) return cite(same, c.evidence, c.extractedBy);
    const id = this.mem.graph.nextId('rel', this.idOffset + this.asserted++);
    this.batch.push({ id, kind: c.kind, project: c.project, key, cited: new Set(c.evidence ? [c.evidence] : []) });
    return {
      id,
      event: {
        type: 'relationship.assert',
        id,
        subject,
        predicate: c.kind,
        object,
        prior: c.prior ?? 'inferred',
        ...(c.evidence ? { evidence: [c.evidence] } : {}),
        assertedBy: c.assertedBy,
        ...(c.extractedBy ? { extractedBy: c.extractedBy } : {}),
        project: c.project,
        kind: c.kind,
        statement,
        ...ruleCheck(c.kind, statement),
      },
    };
  }

  /**
   * An item held that a model judged a turn to say again, in other words: the turn becomes its
   * evidence once, weighed as the model's (extractedBy). Undefined when the id is no current item
   * of the turn's project or of the global memory (it may have ended since the model was asked).
   */
  restated(id: string, evidence: string, extractedBy: string, project: string | null): { id: string; event?: EventBody } | undefined {
    const f = this.mem.graph.factById(id);
    const of = f?.project ?? null;
    if (!f || f.kind === undefined || f.statement === undefined || f.valid_to !== null || (of !== project && of !== null)) return undefined;
    let held = this.batch.find((b) => b.id === id);
    if (!held) {
      held = { id, kind: f.kind, project: of, key: heldKey(f.statement), cited: new Set(f.evidence) };
      this.batch.push(held);
    }
    return cite(held, evidence, extractedBy);
  }

  /** The item of this kind's family and project marked wrong (not confirmed since) whose statement says the same, where that verdict holds it back. */
  private markedWrong(
    kind: KnowledgeKind,
    project: string | null,
    key: StatementKey,
    heldBack: (wrongBy: string | undefined) => boolean,
  ): string | undefined {
    const family: readonly string[] = FAMILY[kind];
    const db = this.mem.db;
    return wrongItems(db, project, COMPARED).find(
      (w) => heldBack(w.wrongBy) && family.includes(w.kind) && sameStatement(heldKey(w.statement), key) && stillWrong(db, w),
    )?.id;
  }

  /**
   * The item a person said is the same as an item of this family and project whose statement says
   * the same: current, it is where the statement counts; marked wrong, the statement stays out
   * where that verdict holds it back (as for `markedWrong`); otherwise (it ended since) nothing.
   */
  private sameAsHeld(
    kind: KnowledgeKind,
    project: string | null,
    key: StatementKey,
    heldBack: (wrongBy: string | undefined) => boolean,
  ): Met | { wrong: string } | undefined {
    const family: readonly string[] = FAMILY[kind];
    const db = this.mem.db;
    const said = sameItems(db, project, COMPARED).find(
      (s) => family.includes(s.kind) && sameStatement(heldKey(s.statement), key) && stillSame(db, s),
    );
    const [target] = said
      ? all(db, 'SELECT rowid, id, kind, statement, valid_to, ended_by, wrong_by, project FROM relationships WHERE id = ?', [said.sameAs])
      : [];
    if (!target || (target.project ?? null) !== project || !family.includes(String(target.kind))) return undefined;
    if (target.valid_to === null)
      return this.met(
        { rowid: Number(target.rowid), id: String(target.id), kind: String(target.kind), statement: String(target.statement ?? '') },
        project,
      );
    const wrongBy = target.wrong_by ? String(target.wrong_by) : undefined;
    return target.ended_by === 'wrong' && heldBack(wrongBy) ? { wrong: String(target.id) } : undefined;
  }

  /** A held item as this writer meets it: once per batch, with the turns it already cites. */
  private met(r: HeldItem, project: string | null): Met {
    const inBatch = this.batch.find((b) => b.id === r.id);
    if (inBatch) return inBatch;
    const cited = all(this.mem.db, 'SELECT episode_id FROM evidence WHERE relationship_rowid = ? AND episode_id IS NOT NULL', [r.rowid]);
    const found = {
      id: r.id,
      kind: r.kind as KnowledgeKind,
      project,
      key: heldKey(r.statement),
      cited: new Set(cited.map((e) => String(e.episode_id))),
    };
    this.batch.push(found);
    return found;
  }

  /** The item of this kind's family and project, in this batch or held, whose statement says the same. */
  private find(kind: KnowledgeKind, project: string | null, key: StatementKey): Met | undefined {
    const family = FAMILY[kind];
    const inBatch = this.batch.find((b) => family.includes(b.kind) && b.project === project && sameStatement(b.key, key));
    if (inBatch) return inBatch;
    const items = heldItems(this.mem.db, family, project, COMPARED);
    for (let i = items.length - 1; i >= 0; i--) {
      const r = items[i]!;
      const theirs = heldKey(r.statement);
      if (!sameStatement(theirs, key) || !stillHeld(this.mem.db, items, i, family, project)) continue;
      return this.met(r, project);
    }
    return undefined;
  }
}
