/**
 * `recall export`: the whole memory, or one project's, fetched a page at a time and written as it
 * comes, so neither the CLI nor one message grows with the data (ingest.ts is the way in).
 */
import * as fs from 'node:fs';
import { once } from 'node:events';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { MemoryError } from '../core/model/errors.js';
import type { MemoryClient } from '../service/rpc/client.js';

type Out = (s: string) => void;

/** How often a long transfer says how far it is, on stderr. */
const PROGRESS_MS = 2_000;

/**
 * `--out` never lands in the memory folder (`<memory>/journal.jsonl` would overwrite the journal),
 * however the path reaches it.
 */
export function refuseExportInto(memory: string, out: string): void {
  if (!insideFolder(out, memory)) return;
  throw new MemoryError(
    'invalid_input',
    `${out} is inside the memory folder ${memory}: an export there could overwrite the memory's own files.`,
    'Give --out a file outside the memory folder.',
  );
}

/**
 * The export, page by page, written as `JSON.stringify(export, null, 2)` would write it whole:
 * the same bytes, without the whole in memory.
 */
export async function exportMemory(
  client: MemoryClient,
  opts: { history?: boolean; out?: string; project?: string | null },
  err: Out,
): Promise<void> {
  const sink: Writable = opts.out ? fs.createWriteStream(opts.out) : process.stdout;
  const write = async (s: string): Promise<void> => {
    if (!sink.write(s)) await once(sink, 'drain');
  };
  const counts = { entities: 0, facts: 0, episodes: 0 };
  const parts = ['entities', 'facts', 'episodes'] as const;
  let open = -1; // the part whose array is open in the output
  let lastProgress = Date.now();
  const openUpTo = async (index: number): Promise<void> => {
    for (; open < index; open++) {
      if (open >= 0) await write(counts[parts[open]!] ? '\n  ],\n' : '],\n');
      await write(`${open < 0 ? '{\n' : ''}  "${parts[open + 1]}": [`);
    }
  };
  let cursor: string | undefined;
  do {
    const page = await client.call('export.page', {
      history: opts.history,
      cursor,
      ...(opts.project !== undefined ? { project: opts.project } : {}),
    });
    for (const [index, part] of parts.entries()) {
      const items: unknown[] = page[part];
      if (items.length === 0) continue;
      await openUpTo(index);
      let text = '';
      for (const item of items) {
        text += (counts[part]++ ? ',\n' : '\n') + JSON.stringify(item, null, 2).replace(/^/gm, '    ');
      }
      await write(text);
    }
    cursor = page.cursor;
    if (Date.now() - lastProgress >= PROGRESS_MS) {
      lastProgress = Date.now();
      err(`export: ${counts.entities} entities, ${counts.facts} facts, ${counts.episodes} episodes so far`);
    }
  } while (cursor);
  await openUpTo(parts.length - 1);
  await write(counts.episodes ? '\n  ]\n}\n' : ']\n}\n');
  if (opts.out) {
    sink.end();
    await once(sink, 'finish');
    err(`wrote ${counts.episodes} episode(s), ${counts.entities} entit(ies), ${counts.facts} fact(s) to ${opts.out}`);
  }
}

/**
 * Whether writing `file` would land in `folder`: the real path of where it would be written (links
 * and `..` followed as the system follows them), or the file itself when it is a hard link to a
 * file there. Compared by device and inode, so another spelling of the folder is caught too.
 */
function insideFolder(file: string, folder: string): boolean {
  const home = fs.statSync(folder, { throwIfNoEntry: false });
  if (!home) return false;
  const target = fs.statSync(file, { throwIfNoEntry: false });
  if (target && !target.isDirectory()) {
    for (const name of fs.readdirSync(folder)) {
      const held = fs.lstatSync(path.join(folder, name), { throwIfNoEntry: false });
      if (held?.dev === target.dev && held.ino === target.ino) return true;
    }
  }
  // Not path.resolve: it drops `link/..` by its spelling, where the system goes through the link.
  const absolute = path.isAbsolute(file) ? file : `${process.cwd()}${path.sep}${file}`;
  for (let dir = path.dirname(physical(absolute)); ; dir = path.dirname(dir)) {
    const st = fs.statSync(dir, { throwIfNoEntry: false });
    if (st?.dev === home.dev && st.ino === home.ino) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/** The real path of `file`, even when it (or a link at its end) does not exist yet. */
function physical(file: string, links = 0): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    const link = fs.lstatSync(file, { throwIfNoEntry: false });
    if (link?.isSymbolicLink() && links < 40) {
      const to = fs.readlinkSync(file);
      return physical(path.isAbsolute(to) ? to : `${path.dirname(file)}${path.sep}${to}`, links + 1);
    }
    const parent = path.dirname(file);
    return parent === file ? file : path.join(physical(parent, links), path.basename(file));
  }
}
