/**
 * Where the memory lives when VS Code works on a remote. The extension runs on the workspace side
 * (extensionKind ["workspace"]), next to the code and the agents, so the memory folder is on the
 * SSH host, in the WSL distribution, or inside the dev container or Codespace. A container's own
 * file system goes with it when it is rebuilt or deleted; a volume or bind mount stays. Without
 * `vscode`, so node tests cover it; remote-notice.ts says it to the person.
 */
import * as path from 'node:path';

export type RemoteKind = 'local' | 'ssh' | 'wsl' | 'container' | 'codespaces' | 'other';

/** From `vscode.env.remoteName` and the environment the Dev Containers and Codespaces images set. */
export function remoteKind(remoteName: string | undefined, env: NodeJS.ProcessEnv): RemoteKind {
  if (remoteName === 'codespaces' || env.CODESPACES === 'true') return 'codespaces';
  if (remoteName === 'dev-container' || remoteName === 'attached-container' || env.REMOTE_CONTAINERS === 'true') return 'container';
  if (remoteName === undefined) return 'local';
  if (remoteName === 'ssh-remote') return 'ssh';
  if (remoteName === 'wsl') return 'wsl';
  return 'other';
}

export interface Mount {
  mountPoint: string;
  fsType: string;
}

/** Mount points in /proc/self/mountinfo (proc(5)) escape space, tab, newline and backslash in octal. */
const unescape = (s: string): string => s.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(parseInt(oct, 8)));

/** The mount a path lies on: the longest mount point that contains it. */
export function mountOf(file: string, mountinfo: string): Mount | undefined {
  let best: Mount | undefined;
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    if (fields.length < 5 || dash < 0 || !fields[dash + 1]) continue;
    const mountPoint = unescape(fields[4]!);
    const inside = mountPoint === '/' || file === mountPoint || file.startsWith(mountPoint.endsWith('/') ? mountPoint : mountPoint + '/');
    if (inside && (!best || mountPoint.length >= best.mountPoint.length)) best = { mountPoint, fsType: fields[dash + 1]! };
  }
  return best;
}

/** Memory-backed file systems: gone at the container's (or machine's) next start. */
const VOLATILE = new Set(['tmpfs', 'ramfs']);

/** Whether a memory folder in a container survives it: it sits on a mount of its own (a volume, a bind mount), not the container's root. */
export function survivesContainer(memory: string, mountinfo: string): boolean {
  const mount = mountOf(path.posix.resolve(memory), mountinfo);
  return mount !== undefined && mount.mountPoint !== '/' && !VOLATILE.has(mount.fsType);
}

/** A devcontainer.json `mounts` entry that keeps the memory in a volume of this dev container's own. */
export function volumeMount(memory: string): string {
  return `"mounts": ["source=recall-memory-\${devcontainerId},target=${memory},type=volume"]`;
}

export function containerNotice(kind: 'container' | 'codespaces', memory: string): string {
  const where = kind === 'codespaces' ? 'this codespace' : 'this dev container';
  return (
    `Recall's memory is in ${memory}, inside ${where}: it is lost when the container is rebuilt or deleted. ` +
    'Keep it in a volume (a devcontainer.json mount), or share it through team sync.'
  );
}
