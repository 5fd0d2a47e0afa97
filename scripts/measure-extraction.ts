/**
 * Precision and recall of the offline extractor (src/core/ingest/extract.ts) over the hand-labelled turns
 * in test/fixtures/extraction-labelled.json.
 *
 *   node --import tsx scripts/measure-extraction.ts [--split dev|heldout|blind] [--errors]
 *
 * Entities match on (name, type), relationships on (subject, predicate, object), case-insensitively.
 * Micro-averaged over all turns: a turn with nothing to find still counts what was found in it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { extract } from '../src/core/ingest/extract';

export interface LabelledItem {
  id: number;
  split: string;
  speaker?: string;
  role?: string;
  text: string;
  entities: { name: string; type: string }[];
  relationships: { subject: string; predicate: string; object: string }[];
}

export interface Score {
  precision: number;
  recall: number;
  f1: number;
  truePositives: number;
  found: number;
  expected: number;
}

export interface Measurement {
  items: number;
  entities: Score;
  /** Entities matched on name only (type ignored). */
  entityNames: Score;
  relationships: Score;
  errors: { id: number; kind: 'entity' | 'relationship'; missed: string[]; wrong: string[] }[];
}

export const LABELLED_FILE = path.join(__dirname, '..', 'test', 'fixtures', 'extraction-labelled.json');

export function loadLabelled(file = LABELLED_FILE): LabelledItem[] {
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { items: LabelledItem[] }).items;
}

function score(tp: number, found: number, expected: number): Score {
  const precision = found === 0 ? 1 : tp / found;
  const recall = expected === 0 ? 1 : tp / expected;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1, truePositives: tp, found, expected };
}

function compare(expected: string[], found: string[]): { tp: number; missed: string[]; wrong: string[] } {
  const e = new Set(expected.map((s) => s.toLowerCase()));
  const f = new Set(found.map((s) => s.toLowerCase()));
  const tp = [...f].filter((x) => e.has(x)).length;
  return { tp, missed: expected.filter((x) => !f.has(x.toLowerCase())), wrong: found.filter((x) => !e.has(x.toLowerCase())) };
}

export function measureExtraction(items: LabelledItem[] = loadLabelled()): Measurement {
  const totals = { e: [0, 0, 0], n: [0, 0, 0], r: [0, 0, 0] };
  const errors: Measurement['errors'] = [];
  for (const item of items) {
    const out = extract({ text: item.text, speaker: item.speaker, role: item.role });
    const uniq = (xs: string[]): string[] => [...new Set(xs.map((x) => x.toLowerCase()))];
    const ee = uniq(item.entities.map((x) => `${x.name} :${x.type}`));
    const fe = uniq(out.entities.map((x) => `${x.name} :${x.type}`));
    const en = compare(ee, fe);
    const names = compare(uniq(item.entities.map((x) => x.name)), uniq(out.entities.map((x) => x.name)));
    const er = uniq(item.relationships.map((r) => `${r.subject} -${r.predicate}-> ${r.object}`));
    const fr = uniq(out.relationships.map((r) => `${r.subject} -${r.predicate}-> ${r.object}`));
    const rel = compare(er, fr);
    totals.e[0] += en.tp;
    totals.e[1] += fe.length;
    totals.e[2] += ee.length;
    totals.n[0] += names.tp;
    totals.n[1] += uniq(out.entities.map((x) => x.name)).length;
    totals.n[2] += uniq(item.entities.map((x) => x.name)).length;
    totals.r[0] += rel.tp;
    totals.r[1] += fr.length;
    totals.r[2] += er.length;
    if (en.missed.length || en.wrong.length) errors.push({ id: item.id, kind: 'entity', missed: en.missed, wrong: en.wrong });
    if (rel.missed.length || rel.wrong.length) errors.push({ id: item.id, kind: 'relationship', missed: rel.missed, wrong: rel.wrong });
  }
  return {
    items: items.length,
    entities: score(totals.e[0]!, totals.e[1]!, totals.e[2]!),
    entityNames: score(totals.n[0]!, totals.n[1]!, totals.n[2]!),
    relationships: score(totals.r[0]!, totals.r[1]!, totals.r[2]!),
    errors,
  };
}

function main(argv: string[]): void {
  const splitArg = argv.indexOf('--split');
  const split = splitArg >= 0 ? argv[splitArg + 1] : undefined;
  const all = loadLabelled();
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const line = (label: string, s: Score): string =>
    `  ${label.padEnd(14)} precision ${pct(s.precision).padStart(6)}  recall ${pct(s.recall).padStart(6)}  F1 ${pct(s.f1).padStart(6)}  (${s.truePositives} right of ${s.found} found, ${s.expected} expected)`;
  const splits = split ? [split] : ['all', ...new Set(all.map((i) => i.split))];
  for (const name of splits) {
    const items = name === 'all' ? all : all.filter((i) => i.split === name);
    const m = measureExtraction(items);
    console.log(`${name}: ${m.items} turns`);
    console.log(line('entities', m.entities));
    console.log(line('entity names', m.entityNames));
    console.log(line('relationships', m.relationships));
    if (argv.includes('--errors') && name === splits[0]) {
      for (const e of m.errors) console.log(`    #${e.id} ${e.kind}: missed [${e.missed.join('; ')}] wrong [${e.wrong.join('; ')}]`);
    }
  }
}

if (require.main === module) {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e; // piped into head: stop quietly
  });
  main(process.argv.slice(2));
}
