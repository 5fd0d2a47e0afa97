/**
 * `recall-episode:/ep_12.md`: an episode as a read-only markdown document, with its citation,
 * its coordinates and the entities it mentions. Re-rendered when the memory changes.
 */
import * as vscode from 'vscode';
import type { RecallExtension } from '../ctx.js';
import { EPISODE_SCHEME } from '../common/ids.js';
import { episodeDocument, episodeIdOf, episodeUri } from './present.js';

export class EpisodeDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly registration: vscode.Disposable;

  constructor(private readonly ctx: RecallExtension) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(EPISODE_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = episodeIdOf(uri);
    try {
      const [episode] = await this.ctx.source.episodesById([id]);
      return episode ? episodeDocument(episode) : `# Episode ${id}\n\nThis episode is not in the memory (it may have been forgotten).\n`;
    } catch (err) {
      return `# Episode ${id}\n\nCould not read it: ${(err as Error).message}\n`;
    }
  }

  /** Open documents follow the memory (a forgotten episode says so). */
  refresh(): void {
    for (const doc of vscode.workspace.textDocuments) if (doc.uri.scheme === EPISODE_SCHEME) this.emitter.fire(doc.uri);
  }

  async open(id: string): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(episodeUri(id));
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  dispose(): void {
    this.registration.dispose();
    this.emitter.dispose();
  }
}
