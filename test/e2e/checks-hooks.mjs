// Agent hooks in the real editor: the first-run offer writes the workspace's .github/hooks/recall.json
// (VS Code's agent hooks file) only after "Install Hooks", in the documented shape, with commands that
// run and check this memory's rules; the palette's Remove and Install commands; and the check editor
// (the palette's rule picker and a rule row's context menu) setting and removing a rule's check, with
// a bad pattern named in the input box and what hooks decided shown on the rule's row.
// And VS Code itself (1.112, hooks in Preview) lists the file the offer wrote: Chat: Configure Hooks...
// counts each event's hooks and names each hook's command and file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const HOOKS = '.github/hooks/recall.json';
const PAYLOADS = (h) => JSON.parse(fs.readFileSync(path.join(h.REPO, 'test/fixtures/hooks/payloads.json'), 'utf8'));
/** The fields VS Code's hooks reference documents for a command hook (code.visualstudio.com/docs/agents/reference/hooks-reference). */
const HOOK_FIELDS = new Set(['type', 'command', 'windows', 'linux', 'osx', 'cwd', 'env', 'timeout']);

/** The file is one VS Code's agent hooks read: `hooks.<Event>` lists of command hooks, Recall's naming this memory. */
function assertHooksFile(text, dirs) {
  const json = JSON.parse(text);
  assert.deepEqual(Object.keys(json), ['hooks']);
  assert.deepEqual(Object.keys(json.hooks).sort(), ['PostToolUse', 'PreToolUse', 'SessionStart']);
  for (const [event, list] of Object.entries(json.hooks)) {
    assert.ok(Array.isArray(list) && list.length === 1, `${event}: one entry`);
    const [entry] = list;
    for (const k of Object.keys(entry)) assert.ok(HOOK_FIELDS.has(k), `${event}: "${k}" is not a documented field`);
    assert.equal(entry.type, 'command');
    assert.ok(Number.isInteger(entry.timeout) && entry.timeout > 0, `${event}: timeout in seconds`);
    const slug = event.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
    assert.match(
      entry.command,
      new RegExp(`dist/hook\\.js ${slug} --host vscode --memory ${dirs.home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
  }
  return json;
}

/** Runs a hook's command line as VS Code runs it: through the shell, in the workspace, the payload on stdin. */
function runHook(command, payload, cwd) {
  const r = spawnSync('sh', ['-c', command], {
    cwd,
    input: JSON.stringify(payload),
    encoding: 'utf8',
    env: { ...process.env, RECALL_HOOK_DEADLINE_MS: '30000' },
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim() ? JSON.parse(r.stdout) : {};
}

/** VS Code's labels for the events Recall hooks, in its Configure Hooks quick pick. */
const EVENT_LABELS = { SessionStart: 'Session Start', PreToolUse: 'Pre-Tool Use', PostToolUse: 'Post-Tool Use' };

/**
 * What a person sees in VS Code's own hooks listing (Chat: Configure Hooks..., no Copilot needed): the
 * events, each with the count of hooks VS Code read from the hook files (.github/hooks is one of
 * chat.hookFilesLocations' defaults), then per event its hooks, by command and file. Asserts they are
 * the hooks of `file` and nothing else; fails when the file is absent (no counts, no rows).
 */
export async function assertVsCodeListsHooks({ page, h, file }) {
  const vscodeDir = path.join(h.CACHE, 'code-server/node_modules/code-server/lib/vscode');
  const version = JSON.parse(fs.readFileSync(path.join(vscodeDir, 'package.json'), 'utf8')).version;
  const [major, minor] = version.split('.').map(Number);
  assert.ok(major > 1 || minor >= 110, `VS Code ${version} has no agent hooks (Preview from 1.110)`);
  const { hooks } = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { hooks: {} };
  const widget = page.locator('.quick-input-widget');
  const title = (t) => widget.locator('.quick-input-title', { hasText: t }).first();
  const rows = widget.locator('.quick-input-list .monaco-list-row');
  /** Each shown row's label and description, as the quick pick renders them. */
  const shown = () =>
    rows.evaluateAll((els) =>
      els.map((e) => ({
        label: e.querySelector('.label-name')?.textContent.trim() ?? '',
        description: e.querySelector('.label-description')?.textContent.trim() ?? '',
      })),
    );
  const open = async () => {
    await h.runCommand(page, 'View: Close All Editors').catch(() => {});
    const opened = title(/^Hooks$/).waitFor({ state: 'visible', timeout: 30000 });
    // The palette stays open as the command's own quick pick: runCommand's wait for it to close is not awaited.
    await Promise.race([h.runCommand(page, 'Chat: Configure Hooks...').catch(() => {}), opened]);
    await opened;
    await h.waitFor(async () => (await rows.count()) >= Object.keys(EVENT_LABELS).length, { what: 'the lifecycle events' });
  };
  // A closing quick pick is still visible while it fades: wait until it is gone, so that no row of the
  // old list is clicked after it.
  const close = async () => {
    for (let i = 0; i < 3 && (await widget.isVisible()); i++) {
      await widget.locator('input.input').press('Escape');
      await widget.waitFor({ state: 'hidden', timeout: 2000 }).catch(() => {});
    }
  };
  const want = Object.fromEntries(Object.values(EVENT_LABELS).map((l) => [l, 1]));
  let counted = {};
  try {
    // VS Code finds a new hook file through its file watcher: the listing is reopened until it counts it.
    await h
      .waitFor(
        async () => {
          await close();
          await open();
          counted = {};
          for (const { label } of await shown()) {
            const m = /^(.*) \((\d+)\)$/.exec(label);
            if (m) counted[m[1]] = Number(m[2]);
          }
          return JSON.stringify(counted) === JSON.stringify(want);
        },
        { timeoutMs: 30000, intervalMs: 1000, what: 'the hooks counted' },
      )
      .catch(() => {});
    assert.deepEqual(counted, want, "VS Code counts one hook for each of Recall's events, and no others");
    await h.screenshot(page, 'vscode-hooks-events');
    for (const [event, label] of Object.entries(EVENT_LABELS)) {
      // The listing is opened afresh for each event; a click that lands while it is re-rendering is tried again.
      await h.waitFor(
        async () => {
          await close();
          await open();
          try {
            await rows
              .filter({ hasText: `${label} (` })
              .first()
              .click({ timeout: 5000 });
            await title(label).waitFor({ state: 'visible', timeout: 5000 });
            return true;
          } catch {
            return false;
          }
        },
        { timeoutMs: 45000, intervalMs: 500, what: `the ${label} hooks opened` },
      );
      let listed = [];
      await h.waitFor(
        async () => {
          listed = (await shown()).filter((r) => r.description);
          return listed.length > 0;
        },
        { what: `the ${label} hooks` },
      );
      assert.deepEqual(listed, [{ label: hooks[event]?.[0]?.command, description: HOOKS }], `${label}: Recall's command, from ${HOOKS}`);
      if (event === 'PreToolUse') await h.screenshot(page, 'vscode-hooks-pre-tool-use');
      await close();
    }
  } finally {
    await close();
  }
}

export async function checksHooksOffer({ check, page, h, dirs, dialog }) {
  const file = path.join(dirs.folder, HOOKS);
  let written;

  await check(
    'the first-run offer of agent hooks writes .github/hooks/recall.json only after "Install Hooks", in VS Code\'s documented shape',
    async () => {
      const done = await h.answerOffer(page, 'agent hooks', 'Install Hooks', async (offer) => {
        assert.match(offer, /your rules are checked before a tool runs/);
        assert.ok(!fs.existsSync(file), 'written before the person answered');
        await h.screenshot(page, 'recall-hooks-offer');
      });
      written = await h.waitForFile(file, { timeoutMs: 15000 });
      assertHooksFile(written, dirs);
      await done(/agent hooks added to \.github\/hooks\/recall\.json/);
    },
  );

  await check('the hooks written run as VS Code would run them: the brief at session start, this memory answering', async () => {
    const { hooks } = JSON.parse(fs.readFileSync(file, 'utf8'));
    const start = PAYLOADS(h).vscode['session-start'];
    const out = runHook(hooks.SessionStart[0].command, { ...start, cwd: dirs.folder }, dirs.folder);
    assert.equal(out.hookSpecificOutput?.hookEventName, 'SessionStart', JSON.stringify(out));
    assert.match(out.hookSpecificOutput.additionalContext, /^Recall brief/);
  });

  await check(
    "VS Code lists Recall's hooks file (chat.useHooks on): Chat: Configure Hooks... counts its three events, each names its command in .github/hooks/recall.json",
    () => assertVsCodeListsHooks({ page, h, file }),
  );

  await check(
    'Recall: Remove Agent Hooks takes the file away (nothing else was in it); Recall: Install Agent Hooks asks, then writes it again',
    async () => {
      await h.runCommand(page, 'View: Close All Editors').catch(() => {});
      await h.runCommand(page, 'Recall: Remove Agent Hooks');
      await h.waitFor(() => !fs.existsSync(file), { timeoutMs: 15000, what: `${HOOKS} removed` });
      await h.runCommand(page, 'Recall: Install Agent Hooks').catch(() => {});
      const box = await dialog(/Add Recall's agent hooks to \.github\/hooks\/recall\.json/);
      assert.match(await box.innerText(), /Before each tool call/);
      await box.locator('.monaco-button', { hasText: /^Install$/ }).click();
      assert.equal(await h.waitForFile(file, { timeoutMs: 15000 }), written, 'the same file as the offer wrote');
    },
  );
}

export async function checksRuleCheckEditor({ check, page, h, dirs, cliJson, waitRow, waitNotification }) {
  const statement = 'Pushes to main go through review.';
  let rule;

  /**
   * The rule's row in the "Rules and decisions" group, at the top of the Entities view: the view
   * renders only the rows in sight, so all is collapsed and the group opened until the row shows.
   */
  const ruleRow = async (tail = '', timeoutMs = 30000) => {
    const re = new RegExp(`^rule: ${statement.replace('.', '\\.')} ${tail}`);
    const header = page.locator('.pane-header', { hasText: 'Entities' });
    await h.waitFor(
      async () => {
        const row = await waitRow('Entities', re, 2000).catch(() => undefined);
        if (row) return true;
        await header.hover();
        await header
          .locator('.codicon-collapse-all')
          .click({ timeout: 2000 })
          .catch(() => {});
        const group = await waitRow('Entities', /^Rules and decisions \d+$/, 3000).catch(() => undefined);
        if (group && (await group.getAttribute('aria-expanded')) === 'false') await group.click().catch(() => {});
        return false;
      },
      { timeoutMs, what: `the row of "${statement}" matching ${re}` },
    );
    return waitRow('Entities', re, 5000);
  };

  /** A check that fails half-way leaves no quick input open to block the next checks' palette. */
  const tidy = async () => {
    const widget = page.locator('.quick-input-widget');
    for (let i = 0; i < 3 && (await widget.isVisible()); i++) {
      await widget
        .locator('input.input')
        .focus()
        .catch(() => {});
      await page.keyboard.press('Escape');
      await h.sleep(300);
    }
  };
  const checkTidy = (name, fn) => check(name, () => fn().finally(tidy));

  await checkTidy(
    'Edit Rule Check… from the palette: the rule picked, a bad pattern named in the input box, the check set as the person',
    async () => {
      rule = cliJson('rule', 'add', statement);
      assert.equal(rule.check, undefined, 'its words state no check');
      // The walkthrough's page (opened by an earlier check) takes the focus when it redraws: closed first.
      await h.runCommand(page, 'View: Close All Editors').catch(() => {});
      const widget = page.locator('.quick-input-widget');
      const title = (t) => widget.locator('.quick-input-title', { hasText: t }).first();
      const opened = title('Recall: Edit Rule Check').waitFor({ state: 'visible', timeout: 30000 });
      await Promise.race([h.runCommand(page, 'Recall: Edit Rule Check…').catch(() => {}), opened]);
      await opened;
      const input = widget.locator('input.input');
      await input.fill('go through review');
      await widget.locator('.quick-input-list .monaco-list-row', { hasText: statement }).first().click({ timeout: 15000 });
      await title(`rule: ${statement}`).waitFor({ state: 'visible', timeout: 15000 });
      await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Command pattern' }).first().click({ timeout: 15000 });
      await title('Command pattern').waitFor({ state: 'visible', timeout: 15000 });
      await input.fill('git push '.repeat(30));
      await h.waitFor(async () => /at most \d+/.test(await widget.innerText()), {
        timeoutMs: 10000,
        what: 'the input box naming the bad pattern',
      });
      await h.screenshot(page, 'recall-rule-check-bad-pattern');
      await input.fill('git push --force*');
      await h.sleep(300);
      await input.press('Enter');
      await waitNotification(/is checked: command `git push --force\*`/);
      const [listed] = cliJson('rule', 'list').filter((f) => f.id === rule.id);
      assert.deepEqual(listed.check, { command: ['git push --force*'] });
      assert.equal(listed.check_by, 'person');
    },
  );

  await check(
    "an agent's force-push, through the hook VS Code would run, is blocked; the rule's row shows its check and the block",
    async () => {
      const { hooks } = JSON.parse(fs.readFileSync(path.join(dirs.folder, HOOKS), 'utf8'));
      const pre = { ...PAYLOADS(h).vscode['pre-tool-use'], cwd: dirs.folder, tool_use_id: 'e2e-force-push' };
      const out = runHook(hooks.PreToolUse[0].command, pre, dirs.folder);
      assert.equal(out.hookSpecificOutput?.permissionDecision, 'deny', JSON.stringify(out));
      assert.ok(out.hookSpecificOutput.permissionDecisionReason.includes(rule.id));
      const row = await ruleRow('checked · blocked 1 · ');
      await row.scrollIntoViewIfNeeded();
      await h.screenshot(page, 'recall-rule-outcomes');
    },
  );

  await checkTidy("the rule row's context menu: Edit Rule Check… → Remove the check", async () => {
    const row = await ruleRow();
    await row.click({ button: 'right' });
    const item = page.locator('.monaco-menu .action-label', { hasText: 'Edit Rule Check…' }).first();
    await item.waitFor({ state: 'visible', timeout: 15000 });
    await item.click();
    // A click that lands while the menu still opens is not taken; the item it hovers takes Enter.
    await h.sleep(1000);
    if (await item.isVisible()) await page.keyboard.press('Enter');
    const widget = page.locator('.quick-input-widget');
    await widget
      .locator('.quick-input-title', { hasText: `rule: ${statement}` })
      .first()
      .waitFor({ state: 'visible', timeout: 15000 });
    await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Remove the check' }).first().click({ timeout: 15000 });
    await waitNotification(/the check on .* is removed/);
    const [listed] = cliJson('rule', 'list').filter((f) => f.id === rule.id);
    assert.equal(listed.check, undefined);
    assert.deepEqual(listed.outcomes, { blocked: 1 }, 'what hooks decided stays on the rule');
    await ruleRow('blocked 1 · ');
  });
}
