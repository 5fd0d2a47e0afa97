/**
 * `recall ingest` and `recall export`: the two commands that move a whole memory's worth of data.
 * Both stream: files are read a part at a time and sent in bounded batches, the export is fetched a
 * page at a time and written as it comes, so neither the CLI nor one message grows with the data.
 */
import * as fs from 'node:fs';
import { once } from 'node:events';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { turnsAsWritten } from '../core/ingest/authorship.js';
import { batchEpisodes } from '../core/ingest/batches.js';
import { readTranscriptParts } from '../core/ingest/files.js';
import { MemoryError } from '../core/model/errors.js';
import { LIMITS } from '../core/model/limits.js';
import { projectOfFolder } from '../core/model/project.js';
import { fileAuthorship } from '../service/authorship.js';
import type { MemoryClient } from '../service/rpc/client.js';
import { UsageError } from './usage.js';

type Out = (s: string) => void;

/** How often a long transfer says how far it is, on stderr. */
const PROGRESS_MS = 2_000;

/** Each file is read, stored and reported on its own: one bad file neither hides nor blocks the others. */
export async function ingestFiles(
  files: string[],
  json: boolean | undefined,
  connect: () => Promise<MemoryClient>,
  out: Out,
  err: Out,
  byFolder = false,
): Promise<number> {
  if (files.length === 0)
    throw new UsageError('ingest needs at least one FILE (a chat transcript or export; see README "Transcript formats").');
  const failed: { file: string; error: string }[] = [];
  const fail = (file: string, e: unknown): void => {
    const hint = e instanceof MemoryError && e.hint ? `\n  ${e.hint}` : '';
    failed.push({ file, error: (e as Error).message });
    err(`recall: ${(e as Error).message}${hint}`);
  };
  const totals = { files: 0, turns: 0, added: 0, skipped: 0 };
  // Connected at the first batch: a run whose files all fail to parse does not start the service.
  let client: MemoryClient | undefined;
  try {
    for (const file of files) {
      let added = 0;
      let skipped = 0;
      let turns = 0;
      let notTurns = 0;
      let format = '';
      let lastProgress = Date.now();
      // A transcript that says where it was held belongs to that folder's project, unless the command named one.
      let folderProject: string | undefined;
      try {
        // A file others committed speaks for them, not for the person (service/authorship.ts).
        const written = await fileAuthorship(file);
        if (written.authority !== 'user') err(`${file}: not your words: ${written.reason}; its turns are stored as theirs (external)`);
        for await (const part of readTranscriptParts(file)) {
          format = part.format;
          if (byFolder && part.cwd) folderProject ??= projectOfFolder(part.cwd);
          if (folderProject) for (const e of part.episodes) e.project ??= folderProject;
          notTurns += part.skipped;
          const episodes = turnsAsWritten(part.episodes, written);
          for (const batch of batchEpisodes(episodes, { maxBytes: LIMITS.serviceMessageBytes })) {
            client ??= await connect();
            const r = await client.call('ingest', { episodes: batch });
            added += r.added;
            skipped += r.skipped;
            turns += batch.length;
            if (Date.now() - lastProgress >= PROGRESS_MS) {
              lastProgress = Date.now();
              err(
                `${file}: ${turns} turns stored (${Math.round((100 * part.bytesRead) / Math.max(1, part.totalBytes))}% of the file read)`,
              );
            }
          }
        }
      } catch (e) {
        if (added + skipped > 0) err(`${file}: ${added + skipped} turns were stored before the error`);
        fail(file, e);
        continue;
      }
      totals.files++;
      totals.turns += turns;
      totals.added += added;
      totals.skipped += skipped;
      const skippedNote = notTurns
        ? `; ${notTurns} part${notTurns === 1 ? '' : 's'} not turns (tool output, commands, injected context)`
        : '';
      if (!json) out(`${file}: ${format}, ${turns} turns, ${added} added, ${skipped} already there${skippedNote}`);
    }
  } finally {
    client?.close();
  }
  if (json) out(JSON.stringify(failed.length ? { ...totals, failed } : totals));
  else if (files.length > 1) {
    out(
      `total: ${totals.turns} turns, ${totals.added} added, ${totals.skipped} already there${failed.length ? `; ${failed.length} of ${files.length} files failed` : ''}`,
    );
  }
  return failed.length ? 1 : 0;
}

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
export async function exportMemory(client: MemoryClient, opts: { history?: boolean; out?: string }, err: Out): Promise<void> {
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
    const page = await client.call('export.page', { history: opts.history, cursor });
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
