/**
 * A note stored on purpose (`recall_remember`, `recall remember`), in the shape of Copilot's own
 * memory tool: the fact, what it is about, the code it cites and why. With a kind it is also a
 * knowledge item (knowledge.ts: one item per piece of knowledge), asserted at the writer's
 * authority (an agent's over MCP: a person confirms it) with the note as its evidence. Each
 * citation (`src/db.ts:10-20`) that names code in the writer's workspace becomes an anchor on the
 * note, which the item reads as its own, so the item goes stale when the cited lines change; a
 * citation that names nothing there is reported back, never silently dropped.
 */
import { anchorsIn, SourceFiles } from '../anchors/resolve.js';
import { findCodeRefs } from '../anchors/detect.js';
import { readKnowledge } from '../ingest/knowledge-read.js';
import { redactSecrets } from '../ingest/redact.js';
import type { CodeAnchor } from '../model/code-anchors.js';
import { invalid } from '../model/errors.js';
import type { EpisodeInput, EventBody, Provenance } from '../model/events.js';
import { isKnowledgeKind, KNOWLEDGE_KINDS, SUPERSEDING_KINDS, type KnowledgeKind } from '../model/knowledge.js';
import { LIMITS } from '../model/limits.js';
import { dedupe, storedAnchors } from './anchors.js';
import type { JournaledGraph } from './journaled-graph.js';
import { KnowledgeWriter, statementOf } from './knowledge.js';
import { projectOf, validName } from './validate.js';
import { ingest } from './writes.js';

export interface RememberInput extends EpisodeInput {
  /** A knowledge item too: decision, rule, preference, fact or lesson. */
  kind?: KnowledgeKind;
  /** What it is about (an entity's name); default: the first of `entities`. */
  subject?: string;
  /** Code places it rests on: `path`, `path:10`, `path:10-20`, `path#L10-L20`, relative to the workspace. */
  citations?: string[];
  /** Why it is worth keeping; stored with the note. */
  reason?: string;
}

export interface RememberResult {
  /** The note (an episode). */
  id: string;
  duplicate: boolean;
  /** The knowledge item, when a kind was given (an item already held gains the note as evidence). */
  item?: string;
  /** An agent's item a person had marked wrong (that item's id): the note is stored, no item is. */
  wrong?: string;
  /** Citations anchored, and those naming nothing in the workspace (with why). */
  anchored?: string[];
  unanchored?: { citation: string; why: string }[];
}

/** Stores the note, its item and its citations' anchors (see above). */
export function remember(mem: JournaledGraph, input: RememberInput, by: Provenance, workspace?: string): RememberResult {
  const { kind, subject, citations, reason, ...note } = checked(input);
  const about = subject ?? note.entities?.[0];
  if (kind !== undefined && about === undefined)
    throw invalid('A knowledge item needs a subject: what the rule, decision or lesson is about.', 'Give "subject" (or an entity).');
  const entities = about === undefined || note.entities?.includes(about) ? note.entities : [about, ...(note.entities ?? [])];
  const text = reason ? `${note.text}\n(Why: ${reason})` : note.text;
  // The item's statement is the fact alone, its secrets redacted as the note's are, checked before anything is written.
  const statement = kind === undefined ? undefined : statementOf(redactSecrets(note.text).text);
  const stored = ingest(mem, [{ ...note, text, ...(entities ? { entities } : {}) }], by, workspace, kind === undefined).results[0]!;

  const cited = citedAnchors(citations ?? [], workspace);
  const events: EventBody[] = [];
  if (cited.anchors.length) {
    const anchors = dedupe([...(storedAnchors(mem.db, stored.id) ?? []), ...cited.anchors]).slice(0, LIMITS.anchorsPerEvent);
    events.push({ type: 'anchors.set', target: stored.id, anchors });
  }
  let item: string | undefined;
  let wrong: string | undefined;
  if (kind !== undefined && statement !== undefined && about !== undefined) {
    const choice = choiceIn(kind, statement);
    const read = new KnowledgeWriter(mem).read({
      kind,
      statement,
      subject: redactSecrets(about).text,
      ...(choice ? { object: choice } : {}),
      evidence: stored.id,
      assertedBy: by.authority,
      project: projectOf(note.project, by),
      prior: 'explicit',
    });
    if (read.rejected) wrong = read.id;
    else item = read.id;
    if (read.event) events.push(read.event);
    // An item held with anchors of its own (a memory file's lines) reads those, not its evidence's: add the citations there.
    const own = item && storedAnchors(mem.db, item);
    if (item && own && cited.anchors.length)
      events.push({ type: 'anchors.set', target: item, anchors: dedupe([...own, ...cited.anchors]).slice(0, LIMITS.anchorsPerEvent) });
  }
  if (events.length) mem.commit(events, by);
  return {
    ...stored,
    ...(item ? { item } : {}),
    ...(wrong ? { wrong } : {}),
    ...(citations?.length ? { anchored: cited.anchored, unanchored: cited.unanchored } : {}),
  };
}

/**
 * The choice a decision or preference names ("Switch the database to SQLite": SQLite), read as the
 * offline reader reads a person's turn, so a later choice on the same subject supersedes it. None
 * read: the item names its subject alone, and ends only by a choice that names one.
 */
function choiceIn(kind: KnowledgeKind, statement: string): string | undefined {
  if (!SUPERSEDING_KINDS.has(kind)) return undefined;
  return readKnowledge({ text: statement, role: 'user' }).find((r) => r.object !== undefined)?.object;
}

function checked(input: RememberInput): RememberInput {
  if (input === null || typeof input !== 'object') throw invalid('Give { text }: the note.');
  const { kind, subject, citations, reason } = input;
  if (kind !== undefined && !isKnowledgeKind(kind))
    throw invalid(
      `"${String(kind)}" is not a kind of knowledge.`,
      `Use one of ${KNOWLEDGE_KINDS.join(', ')}, or leave it out for a plain note.`,
    );
  if (subject !== undefined) validName(subject, 'subject');
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > LIMITS.noteChars))
    throw invalid(`"reason" is text of at most ${LIMITS.noteChars} characters.`);
  if (citations !== undefined) {
    if (!Array.isArray(citations) || citations.length > LIMITS.citations)
      throw invalid(`"citations" is a list of at most ${LIMITS.citations} code places such as src/db.ts:10-20.`);
    for (const c of citations) if (!isCitation(c)) throw invalid(`"${String(c).slice(0, 80)}" is not a code place.`, CITATION_HINT);
  }
  return input;
}

const CITATION_HINT =
  'Cite a file relative to the workspace, with its lines when they matter: src/db.ts, src/db.ts:10-20 or src/db.ts#L10-L20.';

/** One relative path with an optional line range, nothing else. */
function isCitation(c: unknown): c is string {
  if (typeof c !== 'string' || c.length > LIMITS.sourceChars) return false;
  const refs = findCodeRefs(c.trim()).paths;
  if (refs.length !== 1 || c.trim().startsWith('/') || c.includes('..')) return false;
  const written = c.trim().replace(/^\.\//, '');
  return written.startsWith(refs[0]!.path) && /^(?::\d+(?:[-–]\d+)?|#L\d+(?:-L?\d+)?)?$/.test(written.slice(refs[0]!.path.length));
}

/** The anchors the citations give in the workspace, and the citations that give none. */
function citedAnchors(
  citations: string[],
  workspace: string | undefined,
): { anchors: CodeAnchor[]; anchored: string[]; unanchored: { citation: string; why: string }[] } {
  const out = { anchors: [] as CodeAnchor[], anchored: [] as string[], unanchored: [] as { citation: string; why: string }[] };
  const at = new Date().toISOString();
  const files = new SourceFiles();
  for (const citation of citations) {
    const found = workspace ? anchorsIn(citation, workspace, at, files) : [];
    if (found.length) {
      out.anchors.push(...found);
      out.anchored.push(citation);
    } else
      out.unanchored.push({
        citation,
        why: workspace
          ? 'no such file or lines in the workspace (or too little text to anchor on)'
          : 'this connection names no workspace, so no code is read',
      });
  }
  return out;
}
