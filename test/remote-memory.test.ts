/**
 * Remote windows: the extension runs where the code is (extensionKind "workspace"), so in a dev
 * container or Codespace its memory is on the container's file system unless a mount keeps it.
 * The mount tables below follow proc(5)'s mountinfo format, in the shapes Docker gives a container:
 * an overlay root, a named volume and a bind mount (ext4 from the host), tmpfs, a path with a space.
 * VS Code's remote names are the ones its remote extensions register.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { containerNotice, mountOf, remoteKind, survivesContainer, volumeMount } from '../src/extension/common/remote-memory';
import { ROOT } from './helpers';

const CONTAINER = [
  '1976 1975 0:142 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A:/var/lib/docker/overlay2/l/B,upperdir=/u,workdir=/w',
  '1977 1976 0:145 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw',
  '1985 1976 0:147 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw,size=65536k',
  '1990 1976 259:1 /var/lib/docker/volumes/recall-memory-abc/_data /home/vscode/.recall rw,relatime - ext4 /dev/nvme0n1p1 rw',
  '1991 1976 259:1 /home/ada/src/app /workspaces/app rw,relatime - ext4 /dev/nvme0n1p1 rw',
  '1994 1976 259:1 /var/lib/docker/containers/x/hosts /etc/hosts rw,relatime - ext4 /dev/nvme0n1p1 rw',
  '1999 1976 0:150 / /mnt/team\\040memory rw,relatime - ext4 /dev/sdb1 rw',
].join('\n');

test('the remote kind comes from VS Code’s remote name, or the variables dev containers and Codespaces set', () => {
  assert.equal(remoteKind(undefined, {}), 'local');
  assert.equal(remoteKind('ssh-remote', {}), 'ssh');
  assert.equal(remoteKind('wsl', {}), 'wsl');
  assert.equal(remoteKind('dev-container', {}), 'container');
  assert.equal(remoteKind('attached-container', {}), 'container');
  assert.equal(remoteKind('codespaces', {}), 'codespaces');
  assert.equal(remoteKind('tunnel', {}), 'other');
  // Codespaces opened in a dev container name, and an image started by the Dev Containers CLI.
  assert.equal(remoteKind('dev-container', { CODESPACES: 'true' }), 'codespaces');
  assert.equal(remoteKind('tunnel', { REMOTE_CONTAINERS: 'true' }), 'container');
});

test('a memory on the container’s own file system is lost with it; on a volume or bind mount it stays', () => {
  assert.equal(survivesContainer('/home/vscode/.recall', CONTAINER), true, 'a named volume at the memory');
  assert.equal(survivesContainer('/home/vscode/.recall/projects', CONTAINER), true, 'below the volume');
  assert.equal(survivesContainer('/workspaces/app/.recall', CONTAINER), true, 'inside the bind-mounted workspace');
  assert.equal(survivesContainer('/root/.recall', CONTAINER), false, 'the overlay root');
  assert.equal(survivesContainer('/home/vscode/.recall-old', CONTAINER), false, 'a sibling of the mount point is not on it');
  assert.equal(survivesContainer('/tmp/recall', CONTAINER), false, 'tmpfs');
  assert.equal(survivesContainer('/mnt/team memory/recall', CONTAINER), true, 'an escaped space in a mount point');
  assert.equal(survivesContainer('/home/vscode/.recall', ''), false, 'no mount table (no /proc): warn');
  assert.deepEqual(mountOf('/etc/hosts', CONTAINER), { mountPoint: '/etc/hosts', fsType: 'ext4' });
});

test('the notice names the folder and what keeps it; the mount is a volume of this dev container’s own', () => {
  const text = containerNotice('container', '/home/vscode/.recall');
  assert.match(text, /\/home\/vscode\/\.recall/);
  assert.match(text, /rebuilt/);
  assert.match(text, /team sync/);
  assert.match(containerNotice('codespaces', '/home/codespace/.recall'), /codespace/);
  // One volume per dev container: two containers on one volume would be two services on one journal.
  assert.equal(
    volumeMount('/home/vscode/.recall'),
    '"mounts": ["source=recall-memory-${devcontainerId},target=/home/vscode/.recall,type=volume"]',
  );
});

test('the manifest runs the extension on the workspace side, on the VS Code its APIs need', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.extensionKind, ['workspace']);
  // McpServerDefinitionProvider (vscode.lm.registerMcpServerDefinitionProvider) is final API from 1.101.
  assert.equal(pkg.engines.vscode, '^1.101.0');
  assert.equal(pkg.devDependencies['@types/vscode'], '1.101.0', 'typed against the oldest VS Code it declares');
  assert.deepEqual(pkg.categories, ['AI', 'Chat', 'Other']);
  for (const k of ['repository', 'bugs', 'homepage', 'license', 'keywords']) assert.ok(pkg[k], `${k} is set`);
  assert.ok(fs.existsSync(path.join(ROOT, 'LICENSE')) && fs.existsSync(path.join(ROOT, 'CHANGELOG.md')));
});
