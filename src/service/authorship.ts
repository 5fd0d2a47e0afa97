/**
 * Who wrote a file, from git: the one rule for every file whose words Recall reads from a
 * workspace (chat transcripts now, instruction files such as AGENTS.md later). Clients call it
 * (the CLI's `ingest`, the extension's auto-ingest) and send what it finds as the turns'
 * authority, as they send the project they derive; a client can only lower a turn to `external`.
 *
 * The rule (authority of the file's person-side words):
 * - not inside a git work tree: the person's (`user`): a file they pointed Recall at themselves;
 * - in a repository with no commit yet, or a file no commit touched (untracked, ignored, only
 *   staged): the person's, local work;
 * - every commit that touched it (`git log --follow`, renames followed) is authored by the
 *   person's `git config user.email` (compared without case): the person's, uncommitted edits
 *   on top included;
 * - any commit by someone else: `external`, the repository's authors' words, even with the
 *   person's own uncommitted edits on top (the turns cannot be told apart);
 * - no `user.email` to compare with, git not installed, git refusing the repository (another
 *   user's folder) or not answering in time: `external`, since the person's authorship cannot
 *   be shown. The reason says which, so the person can fix it.
 * Git authors are what commits claim: someone who commits under the person's email passes.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { turnsAsWritten, type Authorship } from '../core/ingest/authorship.js';
import type { ParseOptions } from '../core/ingest/detect.js';
import { readTranscriptFile } from '../core/ingest/files.js';
import type { ParsedFile } from '../core/ingest/transcripts.js';
import { LIMITS } from '../core/model/limits.js';
import { gitRoot } from '../core/model/project.js';

export type { Authorship };

/**
 * Git reads config from the repository, which a stranger's folder may carry: nothing that reads
 * it here may run a program of its choosing (fsmonitor, signature checks) or wait for a prompt.
 */
const SAFE_GIT = ['-c', 'core.fsmonitor=false', '-c', 'log.showSignature=false'];
// A file name is a name, never pathspec magic (`:(glob)…` would read another file's history).
const GIT_ENV = { GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_LITERAL_PATHSPECS: '1', LC_ALL: 'C' };
/** Set by a git hook or a wrapper, these would point git at another repository than the file's. */
const REPOSITORY_VARS = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_NAMESPACE'];

function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_ENV };
  for (const k of REPOSITORY_VARS) delete env[k];
  return env;
}

class GitFailed extends Error {
  constructor(readonly authorship: Authorship) {
    super(authorship.reason);
  }
}

interface GitRun {
  code: number;
  stdout: string;
}

/** Runs git in `cwd`; a missing git, a timeout or a refusal (exit 128) ends the rule as others' words. */
function git(cwd: string, args: string[]): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...SAFE_GIT, ...args],
      {
        cwd,
        env: gitEnv(),
        timeout: LIMITS.gitAuthorshipMs,
        maxBuffer: LIMITS.gitAuthorshipBytes,
        encoding: 'utf8',
        windowsHide: true,
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ code: 0, stdout });
        const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
        const others = (reason: string): void => reject(new GitFailed({ authority: 'external', authors: [], reason }));
        if (e.code === 'ENOENT') others('git is not installed (or not on PATH), so who wrote it cannot be told');
        else if (e.killed) others(`git did not answer within ${LIMITS.gitAuthorshipMs / 1000} s, so who wrote it cannot be told`);
        else if (typeof e.code === 'number' && e.code !== 128) resolve({ code: e.code, stdout });
        else others(`git could not read its repository (${firstLine(stderr) || e.message})`);
      },
    );
  });
}

const firstLine = (s: string): string =>
  s
    .trim()
    .split('\n')[0]!
    .replace(/^fatal:\s*/, '');

/** Who wrote `file`, and so whose words its person-side turns are (the rule above). */
export async function fileAuthorship(file: string): Promise<Authorship> {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    real = path.resolve(file);
  }
  const root = gitRoot(path.dirname(real));
  if (!root) return { authority: 'user', authors: [], reason: 'it is in no git repository: a file of your own' };
  const rel = path.relative(root, real).split(path.sep).join('/');
  try {
    if ((await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD'])).code !== 0)
      return { authority: 'user', authors: [], reason: 'nothing is committed in its repository yet: local work' };
    const log = await git(root, ['log', '--follow', '--format=%ae', '--', rel]);
    if (log.code !== 0) throw new GitFailed({ authority: 'external', authors: [], reason: `git log failed on ${rel}` });
    // One line a commit, newest first; a commit without an author email is nobody's, never the person's.
    const lines = log.stdout.split('\n').slice(0, -1);
    if (lines.length === 0) return { authority: 'user', authors: [], reason: 'no commit touched it: local work' };
    const authors = [...new Set(lines.reverse().map((l) => l.trim().toLowerCase() || '(no email)'))];
    const me = (await git(root, ['config', 'user.email'])).stdout.trim().toLowerCase();
    if (!me) {
      return {
        authority: 'external',
        authors,
        reason: 'it is committed, and git has no user.email to tell your commits from others (set `git config user.email`)',
      };
    }
    const others = authors.filter((a) => a !== me);
    if (others.length === 0) return { authority: 'user', authors: [], reason: `every commit that touched it is yours (${me})` };
    return { authority: 'external', authors: others, reason: `it was committed by ${others.join(', ')}, not by you (${me})` };
  } catch (e) {
    if (e instanceof GitFailed) return e.authorship;
    throw e;
  }
}

/** A whole transcript file's turns as their writers' words (auto-ingest's read of one session file). */
export async function readTranscriptAsWritten(file: string, opts: ParseOptions = {}): Promise<ParsedFile & { written: Authorship }> {
  const read = readTranscriptFile(file, opts);
  const written = await fileAuthorship(file);
  return { ...read, episodes: turnsAsWritten(read.episodes, written), written };
}
