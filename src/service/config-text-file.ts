/**
 * Writing a host's own settings or hooks file (Claude Code's settings, VS Code's hook files, an MCP
 * client's config): whole or not at all (a temporary file renamed over it), keeping the file's
 * mode, and through a link (dotfiles are often links), so the link stays a link.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The file a link points at, else the file itself. */
export function realTarget(file: string): string {
  return fs.existsSync(file) ? fs.realpathSync(file) : file;
}

export function writeConfigText(file: string, text: string): void {
  const target = realTarget(file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const mode = fs.existsSync(target) ? fs.statSync(target).mode & 0o777 : undefined;
  const tmp = `${target}.recall-${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, text);
    if (mode !== undefined) fs.chmodSync(tmp, mode);
    fs.renameSync(tmp, target);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
