/**
 * The journal's vocabulary. State is a fold over these events (the graph applies them in order),
 * so every change to the memory is one of them, carrying its id, time and provenance.
 */
import type { Check, CheckOutcome } from './checks.js';
import type { CodeAnchor } from './code-anchors.js';
import type { Authority, PriorKind } from './config.js';
import type { KnowledgeKind } from './knowledge.js';

export interface Provenance {
  /** Who asserted it; decided by the connection's surface, never by a tool's arguments. */
  authority: Authority;
  /** Where it came from: a file, a tool, the CLI. */
  source?: string;
  session?: string;
  /** The client's id for the write request, so a retry replayed after a restart is not applied twice. */
  rid?: string;
  /** The connection's project (project.ts key); null: the person's own (global) memory; absent: none known. */
  project?: string | null;
  /** The person behind a shared event (config `sync.author`, else git's user.email); set when it leaves this memory. */
  author?: string;
}

export interface EpisodeInput {
  text: string;
  speaker?: string;
  role?: string;
  source?: string;
  session?: string;
  /** Turn coordinates inside the source, e.g. a LoCoMo dia_id or a line number. */
  ref?: string;
  /** ISO time the episode happened; defaults to the event time. */
  time?: string;
  entities?: string[];
  /** Authority of this turn when it differs from the connection's (an imported assistant turn is `agent`). */
  authority?: Authority;
  /** The project the turn belongs to (a key from project.ts); null: global. Absent: the connection's. */
  project?: string | null;
  /** The session's title as its tool shows it (Copilot's custom title, Claude Code's summary): the Episodes view names the session by it. */
  sessionTitle?: string;
  /**
   * The turn's place among the same words by the same speaker in its session (ingest/identity.ts),
   * when an importer read the whole file: the turn is then known by session and content, not by
   * where it was read from. Not stored; it only shapes the turn's hash.
   */
  key?: string;
}

export interface EpisodeRecord extends EpisodeInput {
  id: string;
  hash: string;
  authority: Authority;
  /** How many secrets were redacted from the text before it was stored. */
  redactions?: number;
  /** Always set by writers since projects exist (null = global); absent only in older journals (migrated on replay). */
  project?: string | null;
}

export type EventBody =
  | { type: 'episodes.add'; episodes: EpisodeRecord[] }
  | { type: 'entity.upsert'; name: string; entityType?: string; aliases?: string[]; summary?: string }
  /** A person's correction: `alias` is not a name of `name`, and is not learned for it again. */
  | { type: 'entity.unalias'; name: string; alias: string }
  | {
      type: 'relationship.assert';
      id: string;
      subject: string;
      predicate: string;
      object: string;
      prior: PriorKind;
      evidence?: string[];
      /** Whose word the fact rests on when it is not the connection's (a fact extracted from a turn is the turn's speaker's). */
      assertedBy?: Authority;
      /** A language model read this fact from the evidence: its reading weighs as the agent's, whoever spoke. */
      extractedBy?: string;
      /** The project the fact belongs to (its evidence turn's); null: global. Absent in older journals. */
      project?: string | null;
      /** A knowledge item (knowledge.ts): its kind, and the statement in the words of whoever said it. */
      kind?: KnowledgeKind;
      statement?: string;
      /** A rule's check, read from its statement (ingest/checks.ts). */
      check?: Check;
    }
  | { type: 'relationship.evidence'; id: string; episode?: string; polarity: 1 | -1; extractedBy?: string }
  | { type: 'relationship.correct'; id: string; verdict: 'wrong' | 'confirm'; reason?: string }
  /**
   * The file a knowledge item was read from no longer says it (its lines were deleted): the item
   * ends, kept under history, with no evidence against it. Neither a person's verdict nor a
   * supersession: its source withdrew it. A confirmed (pinned) item stays: the person vouched for it.
   * With `sameAs`, a person's correction instead: the item says what that one says (its evidence was
   * cited there); it ends, superseded by it, and what says it again is that item's evidence.
   */
  | { type: 'relationship.retract'; id: string; reason: string; sameAs?: string }
  | {
      type: 'entity.forget';
      name: string;
      episodes: string[];
      relationships: string[];
      /** A forget from the team, applied only within what this memory shares: the entity stays for what it keeps. */
      keepEntity?: boolean;
    }
  | {
      /** A person moves memories to another project (null = global): those of project `from`, of a source, of a session. */
      type: 'project.assign';
      project: string | null;
      from?: string | null;
      source?: string;
      session?: string;
    }
  /** A person adds, changes (`check`) or removes (null) the check on a rule. */
  | { type: 'relationship.check'; id: string; check: Check | null }
  /** A hook's decision on a tool call a rule's check was about (model/checks.ts CHECK_OUTCOMES). */
  | {
      type: 'check.outcome';
      id: string;
      outcome: CheckOutcome;
      /** The agent host (claude, vscode, copilot), its tool, and what of the call met the check (secrets redacted). */
      host?: string;
      tool?: string;
      call?: string;
      session?: string;
      /** The host's id of the tool call, when it gives one: a later "the call ran" finds the question it answers. */
      callId?: string;
    }
  /** Where an episode or fact points into the code; replaces the target's anchors (an empty list: a fact's own, none). */
  | { type: 'anchors.set'; target: string; anchors: CodeAnchor[] };

export type MemoryEvent = EventBody & {
  /** Position in the journal, 1-based and dense. */
  seq: number;
  /** ISO time the event was recorded. */
  at: string;
  by: Provenance;
  /** The memory that wrote it, when that is another one (team sync); absent: this memory. */
  origin?: string;
  /** Its seq in that memory: with `origin`, what makes applying it twice impossible. */
  originSeq?: number;
};
