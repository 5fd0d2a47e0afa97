/**
 * A memory folder is used only when no other local user can change what is in it: one who can
 * write there plants the HTTP token (and reads the memory over HTTP), a config.json that pushes the
 * memory to their server, or events in the journal. As OpenSSH's StrictModes: the folder and every
 * entry in it belong to the user (or root) and no one else may write to them, and no folder above
 * it lets others replace it (writable by others without the sticky bit). Windows (no uid) is not
 * checked: its folders carry ACLs, not these modes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryError } from '../../core/model/errors.js';

const OTHERS_WRITE = 0o022;
const STICKY = 0o1000;

/** Throws a MemoryError naming what is wrong and the command that fixes it; a missing folder passes (it is made 0700). */
export function checkMemoryFolder(folder: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const resolved = path.resolve(folder);
  const open = replaceableAncestor(resolved);
  if (open) {
    throw refused(
      `The memory folder ${resolved} is refused: other users can write to ${open.path} (mode ${octal(open.mode)}) and it has no sticky bit, so they could replace the folder with their own.`,
      `Run \`chmod go-w ${open.path}\` (or \`chmod +t ${open.path}\`), or choose a memory folder elsewhere (--memory or RECALL_HOME).`,
    );
  }
  const st = fs.statSync(resolved, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return; // Missing, or a file: creating it says why not.
  if (!trustedOwner(st.uid, uid)) {
    throw refused(
      `The memory folder ${resolved} is refused: it belongs to uid ${st.uid}, not to you (uid ${uid}), so its owner could plant its token, config or journal.`,
      `Use a folder of your own (--memory or RECALL_HOME); if this one is yours, run \`chown -R ${userName()} ${resolved}\`.`,
    );
  }
  if (st.mode & OTHERS_WRITE) {
    throw refused(
      `The memory folder ${resolved} is refused: other users can write to it (mode ${octal(st.mode)}), so they could plant its HTTP token, config or journal.`,
      `Make it yours alone: \`chmod 700 ${resolved}\`. On a file system without Unix permissions, mount it with your uid and umask 077, or choose another folder (--memory or RECALL_HOME).`,
    );
  }
  for (const name of fs.readdirSync(resolved)) checkPrivateFile(path.join(resolved, name), 'in the memory folder ');
}

/**
 * A file whose contents are trusted (a token, a config): it must belong to the user (or root) and
 * be writable by nobody else. A link is judged by itself and by what it points to.
 */
export function checkPrivateFile(file: string, where = ''): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const link = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!link) return;
  const target = link.isSymbolicLink() ? fs.statSync(file, { throwIfNoEntry: false }) : link;
  for (const st of target ? [link, target] : [link]) {
    if (!trustedOwner(st.uid, uid)) {
      throw refused(
        `${file} ${where}is refused: it belongs to uid ${st.uid}, not to you (uid ${uid}), so another user may have put it there.`,
        `If you did not make it, delete it (\`rm ${file}\`); if it is yours, run \`chown ${userName()} ${file}\`.`,
      );
    }
    // A link's own mode means nothing; the service's socket holds nothing to plant and is made 0600 as it listens.
    if (!st.isSymbolicLink() && !st.isSocket() && st.mode & OTHERS_WRITE) {
      throw refused(
        `${file} ${where}is refused: other users can write to it (mode ${octal(st.mode)}).`,
        `Run \`chmod ${st.isDirectory() ? 700 : 600} ${file}\`.`,
      );
    }
  }
}

/** The nearest folder above `folder` (as written, or as resolved through links) that others may write to without the sticky bit. */
function replaceableAncestor(folder: string): { path: string; mode: number } | undefined {
  const written = ancestors(folder);
  const existing = [folder, ...written].find((dir) => fs.existsSync(dir));
  const resolved = existing ? ancestors(path.join(fs.realpathSync(existing), path.relative(existing, folder))) : [];
  for (const dir of new Set([...written, ...resolved])) {
    const st = fs.statSync(dir, { throwIfNoEntry: false });
    if (st?.isDirectory() && st.mode & OTHERS_WRITE && !(st.mode & STICKY)) return { path: dir, mode: st.mode };
  }
  return undefined;
}

/** The folders that hold `p`, nearest first, up to the root. */
function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let dir = path.dirname(p); ; dir = path.dirname(dir)) {
    out.push(dir);
    if (path.dirname(dir) === dir) return out;
  }
}

/** Root may own what a user uses (it can read and write it anyway); nobody else may. */
const trustedOwner = (owner: number, uid: number): boolean => owner === uid || owner === 0;

const octal = (mode: number): string => `0${(mode & 0o7777).toString(8)}`;

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return String(process.getuid?.());
  }
}

const refused = (message: string, hint: string): MemoryError => new MemoryError('forbidden', message, hint);
