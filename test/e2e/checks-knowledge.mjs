// Knowledge in the real editor: an AGENTS.md written into the workspace is read by the extension
// (it watches the workspace's memory files), its rules and its decision show in the Entities view's
// "Rules and decisions" group, and recall_brief (the brief as chat and agents get it, #recallBrief)
// names them with their ids; Same As… joins two that say one rule, and the file read again keeps
// them one; Find Items Said Twice… joins another pair a (mock) model proposes and the person picks. Called once from extension.e2e.mjs, late (the group sits above the entity types the
// earlier checks read); the file is deleted after, which ends its items.
// env: { check, page, h, dirs, invokeTools, waitRow, waitNotification }.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const RULES = ['Never print the connection string in the status endpoint.', 'Always run the linter before pushing a branch.'];
const DECISION = 'We use PostgreSQL for the ledger database.';
// One rule said twice in other words (spatialvault's .github/copilot-instructions.md; origin in
// test/fixtures/knowledge/SOURCES.md): the reader holds two items, the person joins them.
const KEPT = 'Use prepared statements and parameterized queries.';
const TWICE = 'Use parameterized queries to prevent SQL injection.';
// Another such pair of the same file, which the MOCK model (extension.e2e.mjs's driver) proposes when asked
// which items say the same (Find Items Said Twice…), naming them by the ids its prompt shows.
export const MOCK_JOIN = {
  goes: 'Never modify existing migration files.',
  kept: 'Do not modify database migration files that have already been applied.',
};
const AGENTS_MD = [
  '# Agent instructions',
  '',
  '## Rules',
  '',
  ...[...RULES, KEPT, TWICE, MOCK_JOIN.kept, MOCK_JOIN.goes].map((r) => `- ${r}`),
  '',
  '## Decisions',
  '',
  `- ${DECISION}`,
  '',
].join('\n');

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export async function checksKnowledge({ check, page, h, dirs, invokeTools, waitRow, waitNotification }) {
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

  await check('Same As… from the palette: the saying picked, then the rule it repeats; the file read again keeps them one', async () => {
    const [kept, twice] = [said(KEPT), said(TWICE)];
    assert.ok(kept && twice && kept.id !== twice.id, 'the reader holds the two sayings as two items');
    await h.runCommand(page, 'View: Close All Editors').catch(() => {});
    const widget = page.locator('.quick-input-widget');
    const title = (t) => widget.locator('.quick-input-title', { hasText: t }).first();
    const row = (t) => widget.locator('.quick-input-list .monaco-list-row', { hasText: t }).first();
    const opened = title('Recall: Same As… the item that goes').waitFor({ state: 'visible', timeout: 30000 });
    await Promise.race([h.runCommand(page, 'Recall: Same As…').catch(() => {}), opened]);
    await opened;
    await widget.locator('input.input').fill('SQL injection');
    await row(TWICE).click({ timeout: 15000 });
    await row(KEPT).waitFor({ state: 'visible', timeout: 15000 });
    await h.sleep(300);
    await h.screenshot(page, 'recall-same-as');
    await row(KEPT).click();
    await waitNotification(new RegExp(`^${twice.id} is ${kept.id} said again`));
    assert.equal(said(TWICE), undefined, 'the saying that went is no current item');
    assert.equal(said(KEPT).evidence.length, 2, "its line is the kept rule's evidence");
    // Its line edited, the extension reads the file again: the edit counts for the kept rule, no new item.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(TWICE, TWICE.replace(/\.$/, ', always.')));
    await h.waitFor(() => said(KEPT).evidence.length === 3, { timeoutMs: 60000, what: 'the edited line read as the kept rule' });
    assert.ok(!items().some((f) => f.statement?.includes('prevent SQL injection')), 'no second item says it');
  });

  await check(
    'Find Items Said Twice…: the MOCK model (standing in for Copilot) proposes a pair, the person picks it, it is joined',
    async () => {
      const [kept, goes] = [said(MOCK_JOIN.kept), said(MOCK_JOIN.goes)];
      assert.ok(kept && goes && kept.id !== goes.id, 'the reader holds the two sayings as two items');
      await h.runCommand(page, 'View: Close All Editors').catch(() => {});
      const widget = page.locator('.quick-input-widget');
      const opened = widget
        .locator('.quick-input-title', { hasText: 'Recall: Find Items Said Twice' })
        .first()
        .waitFor({ state: 'visible', timeout: 60000 });
      // Should VS Code first ask whether Recall may use the model, the person allows it.
      void page
        .locator('.monaco-dialog-box .monaco-button', { hasText: /^(Allow|Yes|Continue)$/ })
        .first()
        .click({ timeout: 30000 })
        .catch(() => {});
      await Promise.race([h.runCommand(page, 'Recall: Find Items Said Twice…').catch(() => {}), opened]);
      await opened;
      // One row per proposed pair: the saying that goes, what it repeats under it. A click ticks it; Enter joins what is ticked.
      await widget
        .locator('.quick-input-list .monaco-list-row', { hasText: MOCK_JOIN.goes.replace(/\.$/, '') })
        .first()
        .click({ timeout: 15000 });
      await h.sleep(300);
      await h.screenshot(page, 'recall-find-said-twice');
      await page.keyboard.press('Enter');
      await waitNotification(/Find Items Said Twice: joined 1 pair\(s\)/);
      assert.equal(said(MOCK_JOIN.goes), undefined, 'the saying that went is no current item');
      assert.equal(said(MOCK_JOIN.kept).evidence.length, 2, "its line is the kept rule's evidence");
    },
  );

  fs.rmSync(file, { force: true });
}
