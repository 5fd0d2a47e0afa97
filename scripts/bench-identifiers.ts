/**
 * Measures how code identifiers are found by their words (store/index-text.ts, the parts column):
 * every real transcript of test/fixtures/real goes into one memory; each camelCase or snake_case
 * identifier the turns hold (two or more words of three letters or more) is asked as its words
 * ("fill text" for `fillText`), and recall@10 is the share of the turns holding it among the top
 * 10 (of at most 10), with the parts column at the recipe's weight and at 0.
 * "Alone" counts only the turns that hold the identifier and none of its words on their own.
 *
 *   node --import tsx scripts/bench-identifiers.ts
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Memory } from '../src/core/memory/memory';
import { parseTranscript } from '../src/core/ingest/detect';
import { identifierWords } from '../src/core/store/index-text';
import { KEYWORD_RECIPE, withSettings } from '../src/core/retrieval/recipes';

const REAL = path.join(__dirname, '..', 'test', 'fixtures', 'real');
const IDENTIFIER = /\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z]+)+\b/g;

interface Tally {
  asked: number;
  recall: number;
}

async function main(): Promise<void> {
  const recipes = { on: KEYWORD_RECIPE, off: withSettings(KEYWORD_RECIPE, { 'columns.parts': 0 }) };
  const all = { on: { asked: 0, recall: 0 }, off: { asked: 0, recall: 0 } };
  const alone = { on: { asked: 0, recall: 0 }, off: { asked: 0, recall: 0 } };
  const texts: string[] = [];
  let files = 0;
  for (const dir of fs.readdirSync(REAL)) {
    if (dir === 'none' || !fs.statSync(path.join(REAL, dir)).isDirectory()) continue;
    for (const name of fs.readdirSync(path.join(REAL, dir))) {
      texts.push(...parseTranscript(fs.readFileSync(path.join(REAL, dir, name), 'utf8'), name).episodes.map((e) => e.text));
      files++;
    }
  }
  const identifiers = [...new Set(texts.flatMap((t) => t.match(IDENTIFIER) ?? []))].filter((id) => {
    const words = identifierWords(id);
    return words.length >= 2 && words.every((w) => /^[A-Za-z]{3,}$/.test(w));
  });
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-identifiers-bench-'));
  const memory = await Memory.open(folder);
  try {
    memory.ingest(
      texts.map((text) => ({ text })),
      { authority: 'agent', source: 'bench' },
    );
    for (const id of identifiers) {
      const words = identifierWords(id).map((w) => w.toLowerCase());
      const holding = texts.filter((t) => new RegExp(`\\b${id}\\b`).test(t));
      const only = holding.filter((t) => !words.some((w) => new RegExp(`\\b${w}\\b`, 'i').test(t)));
      for (const key of ['on', 'off'] as const) {
        const top = new Set(memory.query({ query: words.join(' '), limit: 10, mode: 'keyword' }, recipes[key]).episodes.map((e) => e.text));
        const share = (turns: string[]): number => turns.filter((t) => top.has(t)).length / Math.min(10, turns.length);
        all[key].asked++;
        all[key].recall += share(holding);
        if (only.length > 0) {
          alone[key].asked++;
          alone[key].recall += share(only);
        }
      }
    }
  } finally {
    memory.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
  const line = (t: Tally): string => `${t.asked} identifiers, recall@10 ${(t.recall / Math.max(1, t.asked)).toFixed(3)}`;
  console.log(`${files} real transcripts (test/fixtures/real), ${texts.length} turns in one memory`);
  for (const key of ['on', 'off'] as const)
    console.log(`parts column ${key === 'on' ? KEYWORD_RECIPE.columns.parts : 0}: all ${line(all[key])}; alone ${line(alone[key])}`);
}

void main();
