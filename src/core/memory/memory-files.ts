/**
 * A memory file read into the memory (ingest/memory-files.ts says which files are; ingest/
 * memory-file-items.ts what items they hold). Each item is recorded through KnowledgeWriter, with
 * its own words stored as the evidence turn (source and session: the file; ref: its lines), at the
 * authority of whoever wrote the file (service/authorship.ts: the person's, or its committers'),
 * and anchored to its lines, so a reader sees it stale once those lines change.
 *
 * Reading the file again brings it up to date in one commit: an item still there is re-anchored
 * where its lines are now; a new one is added; an item whose lines are gone is retracted (ended,
 * kept under history, `relationship.retract`), unless something other than this file says it too
 * (another file, a conversation), in which case only its anchor here goes. A file that is gone is
 * read as empty. Reading an unchanged file writes nothing.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { hashable, hashLines } from '../anchors/reading.js';
import { turnsAsWritten, type Authorship } from '../ingest/authorship.js';
import { memoryFileItems, type MemoryFileItem } from '../ingest/memory-file-items.js';
import { checkMemoryFileSize, memoryFileType, notMemoryFile, type MemoryFileType } from '../ingest/memory-files.js';
import { droppedImports, importedFileType, importsFiles } from '../ingest/memory-imports.js';
import { redactSecrets } from '../ingest/redact.js';
import type { CodeAnchor } from '../model/code-anchors.js';
import { invalid } from '../model/errors.js';
import type { EpisodeInput, EpisodeRecord, EventBody, Provenance } from '../model/events.js';
import type { KnowledgeKind } from '../model/knowledge.js';
import { LIMITS } from '../model/limits.js';
import { gitRoot, pathWithin } from '../model/project.js';
import { all, scalar } from '../store/sqlite.js';
import { storedAnchors } from './anchors.js';
import type { JournaledGraph } from './journaled-graph.js';
import { KnowledgeWriter } from './knowledge.js';
import { episodeRecord, normaliseTime, projectOf, requireHuman } from './validate.js';

export interface MemoryFileInput {
  /** The file's absolute path: where its items are anchored, and the session its evidence is filed under. */
  file: string;
  /** Its text as read now; empty when the file is gone. */
  text: string;
  /** Who wrote it: the person (`user`), or others (`external`, with their emails). */
  written: Pick<Authorship, 'authority' | 'authors'>;
  /** When it was last modified (ISO): the time of the items first read from it. Default: now. */
  time?: string;
  /** The project its items belong to (null: global); default: the connection's. */
  project?: string | null;
  /** The CLAUDE.md that imports it (`@path`), when it is no memory file by its own name (ingest/memory-imports.ts). */
  importedBy?: string;
}

export interface MemoryFileResult {
  file: string;
  /** What kind of memory file it is ("AGENTS.md", "Cursor rule", …). */
  label: string;
  /** Items read from it now, and of them: new to the memory, already held. */
  items: number;
  added: number;
  held: number;
  /** Items it no longer says, ended (with those of the files it no longer imports). */
  ended: number;
  /** Items it says that a person marked wrong: not held again (confirming the item brings it back). */
  rejected?: number;
  /** Files this CLAUDE.md imported and no longer does (nor does another beside it): their items ended too. */
  unimported?: string[];
  kinds: Partial<Record<KnowledgeKind, number>>;
  ids: string[];
}

/** Reads a memory file's items into the memory (see above); a person's act (the CLI, the extension). */
export function readMemoryFile(mem: JournaledGraph, input: MemoryFileInput, by: Provenance, workspace?: string): MemoryFileResult {
  requireHuman(by, 'read a memory file into the memory');
  const { file, text, written, type } = checked(input);
  const project = projectOf(input.project, by);
  const { root, rel } = anchorRoot(file, workspace);
  const time = input.time === undefined ? new Date().toISOString() : normaliseTime(input.time);
  const items = text ? memoryFileItems(text, type, rel) : [];
  const lines = text.split(/\r?\n/);

  // Each item's words, the turn it rests on: known by the file and its words (and their occurrence), not by their line.
  const occurrences = new Map<string, number>();
  const inputs: EpisodeInput[] = items.map((item) => {
    const n = (occurrences.get(item.text) ?? 0) + 1;
    occurrences.set(item.text, n);
    return {
      text: item.text,
      speaker: 'user',
      role: 'memory file',
      source: file,
      session: file,
      sessionTitle: rel,
      ref: `L${item.startLine}-${item.endLine}`,
      time,
      entities: [redactSecrets(item.subject).text],
      project,
      key: String(n),
    };
  });
  const records: EpisodeRecord[] = [];
  const episodeIds = turnsAsWritten(inputs, { ...written, reason: '' }).map((e) => {
    const record = episodeRecord(e, by, mem.graph.nextId('ep', records.length), mem.config.maxTextChars);
    const held = mem.graph.episodeIdByHash(record.hash) ?? records.find((r) => r.hash === record.hash)?.id;
    if (held) return held;
    records.push(record);
    return record.id;
  });

  const writer = new KnowledgeWriter(mem);
  const knowledge: EventBody[] = [];
  const ids: string[] = [];
  const kinds: MemoryFileResult['kinds'] = {};
  const here = new Map<string, CodeAnchor | null>();
  let rejected = 0;
  items.forEach((item, i) => {
    const statement = redactSecrets(item.statement);
    const read = writer.read({
      kind: item.kind,
      statement: statement.text,
      subject: redactSecrets(item.subject).text,
      evidence: episodeIds[i],
      assertedBy: written.authority,
      project,
      prior: 'explicit',
      // Read again, the file is not the person saying it anew: what they marked wrong stays wrong.
      fromFile: true,
    });
    kinds[item.kind] = (kinds[item.kind] ?? 0) + 1;
    if (read.rejected) return void rejected++;
    if (read.event) knowledge.push(read.event);
    if (!ids.includes(read.id)) ids.push(read.id);
    here.set(read.id, here.get(read.id) ?? anchorOf(item, lines, root, rel, statement.count > 0));
  });

  const anchors = [...here].flatMap(([id, anchor]) => anchorEvents(mem, id, root, rel, anchor));
  // What the file, or a file it no longer imports, said and says no more: ended, or unanchored there.
  const gone = unsaid(mem, file, { root, rel }, `removed from ${rel}`, here);
  const dropped =
    input.importedBy === undefined && importsFiles(type) ? droppedImports(file, text, memoryFileSessions(mem), os.homedir()) : [];
  for (const f of dropped) {
    const at = anchorRoot(f, workspace);
    gone.push(...unsaid(mem, f, at, `${at.rel} is no longer imported by ${rel}`));
  }
  mem.commit([...(records.length ? [{ type: 'episodes.add' as const, episodes: records }] : []), ...knowledge, ...anchors, ...gone], {
    ...by,
    source: file,
  });
  return {
    file,
    label: type.label,
    items: items.length,
    added: writer.used,
    held: ids.length - writer.used,
    ended: gone.filter((e) => e.type === 'relationship.retract').length,
    ...(rejected ? { rejected } : {}),
    kinds,
    ids,
    ...(dropped.length ? { unimported: dropped } : {}),
  };
}

/** The input, checked, with what kind of memory file it is. */
function checked(input: MemoryFileInput): MemoryFileInput & { type: MemoryFileType } {
  if (input === null || typeof input !== 'object') throw invalid('Give { file, text, written }.');
  const { file, text, written } = input;
  if (typeof file !== 'string' || !path.isAbsolute(file) || file.length > LIMITS.sourceChars)
    throw invalid(`"file" must be an absolute path of at most ${LIMITS.sourceChars} characters.`);
  const { importedBy } = input;
  let type: MemoryFileType | undefined;
  if (importedBy !== undefined) {
    if (typeof importedBy !== 'string' || !path.isAbsolute(importedBy))
      throw invalid('"importedBy" must be the absolute path of the CLAUDE.md that imports the file.');
    type = importedFileType(file, importedBy, os.homedir());
    if (!type)
      throw invalid(
        `${file} is not read as an import of ${importedBy}: imports are text files (.md, .mdc, .markdown, .txt) inside the repository the CLAUDE.md is in, and a memory file by its own name is read as itself.`,
      );
  } else {
    const refused = notMemoryFile(file);
    if (refused) throw invalid(refused, 'Give a chat transcript to `recall ingest` as a transcript, or a note to `recall remember`.');
    type = memoryFileType(file)!;
  }
  if (typeof text !== 'string') throw invalid('"text" must be the file\'s text ("" when it is gone).');
  checkMemoryFileSize(file, Buffer.byteLength(text));
  if (text.includes('\0')) throw invalid(`${file} is not a text file (it holds NUL bytes); a memory file is markdown or plain text.`);
  if (!written || (written.authority !== 'user' && written.authority !== 'external') || !Array.isArray(written.authors))
    throw invalid('"written" is { authority: "user" | "external", authors: [...] } (service/authorship.ts fileAuthorship).');
  return {
    ...input,
    written: { authority: written.authority, authors: written.authors.filter((a) => typeof a === 'string').slice(0, 50) },
    type,
  };
}

/**
 * Where the file's anchors are taken: the connection's workspace when the file is in it, else its
 * repository, else its folder (~/.claude/CLAUDE.md: checked only by re-reading, no workspace holds it).
 */
function anchorRoot(file: string, workspace: string | undefined): { root: string; rel: string } {
  for (const root of [workspace, gitRoot(path.dirname(file))]) {
    const rel = root === undefined ? undefined : pathWithin(root, file);
    if (root !== undefined && rel !== undefined) return { root, rel: rel.split(path.sep).join('/') };
  }
  return { root: path.dirname(file), rel: path.basename(file) };
}

/**
 * The anchor on an item's lines. Lines that held a secret are hashed only when long enough that
 * the hash gives nothing away (as for any text that is not code); the rest are anchored whatever
 * their length, their words being stored anyway.
 */
function anchorOf(item: MemoryFileItem, lines: string[], root: string, rel: string, secret: boolean): CodeAnchor | null {
  const range = lines.slice(item.startLine - 1, item.endLine);
  if (secret && !hashable(rel, range)) return null;
  return { root, path: rel, startLine: item.startLine, endLine: item.endLine, hash: hashLines(range), at: new Date().toISOString() };
}

/** The item's own anchors with this file's place set to `anchor` (none: left out); nothing when they would not change. */
function anchorEvents(mem: JournaledGraph, id: string, root: string, rel: string, anchor: CodeAnchor | null): EventBody[] {
  const held = storedAnchors(mem.db, id) ?? [];
  const others = held.filter((a) => !(a.root === root && a.path === rel));
  const mine = held.filter((a) => a.root === root && a.path === rel);
  const place = (a: CodeAnchor | undefined): string => JSON.stringify(a && [a.startLine, a.endLine, a.hash]);
  if (mine.length === (anchor ? 1 : 0) && place(mine[0]) === place(anchor ?? undefined)) return [];
  const anchors = [...others, ...(anchor ? [anchor] : [])].slice(-LIMITS.anchorsPerEvent);
  return [{ type: 'anchors.set', target: id, anchors }];
}

/**
 * The events for what `file` said and no longer says (none of `still`): an item something else says
 * too only loses its anchor there; the rest end, for `reason`.
 */
function unsaid(
  mem: JournaledGraph,
  file: string,
  at: { root: string; rel: string },
  reason: string,
  still?: ReadonlyMap<string, unknown>,
): EventBody[] {
  return heldFrom(mem, file)
    .filter((r) => !still?.has(r.id))
    .flatMap((r): EventBody[] =>
      saidElsewhere(mem, r.id, file)
        ? anchorEvents(mem, r.id, at.root, at.rel, null)
        : [{ type: 'relationship.retract', id: r.id, reason }],
    );
}

/** The current items read from this file (its evidence turns are filed under it), unless a person confirmed them. */
function heldFrom(mem: JournaledGraph, file: string): { id: string }[] {
  return all(
    mem.db,
    `SELECT DISTINCT r.id FROM relationships r JOIN evidence ev ON ev.relationship_rowid = r.rowid
       JOIN episodes e ON e.id = ev.episode_id
      WHERE e.session = ? AND r.kind IS NOT NULL AND r.valid_to IS NULL AND r.pinned = 0`,
    [file],
  ).map((r) => ({ id: String(r.id) }));
}

/** The files the memory holds current items from (their evidence turns are filed under them). */
function memoryFileSessions(mem: JournaledGraph): string[] {
  return all(
    mem.db,
    `SELECT DISTINCT e.session FROM episodes e JOIN evidence ev ON ev.episode_id = e.id
       JOIN relationships r ON r.rowid = ev.relationship_rowid
      WHERE e.role = 'memory file' AND e.session IS NOT NULL AND r.kind IS NOT NULL AND r.valid_to IS NULL`,
  ).map((r) => String(r.session));
}

/** Whether a turn from anywhere but this file speaks for the item. */
function saidElsewhere(mem: JournaledGraph, id: string, file: string): boolean {
  return (
    scalar(
      mem.db,
      `SELECT 1 FROM evidence ev JOIN episodes e ON e.id = ev.episode_id
        WHERE ev.relationship_rowid = (SELECT rowid FROM relationships WHERE id = ?) AND ev.polarity > 0 AND e.session IS NOT ?
        LIMIT 1`,
      [id, file],
    ) !== undefined
  );
}
