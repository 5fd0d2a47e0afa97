/**
 * The labelled knowledge of test/fixtures/knowledge/labels.json: for each real file, the decisions,
 * rules, preferences, facts and lessons a careful reader found in it, each quoted with where it was
 * said, and the things that look like knowledge but are not (questions, plans, tool output). Files
 * fall in two folds by project: `tune` and `held`; nothing is ever tuned on the held fold.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readTranscriptFile } from '../core/ingest/files.js';
import { KNOWLEDGE_KINDS, type KnowledgeKind } from '../core/model/knowledge.js';

export type Fold = 'tune' | 'held';
export const FOLDS: readonly Fold[] = ['tune', 'held'];

/** Where one statement of an item was said: a turn's ref (transcripts) or `line N` (instruction files). */
export interface Said {
  at: string;
  quote: string;
}

export interface LabelledItem {
  id: string;
  kind: KnowledgeKind;
  /** ISO 639-1 code of the statement's language. */
  language: string;
  /** Who said it: the person (`user`), the assistant (`agent`), or an instruction file (`file`). */
  by: 'user' | 'agent' | 'file';
  /** The first is the statement; the rest say the same again (the same rule repeated, or a restatement). */
  said: Said[];
}

export interface NotItem extends Said {
  why: string;
}

export interface LabelledFile {
  /** Relative to test/fixtures. */
  file: string;
  type: 'transcript' | 'instructions';
  /** The project key, as Recall derives it from a git remote: github.com/owner/name. */
  project: string;
  fold: Fold;
  note?: string;
  items: LabelledItem[];
  notItems: NotItem[];
}

export interface Labels {
  /** Absolute path of the fixtures folder the files are relative to. */
  root: string;
  files: LabelledFile[];
}

/** The fold of a project: the first hex digit of sha256(project key), 0-7 tune, 8-f held. */
export function foldOf(project: string): Fold {
  const digit = parseInt(crypto.createHash('sha256').update(project).digest('hex')[0]!, 16);
  return digit < 8 ? 'tune' : 'held';
}

/** Reads the labels file; its paths are relative to the folder above it (test/fixtures). */
export function loadLabels(file: string): Labels {
  if (!fs.existsSync(file)) throw new Error(`${file}: no labels file here; run the bench from the repository root or give --data FILE.`);
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { files?: LabelledFile[] };
  if (!Array.isArray(json.files)) throw new Error(`${file}: not a labels file (no "files" list).`);
  return { root: path.resolve(path.dirname(file), '..'), files: json.files };
}

/** Entity names judged by hand (entities.json beside the labels): junk, and names. */
export interface EntityLabels {
  junk: string[];
  names: string[];
}

/** The hand-judged entity names beside a labels file, when there are any. */
export function loadEntityLabels(labelsFile: string): EntityLabels | undefined {
  const file = path.join(path.dirname(labelsFile), 'entities.json');
  if (!fs.existsSync(file)) return undefined;
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<EntityLabels>;
  return { junk: json.junk ?? [], names: json.names ?? [] };
}

const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * What is wrong with the labels, one line each (none: they hold): a file missing, a fold that is
 * not its project's, an unknown kind, a repeated id, or a quote that is not in the file where the
 * label says it was said (a turn of the transcript as the parsers read it, or a line of the file).
 */
export function checkLabels(labels: Labels): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const f of labels.files) {
    const where = path.join(labels.root, f.file);
    if (!fs.existsSync(where)) {
      problems.push(`${f.file}: no such file`);
      continue;
    }
    if (f.fold !== foldOf(f.project)) problems.push(`${f.file}: fold ${f.fold}, but ${f.project} falls in ${foldOf(f.project)}`);
    const find = quoteFinder(where, f.type);
    for (const item of f.items) {
      if (ids.has(item.id)) problems.push(`${f.file}: id ${item.id} twice`);
      ids.add(item.id);
      if (!(KNOWLEDGE_KINDS as readonly string[]).includes(item.kind)) problems.push(`${item.id}: kind ${item.kind}`);
      if (!/^[a-z]{2}$/.test(item.language)) problems.push(`${item.id}: language ${item.language}`);
      if (item.said.length === 0) problems.push(`${item.id}: nothing said`);
      for (const s of item.said) if (!find(s)) problems.push(`${item.id}: "${s.quote}" is not at ${s.at}`);
    }
    for (const n of f.notItems) if (!find(n)) problems.push(`${f.file}: not-item "${n.quote}" is not at ${n.at}`);
  }
  return problems;
}

/** Whether a quote is where it is said to be. */
function quoteFinder(file: string, type: LabelledFile['type']): (s: Said) => boolean {
  if (type === 'transcript') {
    const turns = new Map<string, string>();
    for (const e of readTranscriptFile(file).episodes) turns.set(String(e.ref), `${turns.get(String(e.ref)) ?? ''} ${flat(e.text)}`);
    return (s) => turns.get(s.at)?.includes(flat(s.quote)) ?? false;
  }
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  return (s) => {
    const n = /^line (\d+)$/.exec(s.at);
    if (!n) return false;
    const from = Number(n[1]) - 1;
    const rest = flat(lines.slice(from).join('\n'));
    const at = rest.indexOf(flat(s.quote));
    return from < lines.length && at >= 0 && at < Math.max(1, flat(lines[from]!).length);
  };
}
