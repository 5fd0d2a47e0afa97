/**
 * Reads every real transcript under test/fixtures/real through the parsers and prints, per file and
 * per format, the expected turns / user turns / sessions (counted by hand, expected.json) beside what
 * the parsers found, and how many turns continue a run: they follow a turn of the same session by
 * the same speaker (retrieval/spread.ts lends along runs). Run: npx tsx scripts/measure-transcripts.ts
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readTranscriptFile } from '../src/core/ingest/files.js';

interface Expected {
  format: string;
  turns: number;
  userTurns: number;
  sessions: number;
}

const ROOT = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'real');
const expected = JSON.parse(fs.readFileSync(path.join(ROOT, 'expected.json'), 'utf8')) as Record<string, Expected>;

interface Row {
  file: string;
  format: string;
  expected: Expected;
  turns: number;
  userTurns: number;
  sessions: number;
  /** Turns after a turn of their session by their own speaker, and turns after any turn of their session. */
  runs: number;
  pairs: number;
  read: string;
}

const rows: Row[] = Object.entries(expected).map(([file, want]) => {
  try {
    const parsed = readTranscriptFile(path.join(ROOT, file));
    const e = parsed.episodes;
    const turns = e.length;
    const userTurns = e.filter((x) => x.authority === 'user').length;
    const sessions = new Set(e.map((x) => x.session)).size;
    let runs = 0;
    let pairs = 0;
    for (let i = 1; i < e.length; i++) {
      if (e[i]!.session !== e[i - 1]!.session) continue;
      pairs++;
      if (e[i]!.speaker !== undefined && e[i]!.speaker === e[i - 1]!.speaker) runs++;
    }
    return { file, format: want.format, expected: want, turns, userTurns, sessions, runs, pairs, read: parsed.format };
  } catch (err) {
    return {
      file,
      format: want.format,
      expected: want,
      turns: 0,
      userTurns: 0,
      sessions: 0,
      runs: 0,
      pairs: 0,
      read: `error: ${(err as Error).message.slice(0, 60)}`,
    };
  }
});

const pad = (s: string | number, n: number): string => String(s).padEnd(n);
console.log(`${pad('file', 60)} ${pad('turns exp/got', 14)} ${pad('user exp/got', 13)} ${pad('sess exp/got', 13)} read as`);
for (const r of rows) {
  const e = r.expected;
  console.log(
    `${pad(r.file, 60)} ${pad(`${e.turns}/${r.turns}`, 14)} ${pad(`${e.userTurns}/${r.userTurns}`, 13)} ${pad(`${e.sessions}/${r.sessions}`, 13)} ${r.read}`,
  );
}
console.log('\nper format (sums)');
const formats = [...new Set(rows.map((r) => r.format))];
for (const f of formats) {
  const of = rows.filter((r) => r.format === f);
  const sum = (get: (r: Row) => number): number => of.reduce((a, r) => a + get(r), 0);
  console.log(
    `${pad(f, 14)} files ${pad(of.length, 3)} turns ${pad(`${sum((r) => r.expected.turns)}/${sum((r) => r.turns)}`, 10)} user ${sum((r) => r.expected.userTurns)}/${sum((r) => r.userTurns)}`,
  );
}
const runs = rows.reduce((a, r) => a + r.runs, 0);
const pairs = rows.reduce((a, r) => a + r.pairs, 0);
console.log(`\nturns continuing their speaker's run: ${runs} of ${pairs} turns after another of their session`);
