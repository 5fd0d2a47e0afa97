/**
 * The knowledge bench's figures from its per-file results, the targets beside them (issue 28), and
 * how both are printed and written into docs/BENCHMARKS.md.
 */
import type { Fold, LabelledFile } from './knowledge-labels.js';
import type { JunkReason } from './knowledge-match.js';

export interface ItemResult {
  id: string;
  kind: string;
  language: string;
  stated: boolean;
  /** Current knowledge items that say it, each counted for the one labelled item it says most closely. */
  heldAs: number;
}

export interface ExtractedItem {
  id: string;
  kind: string;
  statement: string;
  /** Labelled items it says (or is part of). */
  labels: string[];
  /** Of those, the one it says most closely (the most of either's content words in the other). */
  closest?: string;
  /** That labelled item's kind. */
  closestKind?: string;
  /** It says one of the file's not-items (a question, a plan, tool output). */
  wrong: boolean;
}

export interface FileResult {
  file: string;
  project: string;
  fold: Fold;
  type: LabelledFile['type'];
  brief_tokens: number;
  brief_left_out: number;
  items: ItemResult[];
  extracted: ExtractedItem[];
  /** Pairs of current rules that say the same, but for pairs the labels hold apart (each says another labelled item most closely). */
  rules_twice: number;
  entities: number;
  junk: { name: string; reason: JunkReason }[];
}

/** The junk classifier against names a person judged (entities.json). */
export interface ClassifierCheck {
  judged_junk: number;
  /** Judged junk the classifier calls junk by itself. */
  caught: number;
  judged_names: number;
  /** Judged names the classifier wrongly calls junk. */
  flagged: number;
}

export interface KnowledgeBenchResult {
  budget_tokens: number;
  folds: Fold[];
  files: FileResult[];
  figures: Partial<Record<Fold | 'all', KnowledgeFigures>>;
  classifier?: ClassifierCheck;
}

export interface Count {
  labelled: number;
  stated: number;
  /** stated / labelled; null when nothing is labelled. */
  share: number | null;
}

export interface KnowledgeFigures {
  files: number;
  all: Count;
  by_kind: Record<string, Count>;
  by_language: Record<string, Count>;
  english: Count;
  not_english: Count;
  by_type: Record<string, Count>;
  extracted: {
    items: number;
    /** Items that say a labelled item (or a part of one). */
    labelled: number;
    /** Items that say one of the files' not-items: wrong for sure. */
    wrong: number;
    /** labelled / items: a lower bound (an item nobody labelled counts as wrong); null without items. */
    precision: number | null;
    /** Of the items saying a labelled item, those of the kind the labels give the one said most closely. */
    kind_agrees: number;
  };
  duplicates: {
    /** Labelled items held as two or more current items, by kind. */
    by_kind: Record<string, number>;
    /** Pairs of current rules of one project that say the same, labelled or not. */
    rules_twice: number;
  };
  entities: { total: number; junk: number; share: number | null; by_reason: Partial<Record<JunkReason, number>>; examples: string[] };
}

const EXAMPLES = 20;
const ratio = (a: number, b: number): number | null => (b === 0 ? null : Math.round((a / b) * 1e4) / 1e4);

function count(items: { stated: boolean }[]): Count {
  const stated = items.filter((i) => i.stated).length;
  return { labelled: items.length, stated, share: ratio(stated, items.length) };
}

function grouped<T>(list: T[], key: (t: T) => string): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  for (const t of list) (out[key(t)] ??= []).push(t);
  return out;
}

const mapValues = <T, U>(o: Record<string, T>, f: (t: T) => U): Record<string, U> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

export function summarise(files: FileResult[]): KnowledgeFigures {
  const items = files.flatMap((f) => f.items.map((i) => ({ ...i, type: f.type })));
  const extracted = files.flatMap((f) => f.extracted);
  const junk = files.flatMap((f) => f.junk);
  const entities = files.reduce((n, f) => n + f.entities, 0);
  const labelledItems = extracted.filter((x) => x.labels.length > 0).length;
  const twice = items.filter((i) => i.heldAs >= 2);
  return {
    files: files.length,
    all: count(items),
    by_kind: mapValues(
      grouped(items, (i) => i.kind),
      count,
    ),
    by_language: mapValues(
      grouped(items, (i) => i.language),
      count,
    ),
    english: count(items.filter((i) => i.language === 'en')),
    not_english: count(items.filter((i) => i.language !== 'en')),
    by_type: mapValues(
      grouped(items, (i) => i.type),
      count,
    ),
    extracted: {
      items: extracted.length,
      labelled: labelledItems,
      wrong: extracted.filter((x) => x.wrong).length,
      precision: ratio(labelledItems, extracted.length),
      kind_agrees: extracted.filter((x) => x.closestKind === x.kind).length,
    },
    duplicates: {
      by_kind: mapValues(
        grouped(twice, (i) => i.kind),
        (l) => l.length,
      ),
      rules_twice: files.reduce((n, f) => n + f.rules_twice, 0),
    },
    entities: {
      total: entities,
      junk: junk.length,
      share: ratio(junk.length, entities),
      by_reason: mapValues(
        grouped(junk, (j) => j.reason),
        (l) => l.length,
      ),
      examples: [...new Set(junk.map((j) => j.name))].slice(0, EXAMPLES),
    },
  };
}

export interface Target {
  name: string;
  target: string;
  value: string;
  /** undefined: not measured in this run. */
  met: boolean | undefined;
}

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? 'n/a' : `${(x * 100).toFixed(1)}%`);
const share = (c: Count): string => `${pct(c.share)} (${c.stated} of ${c.labelled})`;

/** The issue's targets: the brief's figures on the held fold; junk and twice-stored rules over everything measured. */
export function targets(r: KnowledgeBenchResult): Target[] {
  const held = r.figures.held;
  const measured = r.figures.all ?? r.figures[r.folds[0]!]!;
  const twice = measured.duplicates.rules_twice + (measured.duplicates.by_kind.rule ?? 0);
  return [
    {
      name: 'brief states labelled items, held fold',
      target: '>= 60%',
      value: held ? share(held.all) : 'held fold not run',
      met: held ? (held.all.share ?? 0) >= 0.6 : undefined,
    },
    {
      name: 'brief states English items, held fold',
      target: '>= 70%',
      value: held ? share(held.english) : 'held fold not run',
      met: held ? (held.english.share ?? 0) >= 0.7 : undefined,
    },
    {
      name: 'junk entities',
      target: '<= 5%',
      value: `${pct(measured.entities.share)} (${measured.entities.junk} of ${measured.entities.total})`,
      met: (measured.entities.share ?? 0) <= 0.05,
    },
    { name: 'rules stored twice', target: '0', value: String(twice), met: twice === 0 },
  ];
}

const verdict = (t: Target): string => (t.met === undefined ? 'not measured' : t.met ? 'met' : 'NOT met');

/** The lines `node dist/bench.js knowledge` prints. */
export function knowledgeText(r: KnowledgeBenchResult): string[] {
  const out = [`Knowledge: brief of ${r.budget_tokens} tokens against labelled items, folds ${r.folds.join(', ')}`];
  for (const [fold, f] of Object.entries(r.figures)) {
    out.push(
      `  ${fold} (${f.files} files): brief states ${share(f.all)}; English ${share(f.english)}; other languages ${share(f.not_english)}`,
    );
    out.push(
      `    by kind: ${Object.entries(f.by_kind)
        .map(([k, c]) => `${k} ${share(c)}`)
        .join(', ')}`,
    );
    out.push(
      `    by language: ${Object.entries(f.by_language)
        .map(([k, c]) => `${k} ${share(c)}`)
        .join(', ')}`,
    );
    out.push(
      `    by source: ${Object.entries(f.by_type)
        .map(([k, c]) => `${k} ${share(c)}`)
        .join(', ')}`,
    );
    out.push(
      `    items held: ${f.extracted.items}, saying a labelled item ${f.extracted.labelled} (precision >= ${pct(f.extracted.precision)}), of the kind labelled ${f.extracted.kind_agrees} (${pct(ratio(f.extracted.kind_agrees, f.extracted.labelled))}), saying a not-item ${f.extracted.wrong}`,
    );
    out.push(
      `    duplicates: labelled items held twice ${JSON.stringify(f.duplicates.by_kind)}, rule pairs saying the same ${f.duplicates.rules_twice}`,
    );
    out.push(
      `    entities: ${f.entities.total}, junk ${f.entities.junk} (${pct(f.entities.share)}) ${JSON.stringify(f.entities.by_reason)}${f.entities.examples.length ? `, e.g. ${f.entities.examples.slice(0, 8).join(' | ')}` : ''}`,
    );
  }
  if (r.classifier)
    out.push(
      `  junk classifier on the names judged by hand (tune fold only): catches ${r.classifier.caught} of ${r.classifier.judged_junk} junk by itself (the rest count as judged junk), calls ${r.classifier.flagged} of ${r.classifier.judged_names} names junk`,
    );
  out.push('  targets:');
  for (const t of targets(r)) out.push(`    ${t.name}: ${t.value}, target ${t.target}: ${verdict(t)}`);
  return out;
}

const table = (head: string[], rows: (string | number)[][]): string =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

/** The docs/BENCHMARKS.md section (docs.ts writes it between its markers). */
export function knowledgeSection(r: KnowledgeBenchResult, context: string): string {
  const folds = Object.entries(r.figures) as [Fold | 'all', KnowledgeFigures][];
  const kinds = [...new Set(folds.flatMap(([, f]) => Object.keys(f.by_kind)))].sort();
  const languages = [...new Set(folds.flatMap(([, f]) => Object.keys(f.by_language)))].sort();
  const cell = (c: Count | undefined): string => (c ? share(c) : '');
  return [
    `### Knowledge: what the brief (${r.budget_tokens} tokens) states of labelled real files`,
    context,
    'Labels, folds and how "states" is judged: test/fixtures/knowledge/README.md. The held fold is never tuned on.',
    table(
      [
        'fold',
        'files',
        'brief states',
        'English',
        'other languages',
        'items held',
        'precision (lower bound)',
        'kind as labelled',
        'junk entities',
      ],
      folds.map(([fold, f]) => [
        fold,
        f.files,
        share(f.all),
        share(f.english),
        share(f.not_english),
        f.extracted.items,
        pct(f.extracted.precision),
        pct(ratio(f.extracted.kind_agrees, f.extracted.labelled)),
        `${pct(f.entities.share)} (${f.entities.junk} of ${f.entities.total})`,
      ]),
    ),
    table(
      ['fold', 'transcripts', 'instruction files'],
      folds.map(([fold, f]) => [fold, cell(f.by_type.transcript), cell(f.by_type.instructions)]),
    ),
    table(
      ['fold', ...kinds],
      folds.map(([fold, f]) => [fold, ...kinds.map((k) => cell(f.by_kind[k]))]),
    ),
    table(
      ['fold', ...languages],
      folds.map(([fold, f]) => [fold, ...languages.map((l) => cell(f.by_language[l]))]),
    ),
    ...(r.classifier
      ? [
          `Junk entities: the classifier (stop words, pronouns, numbers, clause fragments) plus the names a person judged junk in test/fixtures/knowledge/entities.json (tune fold entities only, so the held fold's share is the classifier's alone); on those judged names the classifier alone catches ${r.classifier.caught} of ${r.classifier.judged_junk} junk and calls ${r.classifier.flagged} of ${r.classifier.judged_names} names junk.`,
        ]
      : []),
    table(
      ['target', 'value', 'goal', 'met'],
      targets(r).map((t) => [t.name, t.value, t.target, verdict(t)]),
    ),
  ].join('\n\n');
}
