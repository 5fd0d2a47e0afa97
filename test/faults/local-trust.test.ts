/**
 * The person's own files against a slip: `export --out` never writes into the memory folder,
 * however the path reaches it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { cleanup, recall, tmpMemory } from './kit';

after(cleanup);

test('export refuses to write into the memory folder, however the path is spelt', async () => {
  const memory = tmpMemory('export-into');
  assert.equal((await recall(memory, ['remember', 'the note that must survive the export'])).code, 0);
  const journal = path.join(memory, 'journal.jsonl');
  const before = fs.readFileSync(journal);
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-export-out-'));
  try {
    fs.symlinkSync(journal, path.join(outside, 'link-to-journal.json'));
    fs.symlinkSync(memory, path.join(outside, 'link-to-memory'));
    fs.symlinkSync(path.join(memory, 'export.json'), path.join(outside, 'dangling.json'));
    fs.mkdirSync(path.join(memory, 'sub'));
    fs.symlinkSync(path.join(memory, 'sub'), path.join(outside, 'link-to-sub'));
    fs.linkSync(journal, path.join(outside, 'hard-link.json'));
    const targets = [
      journal,
      `${memory}/not-there/../journal.jsonl`,
      path.join(memory, 'export.json'),
      path.join(outside, 'link-to-journal.json'),
      path.join(outside, 'link-to-memory', 'snapshot.sqlite'),
      path.join(outside, 'dangling.json'),
      // The system goes through the link, then up: into the memory folder, whatever the spelling says.
      `${outside}/link-to-sub/../export.json`,
      path.join(outside, 'hard-link.json'),
    ];
    for (const out of targets) {
      const r = await recall(memory, ['export', '--out', out]);
      assert.equal(r.code, 1, `${out}: ${r.stderr}`);
      assert.match(r.stderr, /inside the memory folder/, out);
      assert.ok(fs.readFileSync(journal).equals(before), `${out}: the journal is untouched`);
    }
    assert.equal(fs.existsSync(path.join(memory, 'export.json')), false);
    // Outside the folder it writes, and the memory still reads its journal after a restart.
    const good = path.join(outside, 'export.json');
    assert.equal((await recall(memory, ['export', '--out', good])).code, 0);
    assert.match(fs.readFileSync(good, 'utf8'), /the note that must survive the export/);
    assert.equal((await recall(memory, ['service', 'stop'])).code, 0);
    const q = await recall(memory, ['episodes', 'survive', '--json']);
    assert.equal(q.code, 0, q.stderr);
    assert.equal(JSON.parse(q.stdout).length, 1);
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }
});
