/**
 * `node dist/bench.js knowledge [--data LABELS] [--fold tune|held|all] [--json] [--write-docs]`.
 * The tune fold is the default, so nobody reads the held fold's figures by accident while tuning;
 * the docs get every fold, so --write-docs needs --fold all, said on purpose.
 */
import { runContext, writeDocsSection } from './docs.js';
import { knowledgeSection, knowledgeText } from './knowledge-figures.js';
import { FOLDS, type Fold } from './knowledge-labels.js';
import { runKnowledgeBench } from './knowledge.js';

export const KNOWLEDGE_LABELS = 'test/fixtures/knowledge/labels.json';

export interface KnowledgeValues {
  data?: string;
  fold?: string;
  json?: boolean;
  'write-docs'?: boolean;
}

export async function knowledge(values: KnowledgeValues, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const fold = values.fold ?? 'tune';
  if (fold !== 'all' && !(FOLDS as readonly string[]).includes(fold)) throw new Error('--fold is one of tune, held, all.');
  if (values['write-docs'] && fold !== 'all') throw new Error('--write-docs writes every fold: give --fold all.');
  const folds: Fold[] = fold === 'all' ? [...FOLDS] : [fold as Fold];
  if (folds.includes('held'))
    err('knowledge: this run reads the HELD fold. Its figures are for reporting; never tune the extractor on them.');
  const labelsFile = values.data ?? KNOWLEDGE_LABELS;
  const r = await runKnowledgeBench({ labelsFile, folds, log: err });
  if (!values.json) for (const line of knowledgeText(r)) out(line);
  if (values['write-docs']) {
    const data = values.data ? ` --data ${values.data}` : '';
    writeDocsSection('knowledge', knowledgeSection(r, runContext(`node dist/bench.js knowledge${data} --fold all`)));
    err('docs/BENCHMARKS.md: section knowledge written');
  }
  // The last line is always the machine-readable result.
  out(JSON.stringify(r));
  return 0;
}
