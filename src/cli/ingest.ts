/**
 * `recall ingest FILE|DIR...`: transcripts read a part at a time and sent in bounded batches, each
 * file reported on its own (one bad file neither hides nor blocks the others): its format, its
 * counts, the project its turns went to and why, how its turns were dated, and turns long enough
 * that a marker was probably misread. A folder is walked for transcripts (core/ingest/walk.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnsAsWritten } from '../core/ingest/authorship.js';
import { batchEpisodes } from '../core/ingest/batches.js';
import { addDating, type Dating } from '../core/ingest/dates.js';
import { readTranscriptParts } from '../core/ingest/files.js';
import { memoryFileType, notMemoryFile, RECALL_INSTRUCTIONS_FILE } from '../core/ingest/memory-files.js';
import { walkTranscripts } from '../core/ingest/walk.js';
import { invalid, MemoryError } from '../core/model/errors.js';
import { LIMITS } from '../core/model/limits.js';
import { projectOfFolder } from '../core/model/project.js';
import { fileAuthorship } from '../service/authorship.js';
import type { MemoryClient } from '../service/rpc/client.js';
import { describeMemoryFile, ingestMemoryFile, type MemoryFileReport } from './memory-files.js';
import { UsageError } from './usage.js';

type Out = (s: string) => void;

/** How often a long file says how far it is, on stderr. */
const PROGRESS_MS = 2_000;

export interface IngestOptions {
  json?: boolean;
  /** The project the command works in (null: the global memory), and whether the person named it (--project, --global). */
  project: string | null;
  named: boolean;
}

interface FileReport {
  file: string;
  format: string;
  turns: number;
  added: number;
  skipped: number;
  /** Parts of the file that were not turns (tool output, commands, injected context). */
  notTurns: number;
  /** Where its turns went (null: the global memory), and why there. */
  project: string | null;
  because: string;
  dating: Dating;
  /** Refs of turns over the suspect size. */
  suspect: string[];
}

const label = (p: string | null): string => (p === null ? 'the global memory' : `project ${p}`);

export async function ingestPaths(
  paths: string[],
  opts: IngestOptions,
  connect: () => Promise<MemoryClient>,
  out: Out,
  err: Out,
): Promise<number> {
  if (paths.length === 0)
    throw new UsageError('ingest needs at least one FILE or folder (a chat transcript or export; see README "Transcript formats").');
  const failed: { file: string; error: string }[] = [];
  const fail = (file: string, e: unknown): void => {
    const hint = e instanceof MemoryError && e.hint ? `\n  ${e.hint}` : '';
    failed.push({ file, error: (e as Error).message });
    err(`recall: ${(e as Error).message}${hint}`);
  };
  const files = expand(paths, opts.json ? () => undefined : out, fail);
  const reports: FileReport[] = [];
  const memoryReports: MemoryFileReport[] = [];
  const readMemoryFiles = new Set<string>();
  // Connected at the first batch: a run whose files all fail to parse does not start the service.
  let client: MemoryClient | undefined;
  try {
    for (const { file, walked } of files) {
      // The memory files people keep are read as knowledge, by where they sit; Recall's own instructions never.
      if (memoryFileType(file, os.homedir()) || path.basename(file) === RECALL_INSTRUCTIONS_FILE) {
        // Read already as a CLAUDE.md's import.
        if (readMemoryFiles.has(path.resolve(file))) continue;
        try {
          const refused = notMemoryFile(file, os.homedir());
          if (refused) throw invalid(refused);
          const r = await ingestMemoryFile(file, opts, async () => (client ??= await connect()), err, readMemoryFiles);
          memoryReports.push(r);
          if (!opts.json) out(describeMemoryFile(r));
        } catch (e) {
          fail(file, e);
        }
        continue;
      }
      const report: FileReport = {
        file,
        format: '',
        turns: 0,
        added: 0,
        skipped: 0,
        notTurns: 0,
        project: opts.project,
        because: opts.named ? 'as named' : "this folder's",
        dating: { content: 0, name: 0, modified: 0 },
        suspect: [],
      };
      let lastProgress = Date.now();
      let folder: string | undefined;
      try {
        // A file others committed speaks for them, not for the person (service/authorship.ts).
        const written = await fileAuthorship(file);
        if (written.authority !== 'user') err(`${file}: not your words: ${written.reason}; its turns are stored as theirs (external)`);
        // A file found in a folder may hold no turn yet (a session just opened): reported, not failed.
        for await (const part of readTranscriptParts(file, { allowEmpty: walked })) {
          report.format = part.format;
          // A transcript that says where it was held belongs to that folder's project, unless the command named one.
          if (!opts.named && part.cwd && folder === undefined) {
            folder = part.cwd;
            report.project = projectOfFolder(folder);
            report.because = `the folder it was held in, ${folder}`;
          }
          if (folder !== undefined) for (const e of part.episodes) e.project ??= report.project;
          report.notTurns += part.skipped;
          if (part.dating) addDating(report.dating, part.dating);
          report.suspect.push(...(part.suspect ?? []));
          for (const batch of batchEpisodes(turnsAsWritten(part.episodes, written), { maxBytes: LIMITS.serviceMessageBytes })) {
            client ??= await connect();
            const r = await client.call('ingest', { episodes: batch });
            report.added += r.added;
            report.skipped += r.skipped;
            report.turns += batch.length;
            if (Date.now() - lastProgress >= PROGRESS_MS) {
              lastProgress = Date.now();
              err(
                `${file}: ${report.turns} turns stored (${Math.round((100 * part.bytesRead) / Math.max(1, part.totalBytes))}% of the file read)`,
              );
            }
          }
        }
      } catch (e) {
        if (report.turns > 0) err(`${file}: ${report.turns} turns were stored before the error`);
        fail(file, e);
        continue;
      }
      reports.push(report);
      if (!opts.json) out(describe(report));
    }
  } finally {
    client?.close();
  }
  const sum = (get: (r: FileReport) => number): number => reports.reduce((a, r) => a + get(r), 0);
  const totals = { files: reports.length, turns: sum((r) => r.turns), added: sum((r) => r.added), skipped: sum((r) => r.skipped) };
  if (opts.json)
    out(
      JSON.stringify({
        ...totals,
        ...(failed.length ? { failed } : {}),
        reports,
        ...(memoryReports.length ? { memoryFiles: memoryReports } : {}),
      }),
    );
  else {
    const tried = reports.length + memoryReports.length + failed.length;
    if (tried > 1) {
      out(
        `total: ${totals.turns} turns, ${totals.added} added, ${totals.skipped} already there${failed.length ? `; ${failed.length} of ${tried} files failed` : ''}`,
      );
    }
    const elsewhere = [...new Set(reports.filter((r) => r.turns > 0 && r.project !== opts.project).map((r) => r.project))];
    if (elsewhere.length > 0) {
      out(
        `The turns of ${elsewhere.length === 1 ? 'that transcript are' : 'those transcripts are'} in ${elsewhere.map(label).join(', ')}, not in ${label(opts.project)} where this folder's reads look: ` +
          `read them with ${elsewhere[0] === null ? '--global' : `--project ${elsewhere[0]}`} (or --all), or run from that folder.`,
      );
    }
  }
  return failed.length ? 1 : 0;
}

/** The files to read: each FILE as given (a missing one fails when read), each folder's transcripts. */
function expand(paths: string[], out: Out, fail: (file: string, e: unknown) => void): { file: string; walked: boolean }[] {
  const files: { file: string; walked: boolean }[] = [];
  for (const p of paths) {
    let dir = false;
    try {
      dir = fs.statSync(p).isDirectory();
    } catch {
      // Not there: reading it says so, as for any file.
    }
    if (!dir) {
      files.push({ file: p, walked: false });
      continue;
    }
    const walked = walkTranscripts(p, LIMITS.ingestWalkFiles, os.homedir());
    const others = walked.others ? `, ${walked.others} other file(s) left alone` : '';
    const memory = walked.memoryFiles.length ? `, ${walked.memoryFiles.length} memory file(s)` : '';
    const cut = walked.truncated ? `; stopped after ${LIMITS.ingestWalkFiles} files: point ingest at a smaller folder for the rest` : '';
    out(`${p}: ${walked.files.length} transcript file(s)${memory}${others}${cut}`);
    if (walked.files.length === 0 && walked.memoryFiles.length === 0) {
      fail(
        p,
        new MemoryError(
          'invalid_input',
          `${p}: no transcript found in this folder (${walked.others} file(s) looked at), and no memory file.`,
          'Transcripts are found by their names (*.jsonl sessions, .aider.chat.history.md, api_conversation_history.json, .specstory/history/*.md) or by the markers of a known format in their first 64 KB, memory files by theirs (AGENTS.md, CLAUDE.md, .cursor/rules/*.mdc, …); give a transcript in another shape as a FILE.',
        ),
      );
    }
    if (walked.truncated)
      fail(p, new MemoryError('invalid_input', `${p}: more than ${LIMITS.ingestWalkFiles} files; the rest were not read.`));
    files.push(...[...walked.memoryFiles, ...walked.files].map((file) => ({ file, walked: true })));
  }
  return files;
}

/** The lines that report one file. */
function describe(r: FileReport): string {
  const notTurns = r.notTurns
    ? `; ${r.notTurns} part${r.notTurns === 1 ? '' : 's'} not turns (tool output, commands, injected context)`
    : '';
  const head = `${r.file}: ${r.format}, ${r.turns} turns, ${r.added} added, ${r.skipped} already there${notTurns}`;
  if (r.turns === 0) return `${head}; no turn in it yet`;
  const details = [`in ${label(r.project)} (${r.because})`, dated(r.dating, r.turns)];
  if (r.suspect.length) {
    const shown = r.suspect.slice(0, 5).join(', ') + (r.suspect.length > 5 ? ', …' : '');
    details.push(
      `${r.suspect.length} turn(s) over ${LIMITS.suspectTurnBytes / 1024} KB (${shown}): a speaker marker may have been misread; check with recall episodes --session`,
    );
  }
  return `${head}\n  ${details.join('; ')}`;
}

function dated(d: Dating, turns: number): string {
  if (d.content === turns) return 'dated from the file';
  const parts = [
    d.content ? `${d.content} dated from the file` : '',
    d.name ? `${d.name} by the date its name starts with` : '',
    d.modified ? `${d.modified} by its modification time (the file does not say when)` : '',
  ].filter(Boolean);
  return parts.join(', ');
}
