/**
 * One of the workspace's memory files sent to the memory as it is now (core/memory/memory-files.ts
 * brings its items up to date): read whole within its bound, or empty when it is gone (its items
 * end); whose words it holds told from git (service/authorship.ts: the person's, or external when
 * others committed it). No vscode here, so it runs against a real service in the tests.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { memoryFileType, readMemoryFileText } from '../../../core/ingest/memory-files.js';
import { claudeImports, importedFileType, importsFiles } from '../../../core/ingest/memory-imports.js';
import type { MemoryFileResult } from '../../../core/memory/memory.js';
import { fileAuthorship } from '../../../service/authorship.js';
import type { MemoryAccess } from '../../../tools/catalogue.js';

/**
 * Sends `file` (its items go to the connection's project); undefined when it is not a memory file
 * (Recall's own instructions included). A CLAUDE.md's imports (`@path`, core/ingest/memory-imports.ts)
 * are sent after it, each with `importer` (as is an import the extension saw change or go). `own`: one of the person's own files in their home folder
 * (~/.claude/CLAUDE.md, Claude Code's auto memory): their words whatever git says, and a global one's
 * items go to the global memory.
 */
export async function sendMemoryFile(
  file: string,
  memory: MemoryAccess,
  own?: { global: boolean },
  importer?: string,
): Promise<(MemoryFileResult & { imports?: MemoryFileResult[]; unread?: { file: string; error: string }[] }) | undefined> {
  const home = os.homedir();
  const imported = importer !== undefined && importedFileType(file, importer, home) !== undefined;
  const type = memoryFileType(file, home);
  if (!imported && !type) return undefined;
  const gone = !fs.existsSync(file);
  const { text, mtimeMs } = gone ? { text: '', mtimeMs: Date.now() } : readMemoryFileText(file);
  const written = own ? { authority: 'user' as const, authors: [] } : await fileAuthorship(file);
  const r = await memory.call('knowledge.file', {
    file,
    text,
    written: { authority: written.authority, authors: written.authors },
    time: new Date(mtimeMs).toISOString(),
    ...(own?.global ? { project: null } : {}),
    ...(imported ? { importedBy: importer } : {}),
  });
  if (imported || gone || !importsFiles(type)) return r;
  // What a CLAUDE.md imports is read with it; a memory file by its own name is read as itself by the workspace scan.
  const imports: MemoryFileResult[] = [];
  const unread: { file: string; error: string }[] = [];
  for (const f of claudeImports(file, text, home).filter((f) => !memoryFileType(f, home))) {
    try {
      const i = await sendMemoryFile(f, memory, own, file);
      if (i) imports.push(i);
    } catch (e) {
      unread.push({ file: f, error: (e as Error).message });
    }
  }
  return { ...r, ...(imports.length ? { imports } : {}), ...(unread.length ? { unread } : {}) };
}
