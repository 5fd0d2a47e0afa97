/**
 * Reads every real transcript under test/fixtures/real through the parsers and prints, per file and
 * per format, the expected turns / user turns / sessions (counted by hand, expected.json) beside what
 * the parsers found, and whose words got which authority: turns stored at `user` authority that are
 * not one of the person's turns (the model's or a tool's words), and the person's turns found only
 * inside a turn at `agent` authority; both must be 0. A file that says when it happened must have
 * every turn dated from it (its content or its name), none from its modification time. Also how
 * many turns continue a run: they follow a turn of the same session by the same speaker
 * (retrieval/spread.ts lends along runs). Run: npx tsx scripts/measure-transcripts.ts
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EpisodeInput } from '../src/core/model/events.js';
import { readTranscriptFile } from '../src/core/ingest/files.js';

interface Expected {
  format: string;
  turns: number;
  userTurns: number;
  sessions: number;
  /** Whether the file says when its turns happened. */
  dated: boolean;
  /** The opening words of each of the person's turns, in order (whitespace collapsed). */
  userTexts: string[];
}

const ROOT = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'real');
const expected = JSON.parse(fs.readFileSync(path.join(ROOT, 'expected.json'), 'utf8')) as Record<string, Expected>;

const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Turns at user authority that are none of the person's, and the person's turns found only inside the agent's. */
export function authorityErrors(episodes: EpisodeInput[], userTexts: string[]): { modelAsUser: number; personAsAgent: number } {
  const left = userTexts.map(flat);
  let modelAsUser = 0;
  for (const e of episodes.filter((x) => x.authority === 'user')) {
    const text = flat(e.text);
    const at = left.findIndex((o) => text.startsWith(o));
    if (at < 0) modelAsUser++;
    else left.splice(at, 1);
  }
  const agentText = episodes.filter((x) => x.authority !== 'user').map((x) => flat(x.text));
  const personAsAgent = left.filter((o) => agentText.some((t) => t.includes(o))).length;
  return { modelAsUser, personAsAgent };
}

interface Row {
  file: string;
  format: string;
  expected: Expected;
  turns: number;
  userTurns: number;
  sessions: number;
  modelAsUser: number;
  personAsAgent: number;
  /** Turns dated from the file (its content or its name), of all turns. */
  datedFromFile: number;
  /** Turns after a turn of their session by their own speaker, and turns after any turn of their session. */
  runs: number;
  pairs: number;
  read: string;
}

const rows: Row[] = Object.entries(expected).map(([file, want]) => {
  const empty = { turns: 0, userTurns: 0, sessions: 0, modelAsUser: 0, personAsAgent: 0, datedFromFile: 0, runs: 0, pairs: 0 };
  try {
    const parsed = readTranscriptFile(path.join(ROOT, file));
    const e = parsed.episodes;
    let runs = 0;
    let pairs = 0;
    for (let i = 1; i < e.length; i++) {
      if (e[i]!.session !== e[i - 1]!.session) continue;
      pairs++;
      if (e[i]!.speaker !== undefined && e[i]!.speaker === e[i - 1]!.speaker) runs++;
    }
    return {
      file,
      format: want.format,
      expected: want,
      turns: e.length,
      userTurns: e.filter((x) => x.authority === 'user').length,
      sessions: new Set(e.map((x) => x.session)).size,
      ...authorityErrors(e, want.userTexts),
      datedFromFile: (parsed.dating?.content ?? 0) + (parsed.dating?.name ?? 0),
      runs,
      pairs,
      read: parsed.format,
    };
  } catch (err) {
    return { file, format: want.format, expected: want, ...empty, read: `error: ${(err as Error).message.slice(0, 60)}` };
  }
});

const pad = (s: string | number, n: number): string => String(s).padEnd(n);
console.log(
  `${pad('file', 66)} ${pad('turns exp/got', 14)} ${pad('user exp/got', 13)} ${pad('sess exp/got', 13)} ${pad('model@user', 11)} ${pad('person@agent', 13)} ${pad('dated from file', 16)} read as`,
);
for (const r of rows) {
  const e = r.expected;
  const dated = e.dated ? `${r.datedFromFile}/${r.turns}` : `- (${r.datedFromFile}/${r.turns})`;
  console.log(
    `${pad(r.file, 66)} ${pad(`${e.turns}/${r.turns}`, 14)} ${pad(`${e.userTurns}/${r.userTurns}`, 13)} ${pad(`${e.sessions}/${r.sessions}`, 13)} ${pad(r.modelAsUser, 11)} ${pad(r.personAsAgent, 13)} ${pad(dated, 16)} ${r.read}`,
  );
}
console.log('\nper format (sums)');
const formats = [...new Set(rows.map((r) => r.format))];
const sum = (of: Row[], get: (r: Row) => number): number => of.reduce((a, r) => a + get(r), 0);
for (const f of formats) {
  const of = rows.filter((r) => r.format === f);
  console.log(
    `${pad(f, 14)} files ${pad(of.length, 3)} turns ${pad(`${sum(of, (r) => r.expected.turns)}/${sum(of, (r) => r.turns)}`, 10)} user ${pad(`${sum(of, (r) => r.expected.userTurns)}/${sum(of, (r) => r.userTurns)}`, 8)} model@user ${pad(
      sum(of, (r) => r.modelAsUser),
      3,
    )} person@agent ${sum(of, (r) => r.personAsAgent)}`,
  );
}
const exact = rows.filter((r) => r.turns === r.expected.turns && r.userTurns === r.expected.userTurns).length;
const dated = rows.filter((r) => r.expected.dated);
console.log(
  `\nfiles with exactly the hand-counted turns and user turns: ${exact} of ${rows.length}` +
    `\nturns at user authority that are not the person's: ${sum(rows, (r) => r.modelAsUser)}; the person's turns at agent authority: ${sum(rows, (r) => r.personAsAgent)}` +
    `\nfiles that say when: ${dated.length}, every turn dated from the file in ${dated.filter((r) => r.datedFromFile === r.turns).length}` +
    `\nturns continuing their speaker's run: ${sum(rows, (r) => r.runs)} of ${sum(rows, (r) => r.pairs)} turns after another of their session`,
);
