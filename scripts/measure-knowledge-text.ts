/**
 * What the offline knowledge reader (src/core/ingest/knowledge-read.ts) reads from the real
 * transcripts of test/fixtures/real, by language: the person's turns and sentences, and the items
 * read from them by kind; then the agents' lessons and facts. A count, not a score: the labelled
 * knowledge is measured elsewhere (the knowledge bench), never here.
 *
 *   npx tsx scripts/measure-knowledge-text.ts [--items]
 *
 * A turn's language is its script (Hangul: ko; kana: ja; Han: zh), else the language of the fixture
 * (SOURCES.md names the Portuguese, Spanish and German ones), else English. --items lists each item.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readTranscriptFile } from '../src/core/ingest/files';
import { readKnowledge } from '../src/core/ingest/knowledge-read';
import { candidateSentences } from '../src/core/ingest/knowledge-text';
import { AGENT_ROLES } from '../src/core/ingest/vocabulary';

const REAL = path.join(__dirname, '..', 'test', 'fixtures', 'real');
/** Fixtures written in a Latin-script language other than English. */
const LATIN: Record<string, string> = {
  'specstory/user-timestamp-think-details.md': 'pt',
  'cursor/es-dayfirst-cet-hr-and-code.md': 'es',
  'cursor/one-exchange-de.md': 'de',
};

function languageOf(text: string, file: string): string {
  if (/\p{Script=Hangul}/u.test(text)) return 'ko';
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return 'ja';
  if (/\p{Script=Han}/u.test(text)) return 'zh';
  return LATIN[file] ?? 'en';
}

interface Row {
  turns: number;
  sentences: number;
  kinds: Map<string, number>;
}

const rows = new Map<string, Row>();
const row = (key: string): Row => {
  let r = rows.get(key);
  if (!r) rows.set(key, (r = { turns: 0, sentences: 0, kinds: new Map() }));
  return r;
};
const listing = process.argv.includes('--items');
const expected = JSON.parse(fs.readFileSync(path.join(REAL, 'expected.json'), 'utf8')) as Record<string, { turns: number }>;
for (const file of Object.keys(expected)) {
  if (expected[file]!.turns === 0) continue; // a negative fixture: not a transcript
  for (const e of readTranscriptFile(path.join(REAL, file)).episodes) {
    const agent = AGENT_ROLES.has((e.role ?? '').toLowerCase());
    const r = row(`${agent ? 'agent' : 'person'} ${languageOf(e.text, file)}`);
    r.turns++;
    r.sentences += candidateSentences(e.text).length;
    for (const k of readKnowledge({ text: e.text, speaker: e.speaker, role: e.role })) {
      r.kinds.set(k.kind, (r.kinds.get(k.kind) ?? 0) + 1);
      if (listing) process.stdout.write(`${file}\t${k.kind}\t${k.statement}\n`);
    }
  }
}
const KINDS = ['decision', 'rule', 'preference', 'lesson', 'fact'];
process.stdout.write(
  `${'turns of'.padEnd(10)}${'turns'.padStart(7)}${'sentences'.padStart(11)}  ${KINDS.map((k) => k.padStart(11)).join('')}\n`,
);
for (const [key, r] of [...rows].sort(([a], [b]) => a.localeCompare(b)))
  process.stdout.write(
    `${key.padEnd(10)}${String(r.turns).padStart(7)}${String(r.sentences).padStart(11)}  ${KINDS.map((k) => String(r.kinds.get(k) ?? 0).padStart(11)).join('')}\n`,
  );
