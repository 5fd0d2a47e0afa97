// Knowledge in the real editor: an AGENTS.md written into the workspace is read by the extension
// (it watches the workspace's memory files), its rules and its decision show in the Entities view's
// "Rules and decisions" group, and recall_brief (the brief as chat and agents get it, #recallBrief)
// names them with their ids. Called once from extension.e2e.mjs, late (the group sits above the
// entity types the earlier checks read); the file is deleted after, which ends its items.
// env: { check, page, h, dirs, invokeTools, waitRow }.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const RULES = ['Never print the connection string in the status endpoint.', 'Always run the linter before pushing a branch.'];
const DECISION = 'We use PostgreSQL for the ledger database.';
const AGENTS_MD = [
  '# Agent instructions',
  '',
  '## Rules',
  '',
  ...RULES.map((r) => `- ${r}`),
  '',
  '## Decisions',
  '',
  `- ${DECISION}`,
  '',
].join('\n');

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export async function checksKnowledge({ check, page, h, dirs, invokeTools, waitRow }) {
  const file = path.join(dirs.folder, 'AGENTS.md');
  // The whole memory (every project), as the CLI exports it: where the items landed and their ids.
  const items = () =>
    JSON.parse(
      execFileSync(process.execPath, [path.join(h.REPO, 'dist/cli.js'), '--memory', dirs.home, 'export'], {
        encoding: 'utf8',
        env: { ...process.env, RECALL_HOME: dirs.home, RECALL_IDLE_EXIT_MS: '120000' },
      }),
    ).facts.filter((f) => f.kind && f.status === 'current');
  const said = (statement) => items().find((f) => f.statement === statement);

  await check('AGENTS.md in the workspace: its rules show in the Entities view\'s "Rules and decisions" group', async () => {
    fs.writeFileSync(file, AGENTS_MD);
    await h.waitFor(() => [...RULES, DECISION].every(said), { timeoutMs: 60000, what: 'the AGENTS.md items in the memory' });
    for (const r of RULES) assert.deepEqual([said(r).kind, said(r).authority], ['rule', 'user'], r);
    assert.equal(said(DECISION).kind, 'decision');
    // The group is the view's first row: the view is brought to its top, as a person would scroll.
    const top = async () => {
      await page.locator(`[role=tree][aria-label="Entities"]`).focus();
      await page.keyboard.press('Home');
    };
    await h.waitFor(
      async () => {
        await top();
        return waitRow('Entities', /^Rules and decisions \d+$/, 2000).then(
          () => true,
          () => false,
        );
      },
      { timeoutMs: 30000, what: 'the "Rules and decisions" group' },
    );
    for (const r of RULES) await waitRow('Entities', new RegExp(`^rule: ${escape(r)} .*said by`));
    await waitRow('Entities', new RegExp(`^decision: ${escape(DECISION)} `));
    await h.screenshot(page, 'recall-rules-group');
  });

  await check('recall_brief through VS Code is filled from those items: the rules first under their title, each with its id', async () => {
    const ids = RULES.map((r) => said(r)?.id);
    assert.ok(ids.every(Boolean), 'the rules are in the memory');
    const run = await invokeTools([{ tool: 'recall_brief', input: {} }]);
    const [r] = run.results;
    assert.ok(r.ok, r.error);
    assert.match(r.text, /^Recall brief \([^)]+\); cite ids/, 'it says which project it answered for');
    assert.doesNotMatch(r.text, /nothing confirmed, decided or preferred yet/);
    for (const [i, rule] of RULES.entries()) assert.match(r.text, new RegExp(`\\[${ids[i]}\\] ${escape(rule)}`));
    // Rules first; what most of its lines share (how sure, since when) may follow the title once.
    assert.match(r.text, /^Recall brief [^\n]*\nRules:[^\n]*\n/);
  });

  fs.rmSync(file, { force: true });
}
