/**
 * Entity precision of the offline extractor on real transcripts: reads every transcript of
 * test/fixtures/real through the parsers (as `recall ingest` does), extracts each turn, and scores
 * the distinct entities against the labels in test/fixtures/knowledge/entity-labels.json (each
 * labelled name or junk by reading it, before the extractor was changed; see the file's `judged`).
 *
 *   npx tsx scripts/measure-entities.ts [--errors] [--heldout-errors] [--new]
 *
 * Per half (dev, heldout): precision = labelled names still extracted / labelled entities still
 * extracted; names lost = labelled names no longer extracted. Entities not in the labels (new
 * readings) are counted, and scored when labelled later (items with `after: true`).
 * --errors lists the dev half's junk still extracted and names lost; --heldout-errors the held-out
 * half's (read them only once the fixes are done); --new lists the entities not labelled.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { extract } from '../src/core/ingest/extract';
import { readTranscriptFile } from '../src/core/ingest/files';

interface Label {
  name: string;
  type: string;
  label: 'name' | 'junk';
  /** dev, heldout; new: labelled after the fix (with `after`). */
  split: 'dev' | 'heldout' | 'new';
  file: string;
  turn: number;
  /** Labelled after the fix: an entity the changed extractor reads that the first labels did not hold. */
  after?: boolean;
}

const ROOT = path.join(__dirname, '..');
const REAL = path.join(ROOT, 'test', 'fixtures', 'real');
export const LABELS_FILE = path.join(ROOT, 'test', 'fixtures', 'knowledge', 'entity-labels.json');

/** Every distinct entity (by lower-cased name) the extractor reads in the real transcripts, with where it was first read. */
export function extractedEntities(): Map<string, { name: string; type: string; file: string; turn: number }> {
  const expected = JSON.parse(fs.readFileSync(path.join(REAL, 'expected.json'), 'utf8')) as Record<string, { format: string }>;
  const found = new Map<string, { name: string; type: string; file: string; turn: number }>();
  for (const [file, want] of Object.entries(expected)) {
    if (want.format === 'none') continue;
    readTranscriptFile(path.join(REAL, file)).episodes.forEach((e, turn) => {
      // As the ingest path reads a turn (core/memory/writes.ts): its opening 20,000 characters.
      for (const en of extract({ text: e.text.slice(0, 20_000), speaker: e.speaker, role: e.role }).entities) {
        const key = en.name.toLowerCase();
        if (!found.has(key)) found.set(key, { ...en, file, turn });
      }
    });
  }
  return found;
}

export interface HalfScore {
  labelled: number;
  extracted: number;
  names: number;
  junk: number;
  precision: number;
  namesLost: number;
}

export function score(labels: Label[], found: Map<string, unknown>, split: string): HalfScore {
  const of = labels.filter((l) => l.split === split && !l.after);
  const kept = of.filter((l) => found.has(l.name.toLowerCase()));
  const names = kept.filter((l) => l.label === 'name').length;
  return {
    labelled: of.length,
    extracted: kept.length,
    names,
    junk: kept.length - names,
    precision: kept.length === 0 ? 1 : names / kept.length,
    namesLost: of.filter((l) => l.label === 'name' && !found.has(l.name.toLowerCase())).length,
  };
}

function main(): void {
  const args = new Set(process.argv.slice(2));
  const labels = (JSON.parse(fs.readFileSync(LABELS_FILE, 'utf8')) as { items: Label[] }).items;
  const found = extractedEntities();
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  console.log(`entities extracted from test/fixtures/real: ${found.size}`);
  for (const split of ['dev', 'heldout']) {
    const s = score(labels, found, split);
    console.log(
      `${split.padEnd(8)} labelled ${s.labelled}  still extracted ${s.extracted}  names ${s.names}  junk ${s.junk}  precision ${pct(s.precision)}  names lost ${s.namesLost}`,
    );
  }
  const labelled = new Map(labels.map((l) => [l.name.toLowerCase(), l]));
  const fresh = [...found.entries()].filter(([k]) => !labelled.has(k) || labelled.get(k)!.after);
  const freshJudged = fresh.map(([k]) => labelled.get(k)).filter((l): l is Label => l !== undefined);
  const freshNames = freshJudged.filter((l) => l.label === 'name').length;
  console.log(
    `new      not in the first labels ${fresh.length}  labelled since ${freshJudged.length}  names ${freshNames}  junk ${freshJudged.length - freshNames}`,
  );
  const all = [...found.keys()].map((k) => labelled.get(k)).filter((l): l is Label => l !== undefined);
  const allNames = all.filter((l) => l.label === 'name').length;
  console.log(`all      judged ${all.length} of ${found.size}  precision ${pct(all.length ? allNames / all.length : 1)}`);

  const show = (split: string): void => {
    console.log(`\n${split}: junk still extracted`);
    for (const l of labels.filter((x) => x.split === split && !x.after && x.label === 'junk' && found.has(x.name.toLowerCase())))
      console.log(`  ${l.type}\t${l.name}\t(${l.file} #${l.turn})`);
    console.log(`${split}: names lost`);
    for (const l of labels.filter((x) => x.split === split && !x.after && x.label === 'name' && !found.has(x.name.toLowerCase())))
      console.log(`  ${l.type}\t${l.name}\t(${l.file} #${l.turn})`);
  };
  if (args.has('--errors')) show('dev');
  if (args.has('--heldout-errors')) show('heldout');
  if (args.has('--new')) {
    console.log('\nnot in the first labels');
    for (const [, e] of fresh) console.log(`  ${e.type}\t${e.name}\t(${e.file} #${e.turn})`);
  }
}

if (require.main === module) main();
