/**
 * Team sync from VS Code: the `recall.sync.url` setting names the team's PostgreSQL, and the
 * password lives in VS Code's SecretStorage, never in settings or config.json. A URL typed with
 * a password is split: the password to SecretStorage, the setting rewritten without it. The
 * service the extension starts reads the password from RECALL_SYNC_PASSWORD in its environment.
 * Only the person's own (user or remote) setting counts: a repository's .vscode/settings.json
 * naming a server is ignored (config.ts), so it can neither receive the memory nor a password.
 */
import * as vscode from 'vscode';
import { readServiceConfig, updateServiceConfig } from '../service/config-file.js';
import { passwordIn, withoutPassword } from '../sync/config.js';
import type { RecallExtension } from './ctx.js';
import { settingValue } from './config.js';
import { SETTINGS, SETTINGS_SECTION } from './common/ids.js';

const URL_SETTING = SETTINGS.syncUrl;
const SECRET = 'recall.sync.password';

/** Loads the password, applies the setting, and follows its changes. Call once, before the service starts. */
export async function registerSync(ctx: RecallExtension): Promise<void> {
  try {
    const password = await ctx.extension.secrets.get(SECRET);
    if (password) process.env.RECALL_SYNC_PASSWORD = password;
  } catch (err) {
    // No keyring (some remote or headless setups): sync still works with the variable set by hand.
    ctx.log.warn(`sync: SecretStorage is unavailable (${(err as Error).message})`);
  }
  await apply(ctx);
  ctx.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${SETTINGS_SECTION}.${URL_SETTING}`)) void apply(ctx, true);
    }),
  );
}

async function apply(ctx: RecallExtension, restart = false): Promise<void> {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const url = settingValue(URL_SETTING).trim();
  try {
    const password = url ? passwordIn(url) : undefined;
    if (password) {
      await ctx.extension.secrets.store(SECRET, password);
      process.env.RECALL_SYNC_PASSWORD = password;
      // Rewriting the setting fires this again, without the password this time.
      await config.update(URL_SETTING, withoutPassword(url), vscode.ConfigurationTarget.Global);
      ctx.log.info('sync: the password went to VS Code SecretStorage; the setting keeps the URL without it');
      return;
    }
    // An empty setting leaves a config.json set up by `recall sync` alone.
    if (!url || readServiceConfig(ctx.memory).sync?.postgres === url) return;
    updateServiceConfig(ctx.memory, { sync: { postgres: url } });
    ctx.log.info(`sync: sharing this memory through ${url}`);
    if (restart) await ctx.restartService('sync settings changed');
  } catch (err) {
    ctx.log.error(`sync: ${(err as Error).message}`);
  }
}
