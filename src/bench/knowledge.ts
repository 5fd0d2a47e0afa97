/**
 * The knowledge bench: for each labelled file (knowledge-labels.ts), a fresh memory reads it as a
 * new user would (`recall ingest FILE --project P`: the parsers of core/ingest, the Memory ingest
 * path with its extractor), then the brief (600 tokens) is asked for the file's project and
 * compared with the labels by the word rule of knowledge-match.ts. Measured: the share of labelled
 * items the brief states (by fold, kind and language), the precision of the knowledge items the
 * memory holds, items stored twice, and junk entities.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { batchEpisodes } from '../core/ingest/batches.js';
import { readTranscriptParts } from '../core/ingest/files.js';
import { Memory } from '../core/memory/memory.js';
import type { Provenance } from '../core/model/events.js';
import { LIMITS } from '../core/model/limits.js';
import type { FactView } from '../core/model/views.js';
import { junkReason, likeness, sameKnowledge, states } from './knowledge-match.js';
import { loadEntityLabels, loadLabels, type Fold, type LabelledFile, type LabelledItem } from './knowledge-labels.js';
import { summarise, type ExtractedItem, type FileResult, type KnowledgeBenchResult } from './knowledge-figures.js';

/** The brief's budget the labels are checked against (the figure). */
export const KNOWLEDGE_BRIEF_TOKENS = 600;

export interface KnowledgeBenchOptions {
  /** test/fixtures/knowledge/labels.json or another labels file of the same shape. */
  labelsFile: string;
  folds: readonly Fold[];
  budgetTokens?: number;
  /** Called on each fresh memory folder before the file is read (tests record known items this way). */
  seed?: (folder: string, file: LabelledFile) => Promise<void>;
  /** Entity names a person judged junk (entities.json): counted as junk when the classifier misses them. */
  judgedJunk?: ReadonlySet<string>;
  log?: (msg: string) => void;
}

/** The CLI's connection: a person's (service/rpc/protocol.ts), as `recall ingest` sends. */
const BY = (project: string): Provenance => ({ authority: 'human', source: 'cli', project });

/** An instruction file (AGENTS.md, CLAUDE.md, Cursor rules …) as files others committed to a repository (external). */
function readInstructions(memory: Memory, file: string, project: string): void {
  const written = { authority: 'external' as const, authors: [] };
  memory.readMemoryFile({ file: path.resolve(file), text: fs.readFileSync(file, 'utf8'), written, project }, BY(project));
}

/** A transcript as `recall ingest FILE --project P` reads it: a part at a time, in bounded batches. */
async function readTranscript(memory: Memory, file: string, project: string): Promise<void> {
  for await (const part of readTranscriptParts(file)) {
    const episodes = part.episodes.map((e) => ({ ...e, project }));
    for (const batch of batchEpisodes(episodes, { maxBytes: LIMITS.serviceMessageBytes })) memory.ingest(batch, BY(project));
  }
}

/** The brief's lines that can state something: not its header, not its "(+N more)". */
function briefLines(text: string): string[] {
  return text
    .split('\n')
    .slice(1)
    .filter((l) => !/^\(\+\d+ more\)$/.test(l.trim()));
}

const statements = (item: LabelledItem): string[] => item.said.map((s) => s.quote);

export async function measureFile(
  labelled: LabelledFile,
  root: string,
  opts: Omit<KnowledgeBenchOptions, 'labelsFile' | 'folds'>,
): Promise<FileResult> {
  const where = path.join(root, labelled.file);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-knowledge-'));
  try {
    await opts.seed?.(folder, labelled);
    const memory = await Memory.open(folder);
    try {
      if (labelled.type === 'transcript') await readTranscript(memory, where, labelled.project);
      else readInstructions(memory, where, labelled.project);
      const brief = memory.brief({ project: labelled.project, budgetTokens: opts.budgetTokens ?? KNOWLEDGE_BRIEF_TOKENS });
      const lines = briefLines(brief.text);
      const { facts, entities } = memory.export();
      const items = facts.filter((f): f is FactView & { statement: string } => f.kind !== undefined && typeof f.statement === 'string');
      const extracted: ExtractedItem[] = items.map((f) => {
        const says = labelled.items.filter((l) => statements(l).some((s) => sameKnowledge(f.statement, s)));
        const scored = says.map((l) => ({ l, score: Math.max(...statements(l).map((s) => likeness(f.statement, s))) }));
        const closest = scored.reduce<(typeof scored)[number] | undefined>(
          (best, x) => (!best || x.score > best.score ? x : best),
          undefined,
        )?.l;
        return {
          id: f.id,
          kind: f.kind!,
          statement: f.statement,
          labels: says.map((l) => l.id),
          ...(closest ? { closest: closest.id, closestKind: closest.kind } : {}),
          wrong: labelled.notItems.some((n) => sameKnowledge(f.statement, n.quote)),
        };
      });
      // Two rules the labels hold apart (each closest to another labelled item) are two rules, however many words they share.
      const rules = extracted.filter((x) => x.kind === 'rule');
      const apart = (a: ExtractedItem, b: ExtractedItem): boolean =>
        a.closest !== undefined && b.closest !== undefined && a.closest !== b.closest;
      let rulesTwice = 0;
      for (let i = 0; i < rules.length; i++)
        for (let j = i + 1; j < rules.length; j++)
          if (!apart(rules[i]!, rules[j]!) && sameKnowledge(rules[i]!.statement, rules[j]!.statement)) rulesTwice++;
      const junk = entities.flatMap((e) => {
        const reason = junkReason(e.name) ?? (opts.judgedJunk?.has(e.name) ? 'judged junk' : undefined);
        return reason ? [{ name: e.name, reason }] : [];
      });
      return {
        file: labelled.file,
        project: labelled.project,
        fold: labelled.fold,
        type: labelled.type,
        brief_tokens: brief.tokens,
        brief_left_out: brief.left_out,
        items: labelled.items.map((l) => ({
          id: l.id,
          kind: l.kind,
          language: l.language,
          stated: lines.some((line) => statements(l).some((s) => states(line, s))),
          heldAs: extracted.filter((x) => x.closest === l.id).length,
        })),
        extracted,
        rules_twice: rulesTwice,
        entities: entities.length,
        junk,
      };
    } finally {
      memory.close();
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

export async function runKnowledgeBench(opts: KnowledgeBenchOptions): Promise<KnowledgeBenchResult> {
  const labels = loadLabels(opts.labelsFile);
  const judged = loadEntityLabels(opts.labelsFile);
  opts = { judgedJunk: judged ? new Set(judged.junk) : undefined, ...opts };
  const chosen = labels.files.filter((f) => opts.folds.includes(f.fold));
  const files: FileResult[] = [];
  for (const f of chosen) {
    opts.log?.(`${f.file} (${f.fold})`);
    files.push(await measureFile(f, labels.root, opts));
  }
  const figures: KnowledgeBenchResult['figures'] = {};
  for (const fold of opts.folds) figures[fold] = summarise(files.filter((r) => r.fold === fold));
  if (opts.folds.length > 1) figures.all = summarise(files);
  const classifier = judged && {
    judged_junk: judged.junk.length,
    caught: judged.junk.filter((n) => junkReason(n) !== undefined).length,
    judged_names: judged.names.length,
    flagged: judged.names.filter((n) => junkReason(n) !== undefined).length,
  };
  return {
    budget_tokens: opts.budgetTokens ?? KNOWLEDGE_BRIEF_TOKENS,
    folds: [...opts.folds],
    files,
    figures,
    ...(classifier ? { classifier } : {}),
  };
}
