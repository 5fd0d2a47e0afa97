/**
 * The knowledge bench (src/bench/knowledge*.ts): the harness end to end on a real memory (a file
 * read through the real ingest path, then the same file again with items the test itself records
 * through the real knowledge writer and journal: the figures must move by exactly what was
 * recorded), its arithmetic on a result counted by hand, and `node dist/bench.js knowledge` as a
 * process on a tiny labels file. The yardstick itself: knowledge-labels.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { JournaledGraph } from '../src/core/memory/journaled-graph';
import { KnowledgeWriter } from '../src/core/memory/knowledge';
import { resolveConfig } from '../src/core/model/config';
import type { EventBody } from '../src/core/model/events';
import { measureFile, runKnowledgeBench } from '../src/bench/knowledge';
import { knowledgeSection, knowledgeText, summarise, targets, type FileResult } from '../src/bench/knowledge-figures';
import { checkLabels, foldOf, loadLabels, type LabelledFile, type LabelledItem } from '../src/bench/knowledge-labels';
import { ROOT, tmpFolder } from './helpers';

describe('the harness, end to end on a real memory', () => {
  // A small transcript written here for the test, not a real one: the harness is what is tested.
  const root = tmpFolder('knowledge-fixtures');
  const project = 'github.com/example/knowledge-bench-test';
  fs.mkdirSync(path.join(root, 't'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 't', 'session.jsonl'),
    [
      { role: 'user', text: 'Can you look at why the build is slow?' },
      { role: 'assistant', text: 'The build compiles every package twice; I removed the second pass.' },
      { role: 'user', text: 'Thanks. Use pnpm instead of npm in this project.' },
    ]
      .map((t) => JSON.stringify(t))
      .join('\n') + '\n',
  );
  const labelled: LabelledFile = {
    file: 't/session.jsonl',
    type: 'transcript',
    project,
    fold: foldOf(project),
    items: [
      { id: 'pnpm', kind: 'rule', language: 'en', by: 'user', said: [{ at: 'line 3', quote: 'Use pnpm instead of npm in this project.' }] },
      {
        id: 'build',
        kind: 'lesson',
        language: 'en',
        by: 'agent',
        said: [{ at: 'line 2', quote: 'The build compiles every package twice' }],
      },
    ],
    notItems: [{ at: 'line 1', quote: 'Can you look at why the build is slow?', why: 'question' }],
  };

  /** Records, before the file is read: the rule (through the knowledge writer), the same rule again as a
   *  second item (an extractor that failed to merge), an unlabelled rule, a not-item, and the person's
   *  decision, whose subject and object are sentence fragments, which the brief shows. */
  async function seed(folder: string): Promise<void> {
    const mem = await JournaledGraph.open(folder, resolveConfig(), () => {});
    try {
      const by = { authority: 'user' as const, source: 'test', project };
      const writer = new KnowledgeWriter(mem);
      const first = writer.read({
        kind: 'rule',
        statement: 'Use pnpm instead of npm in this project.',
        subject: 'pnpm',
        assertedBy: 'user',
        project,
      });
      const again: EventBody = {
        type: 'relationship.assert',
        id: mem.graph.nextId('rel', writer.used),
        subject: 'npm',
        predicate: 'rule',
        object: 'npm',
        prior: 'inferred',
        assertedBy: 'user',
        project,
        kind: 'rule',
        statement: 'Always use pnpm, not npm, in this project',
      };
      const others = new KnowledgeWriter(mem, writer.used + 1);
      const fridays = others.read({ kind: 'rule', statement: 'Deploy only on Fridays', subject: 'deploys', assertedBy: 'user', project });
      const question = others.read({
        kind: 'fact',
        statement: 'Look at why the build is slow',
        subject: 'build',
        assertedBy: 'user',
        project,
      });
      mem.commit([first.event!, again, fridays.event!, question.event!], by);
      mem.commit(
        [
          {
            type: 'relationship.assert',
            id: mem.graph.nextId('rel'),
            subject: 'errors indicate the backend',
            predicate: 'decided',
            object: 'use pnpm instead of npm in this project',
            prior: 'explicit',
            assertedBy: 'user',
            project,
          },
        ],
        by,
      );
    } finally {
      mem.close();
    }
  }

  test('the figures move by exactly what the test recorded', async () => {
    const base = await measureFile(labelled, root, {});
    const seeded = await measureFile(labelled, root, { seed });
    const pnpm = (r: typeof base) => r.items.find((i) => i.id === 'pnpm')!;

    // The brief now holds the person's decision, which states the rule.
    assert.equal(pnpm(seeded).stated, true);
    // Three rules and one fact were recorded; two say the labelled rule, one says the not-item. The
    // person's decision in the transcript says the first rule in its words: it is that rule's evidence,
    // not an item of its own (one item per piece of knowledge, whichever kind it was read as).
    assert.equal(seeded.extracted.length, base.extracted.length + 3);
    const saying = (r: typeof base, id: string) => r.extracted.filter((x) => x.labels.includes(id)).length;
    assert.equal(saying(seeded, 'pnpm'), saying(base, 'pnpm') + 1);
    assert.equal(pnpm(seeded).heldAs, pnpm(base).heldAs + 1);
    assert.equal(seeded.extracted.filter((x) => x.wrong).length, base.extracted.filter((x) => x.wrong).length + 1);
    assert.ok(seeded.rules_twice >= base.rules_twice + 1);
    // The decision's subject and object are clause fragments, not names: two more junk entities, those two.
    assert.deepEqual(
      seeded.junk
        .map((j) => j.name)
        .filter((n) => !base.junk.some((b) => b.name === n))
        .sort(),
      ['errors indicate the backend', 'use pnpm instead of npm in this project'],
    );

    const figures = summarise([seeded]);
    assert.equal(figures.all.labelled, 2);
    assert.equal(figures.all.stated, seeded.items.filter((i) => i.stated).length);
    assert.equal(figures.extracted.items, seeded.extracted.length);
    assert.equal(figures.extracted.labelled, seeded.extracted.filter((x) => x.labels.length > 0).length);
    assert.equal(figures.duplicates.by_kind.rule, 1);
    const twice = targets({ budget_tokens: 600, folds: [labelled.fold], files: [seeded], figures: { [labelled.fold]: figures } });
    assert.equal(twice.find((t) => t.name === 'rules stored twice')!.met, false);
  });

  test('a run reads only the folds asked for, from a labels file', async () => {
    fs.mkdirSync(path.join(root, 'labels'), { recursive: true });
    const other = labelled.fold === 'tune' ? 'held' : 'tune';
    const file = path.join(root, 'labels', 'labels.json');
    fs.writeFileSync(file, JSON.stringify({ files: [labelled, { ...labelled, fold: other, file: 't/missing.jsonl' }] }));
    const r = await runKnowledgeBench({ labelsFile: file, folds: [labelled.fold] });
    assert.deepEqual(
      r.files.map((f) => f.file),
      ['t/session.jsonl'],
    );
    assert.equal(r.figures[labelled.fold]!.all.labelled, 2);
  });

  test('two rules that share words are held twice only when the labels make them one', async () => {
    // Written for this test: two of a person's rules the word rule calls the same ("hardcoded", "values").
    fs.writeFileSync(
      path.join(root, 't', 'two-rules.jsonl'),
      [
        { role: 'user', text: 'Do not hardcode spacing values.' },
        { role: 'user', text: 'Do NOT use any hardcoded values anywhere else.' },
      ]
        .map((t) => JSON.stringify(t))
        .join('\n') + '\n',
    );
    const said = (at: string, quote: string) => ({ at, quote });
    const spacing = said('line 1', 'Do not hardcode spacing values.');
    const values = said('line 2', 'Do NOT use any hardcoded values anywhere else.');
    const rule = (id: string, ...quotes: { at: string; quote: string }[]): LabelledItem => ({
      id,
      kind: 'rule',
      language: 'en',
      by: 'user',
      said: quotes,
    });
    const file = { ...labelled, file: 't/two-rules.jsonl', notItems: [] };
    const apart = await measureFile({ ...file, items: [rule('spacing', spacing), rule('values', values)] }, root, {});
    assert.equal(apart.extracted.filter((x) => x.kind === 'rule').length, 2, JSON.stringify(apart.extracted));
    assert.deepEqual(
      apart.extracted.map((x) => x.closest),
      ['spacing', 'values'],
    );
    assert.equal(apart.rules_twice, 0);
    assert.deepEqual(
      apart.items.map((i) => i.heldAs),
      [1, 1],
    );
    const one = await measureFile({ ...file, items: [rule('no-hardcoding', spacing, values)] }, root, {});
    assert.equal(one.rules_twice, 1, JSON.stringify(one.extracted));
    assert.equal(one.items[0]!.heldAs, 2);
  });
});

describe('the figures, counted by hand on a tiny labelled result', () => {
  // Two files as the harness reports them: a transcript read, and an instruction file not read.
  const item = (id: string, kind: string, language: string, stated: boolean, heldAs: number) => ({ id, kind, language, stated, heldAs });
  const extracted = (id: string, labels: string[], wrong = false, kind = 'rule') => ({
    id,
    kind,
    statement: id,
    labels,
    wrong,
    ...(labels[0] ? { closest: labels[0], closestKind: 'rule' } : {}),
  });
  const transcript: FileResult = {
    file: 'a.jsonl',
    project: 'github.com/example/a',
    fold: 'held',
    type: 'transcript',
    brief_tokens: 100,
    brief_left_out: 0,
    items: [item('r1', 'rule', 'en', true, 1), item('r2', 'rule', 'en', false, 2), item('d1', 'decision', 'zh', true, 0)],
    extracted: [
      extracted('x1', ['r1']),
      extracted('x2', ['r2']),
      extracted('x3', ['r2'], false, 'fact'),
      extracted('x4', [], true),
      extracted('x5', []),
    ],
    rules_twice: 1,
    entities: 10,
    junk: [
      { name: 'The', reason: 'stop word' },
      { name: 'you', reason: 'pronoun' },
    ],
  };
  const instructions: FileResult = {
    file: 'b/CLAUDE.md',
    project: 'github.com/example/b',
    fold: 'tune',
    type: 'instructions',
    brief_tokens: 20,
    brief_left_out: 0,
    items: [item('f1', 'fact', 'en', false, 0), item('p1', 'preference', 'ja', false, 0)],
    extracted: [],
    rules_twice: 0,
    entities: 0,
    junk: [],
  };
  const f = summarise([transcript, instructions]);

  test('shares stated: 2 of 5 in all, by kind, language and source', () => {
    assert.equal(f.files, 2);
    assert.deepEqual(f.all, { labelled: 5, stated: 2, share: 0.4 });
    assert.deepEqual(f.by_kind, {
      rule: { labelled: 2, stated: 1, share: 0.5 },
      decision: { labelled: 1, stated: 1, share: 1 },
      fact: { labelled: 1, stated: 0, share: 0 },
      preference: { labelled: 1, stated: 0, share: 0 },
    });
    assert.deepEqual(f.by_language, {
      en: { labelled: 3, stated: 1, share: 0.3333 },
      zh: { labelled: 1, stated: 1, share: 1 },
      ja: { labelled: 1, stated: 0, share: 0 },
    });
    assert.deepEqual(f.english, { labelled: 3, stated: 1, share: 0.3333 });
    assert.deepEqual(f.not_english, { labelled: 2, stated: 1, share: 0.5 });
    assert.deepEqual(f.by_type, {
      transcript: { labelled: 3, stated: 2, share: 0.6667 },
      instructions: { labelled: 2, stated: 0, share: 0 },
    });
  });

  test('precision 3 of 5 items held, 1 wrong, 2 of the 3 of the kind labelled; r2 held twice, one rule pair twice; junk 2 of 10', () => {
    assert.deepEqual(f.extracted, { items: 5, labelled: 3, wrong: 1, precision: 0.6, kind_agrees: 2 });
    assert.deepEqual(f.duplicates, { by_kind: { rule: 1 }, rules_twice: 1 });
    assert.equal(f.entities.total, 10);
    assert.equal(f.entities.junk, 2);
    assert.equal(f.entities.share, 0.2);
    assert.deepEqual(f.entities.by_reason, { 'stop word': 1, pronoun: 1 });
  });

  test('targets: the held fold 2 of 3 (met), its English 1 of 2 (not), junk 20% (not), rules twice 2 (not)', () => {
    const r = {
      budget_tokens: 600,
      folds: ['tune', 'held'] as ('tune' | 'held')[],
      files: [transcript, instructions],
      figures: { tune: summarise([instructions]), held: summarise([transcript]), all: f },
    };
    const got = Object.fromEntries(targets(r).map((t) => [t.name, [t.value, t.met]]));
    assert.deepEqual(got, {
      'brief states labelled items, held fold': ['66.7% (2 of 3)', true],
      'brief states English items, held fold': ['50.0% (1 of 2)', false],
      'junk entities': ['20.0% (2 of 10)', false],
      'rules stored twice': ['2', false],
    });
    const text = knowledgeText(r).join('\n');
    assert.match(text, /all \(2 files\): brief states 40\.0% \(2 of 5\); English 33\.3% \(1 of 3\); other languages 50\.0% \(1 of 2\)/);
    assert.match(
      text,
      /items held: 5, saying a labelled item 3 \(precision >= 60\.0%\), of the kind labelled 2 \(66\.7%\), saying a not-item 1/,
    );
    const docs = knowledgeSection(r, 'context');
    assert.match(
      docs,
      /\| all \| 2 \| 40\.0% \(2 of 5\) \| 33\.3% \(1 of 3\) \| 50\.0% \(1 of 2\) \| 5 \| 60\.0% \| 66\.7% \| 20\.0% \(2 of 10\) \|/,
    );
    assert.match(docs, /\| tune \| {2}\| 0\.0% \(0 of 2\) \|/);
  });

  test('an instruction file is read through the memory-file reader, and its rule is stated', async () => {
    const root = tmpFolder('knowledge-instructions');
    fs.mkdirSync(path.join(root, 'b'));
    fs.writeFileSync(path.join(root, 'b', 'CLAUDE.md'), '# Rules\n\n- Always run `npm test` before committing.\n');
    const labelled: LabelledFile = {
      file: 'b/CLAUDE.md',
      type: 'instructions',
      project: 'github.com/example/b',
      fold: foldOf('github.com/example/b'),
      items: [
        {
          id: 'npm-test',
          kind: 'rule',
          language: 'en',
          by: 'file',
          said: [{ at: 'line 3', quote: 'Always run `npm test` before committing.' }],
        },
      ],
      notItems: [],
    };
    const r = await measureFile(labelled, root, {});
    assert.deepEqual(
      r.items.map((i) => [i.id, i.stated, i.heldAs]),
      [['npm-test', true, 1]],
    );
  });
});

test('`node dist/bench.js knowledge` on a tiny labels file: both folds counted by hand, its docs section written', () => {
  // A folder laid out like the repository: docs/BENCHMARKS.md, and labels whose files sit beside them.
  const repo = tmpFolder('knowledge-cli');
  fs.mkdirSync(path.join(repo, 'docs'));
  fs.writeFileSync(
    path.join(repo, 'docs', 'BENCHMARKS.md'),
    '# Benchmarks\n<!-- bench:knowledge -->\nold figures\n<!-- /bench:knowledge -->\nKept.\n',
  );
  fs.mkdirSync(path.join(repo, 'fx', 'labels'), { recursive: true });
  fs.mkdirSync(path.join(repo, 'fx', 'c'));
  const turns = [
    { role: 'user', text: 'Thanks. Use pnpm instead of npm in this project.' },
    { role: 'assistant', text: 'The build compiles every package twice; I removed the second pass.' },
  ];
  fs.writeFileSync(path.join(repo, 'fx', 'session.jsonl'), turns.map((t) => JSON.stringify(t)).join('\n') + '\n');
  fs.writeFileSync(path.join(repo, 'fx', 'c', 'CLAUDE.md'), '# Rules\n\n- Always run `npm test` before committing.\n');
  const rule = (id: string, at: string, quote: string) => ({ id, kind: 'rule', language: 'en', by: 'user', said: [{ at, quote }] });
  const files: LabelledFile[] = [
    {
      file: 'session.jsonl',
      type: 'transcript',
      project: 'github.com/example/knowledge-bench-test',
      fold: 'tune',
      items: [
        rule('pnpm', 'line 1', 'Use pnpm instead of npm in this project.') as LabelledFile['items'][number],
        {
          id: 'build',
          kind: 'lesson',
          language: 'en',
          by: 'agent',
          said: [{ at: 'line 2', quote: 'The build compiles every package twice' }],
        },
      ],
      notItems: [],
    },
    {
      file: 'c/CLAUDE.md',
      type: 'instructions',
      project: 'github.com/example/c',
      fold: 'held',
      items: [rule('npm-test', 'line 3', 'Always run `npm test` before committing.') as LabelledFile['items'][number]],
      notItems: [],
    },
  ];
  for (const f of files) assert.equal(f.fold, foldOf(f.project), f.file);
  const labels = path.join(repo, 'fx', 'labels', 'labels.json');
  fs.writeFileSync(labels, JSON.stringify({ files }));
  assert.deepEqual(checkLabels(loadLabels(labels)), []);
  const bench = (args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'bench.js'), 'knowledge', ...args], { cwd: repo, encoding: 'utf8' });
    const last = r.stdout.trim().split('\n').at(-1) ?? '';
    return { code: r.status, stderr: r.stderr, result: (last.startsWith('{') ? JSON.parse(last) : undefined) as any };
  };

  const tune = bench(['--data', labels]);
  assert.equal(tune.code, 0, tune.stderr);
  assert.deepEqual(tune.result.folds, ['tune'], 'the tune fold is the default');
  assert.doesNotMatch(tune.stderr, /HELD fold/);

  const r = bench(['--data', labels, '--fold', 'all', '--write-docs']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /this run reads the HELD fold/);
  const { figures } = r.result;
  assert.deepEqual([figures.tune.files, figures.tune.all.labelled, figures.held.files, figures.held.all.labelled], [1, 2, 1, 1]);
  assert.deepEqual(
    [figures.all.files, figures.all.all.labelled, figures.all.english.labelled, figures.all.not_english.labelled],
    [2, 3, 3, 0],
  );
  assert.deepEqual(
    [figures.all.by_kind.rule.labelled, figures.all.by_kind.lesson.labelled, figures.all.by_type.instructions.labelled],
    [2, 1, 1],
  );
  assert.equal(figures.all.all.stated, figures.tune.all.stated + figures.held.all.stated);
  const written = fs.readFileSync(path.join(repo, 'docs', 'BENCHMARKS.md'), 'utf8');
  assert.ok(written.startsWith('# Benchmarks\n<!-- bench:knowledge -->\n### Knowledge: what the brief (600 tokens) states'), written);
  assert.ok(written.endsWith('<!-- /bench:knowledge -->\nKept.\n'), written);
  assert.match(written, /node dist\/bench\.js knowledge --data \S+labels\.json --fold all/);
  assert.match(written, /\| all \| 2 \| [0-9.]+% \(\d of 3\) \|/);

  const refused = bench(['--data', labels, '--write-docs']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /--write-docs writes every fold: give --fold all/);
  assert.match(bench(['--fold', 'nope']).stderr, /--fold is one of tune, held, all/);
  assert.match(bench(['--k', '3']).stderr, /bench knowledge does not take --k/);
});
