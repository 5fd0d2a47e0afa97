/**
 * `recall ingest` of the memory files people keep (core/ingest/memory-files.ts): each read whole
 * within its bound, its authorship told from git (service/authorship.ts), and sent to the service,
 * which brings the file's knowledge items up to date (core/memory/memory-files.ts).
 *
 * Its project, unless the command names one: none for the person's own global files
 * (~/.claude/CLAUDE.md, VS Code's user memories); the project of the repository the file is in;
 * for Claude Code's auto memory (~/.claude/projects/<p>/memory/), the folder its sessions beside it
 * were held in; else the command's.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { memoryFileType, readMemoryFileText } from '../core/ingest/memory-files.js';
import { claudeImports, importedFileType, importsFiles } from '../core/ingest/memory-imports.js';
import { KNOWLEDGE_KINDS } from '../core/model/knowledge.js';
import { gitRoot, projectOfFolder } from '../core/model/project.js';
import type { MemoryFileResult } from '../core/memory/memory.js';
import { fileAuthorship } from '../service/authorship.js';
import type { MemoryClient } from '../service/rpc/client.js';

export interface MemoryFileReport extends MemoryFileResult {
  project: string | null;
  because: string;
  /** Whose words: `user`, or `external` with why. */
  authority: 'user' | 'external';
  reason: string;
  /** The files a CLAUDE.md imports (`@path`), read with it (core/ingest/memory-imports.ts). */
  imports?: MemoryFileReport[];
}

/** Bytes of a session file read to find the folder it was held in. */
const HEAD_BYTES = 64 * 1024;
const CWD = /"cwd"\s*:\s*("(?:[^"\\]|\\.)*")/;

/**
 * Reads one memory file into the memory, and what a CLAUDE.md imports with it, into the same
 * project; `say` reports what is not the person's. `done`: the files this run has read already
 * (an import named twice, or also given on the command line, is read once).
 */
export async function ingestMemoryFile(
  file: string,
  opts: { project: string | null; named: boolean },
  client: () => Promise<MemoryClient>,
  say: (s: string) => void,
  done = new Set<string>(),
  importer?: string,
): Promise<MemoryFileReport> {
  const abs = path.resolve(file);
  done.add(abs);
  const home = os.homedir();
  const importedType = importer ? importedFileType(abs, importer, home) : undefined;
  const type = importedType ?? memoryFileType(abs, home)!;
  const { text, mtimeMs } = readMemoryFileText(abs);
  const written = await fileAuthorship(abs);
  if (written.authority !== 'user') say(`${file}: not your words: ${written.reason}; its items are stored as theirs (external)`);
  const { project, because } = opts.named
    ? { project: opts.project, because: importer ? `imported by ${importer}` : 'as named' }
    : type.global
      ? { project: null, because: 'your own, for every project' }
      : (fileProject(abs) ?? { project: opts.project, because: "this folder's" });
  const r = await (
    await client()
  ).call('knowledge.file', {
    file: abs,
    text,
    written: { authority: written.authority, authors: written.authors },
    time: new Date(mtimeMs).toISOString(),
    project,
    ...(importedType ? { importedBy: importer } : {}),
  });
  const report: MemoryFileReport = { ...r, file, project, because, authority: written.authority, reason: written.reason };
  if (importer || !importsFiles(type)) return report;
  const imports: MemoryFileReport[] = [];
  for (const imported of claudeImports(abs, text, home).filter((f) => !done.has(f))) {
    // An import that cannot be read (too big, not text) is said; the CLAUDE.md and the other imports stand.
    try {
      imports.push(await ingestMemoryFile(imported, { project, named: true }, client, say, done, abs));
    } catch (e) {
      say(`${imported}: imported by ${abs}, not read: ${(e as Error).message}`);
    }
  }
  return imports.length ? { ...report, imports } : report;
}

/** The project a memory file belongs to by where it sits, when that says. */
function fileProject(file: string): { project: string; because: string } | undefined {
  const dir = path.dirname(file);
  if (gitRoot(dir)) return { project: projectOfFolder(dir), because: 'the repository it is in' };
  if (path.basename(dir) === 'memory') {
    const cwd = sessionFolder(path.dirname(dir));
    if (cwd) return { project: projectOfFolder(cwd), because: `the folder its Claude Code sessions were held in, ${cwd}` };
  }
  return undefined;
}

/** The folder a Claude Code project's sessions were held in (`cwd` of one of its transcripts). */
function sessionFolder(dir: string): string | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return undefined;
  }
  for (const name of names.slice(0, 5)) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(path.join(dir, name), 'r');
      const buf = Buffer.alloc(HEAD_BYTES);
      const head = buf.toString('utf8', 0, fs.readSync(fd, buf, 0, HEAD_BYTES, 0));
      const m = CWD.exec(head);
      if (m) return JSON.parse(m[1]!) as string;
    } catch {
      // Unreadable: the next one may say.
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }
  return undefined;
}

const KIND_PLURAL: Record<string, string> = {
  rule: 'rules',
  decision: 'decisions',
  preference: 'preferences',
  fact: 'facts',
  lesson: 'lessons',
};

/** The lines that report one memory file, then each file it imports. */
export function describeMemoryFile(r: MemoryFileReport): string {
  return [describeOne(r), ...(r.imports ?? []).map(describeMemoryFile)].join('\n');
}

function describeOne(r: MemoryFileReport): string {
  const kinds = KNOWLEDGE_KINDS.filter((k) => r.kinds[k])
    .map((k) => `${r.kinds[k]} ${r.kinds[k] === 1 ? k : KIND_PLURAL[k]}`)
    .join(', ');
  const where = r.project === null ? 'the global memory' : `project ${r.project}`;
  const whose = r.authority === 'user' ? 'your words' : 'its committers’ words (external)';
  return (
    `${r.file}: ${r.label} (memory file), ${r.items} item${r.items === 1 ? '' : 's'}${kinds ? ` (${kinds})` : ''}: ` +
    `${r.added} new, ${r.held} already held, ${r.ended} ended` +
    (r.rejected ? `, ${r.rejected} you marked wrong (left out; confirm one to bring it back)` : '') +
    `\n  in ${where} (${r.because}); ${whose}` +
    (r.unimported?.length ? `\n  no longer imported (their items ended): ${r.unimported.join(', ')}` : '')
  );
}
