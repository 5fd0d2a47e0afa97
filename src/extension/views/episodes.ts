/**
 * The Episodes view: sessions, most recent first, named by their titles (with their dates and, on
 * hover, their ids), then the session's episodes in order, each as "speaker: first line". Opening one shows it read-only with its citation (episode-document.ts).
 */
import * as vscode from 'vscode';
import type { EpisodeView } from '../../core/model/views.js';
import type { RecallExtension } from '../ctx.js';
import { episodeItem } from './entities.js';
import { VIEWS } from '../common/ids.js';
import { codeSpan, escapeMarkdown } from '../common/markdown.js';
import { messageItem, moreItem, PagedTree, withMore, type MessageNode, type MoreNode } from './paging.js';
import { day, minute } from './present.js';
import { workspaceProject } from '../connection.js';
import type { SessionSummary } from './common/source.js';

interface SessionNode {
  kind: 'session';
  key: string;
  session: SessionSummary;
}
interface EpisodeNode {
  kind: 'episode';
  key: string;
  episode: EpisodeView;
  parent: SessionNode;
}
type Node = SessionNode | EpisodeNode | MoreNode<Node> | MessageNode<Node>;

const ROOT = 'sessions';

export class EpisodesTree extends PagedTree<Node> {
  constructor(ctx: RecallExtension) {
    super(VIEWS.episodes, 'Episodes', ctx);
  }

  protected async children(node?: Node): Promise<Node[]> {
    if (!node) {
      const { items, total } = await this.pager.list(ROOT, (o, l) => this.ctx.source.sessions(o, l));
      this.view.description = total ? `${total} session${total === 1 ? '' : 's'}` : undefined;
      const sessions: Node[] = items.map((session) => ({ kind: 'session', key: sessionKey(session.session), session }));
      return withMore(sessions, total, ROOT, undefined, this.more(ROOT, undefined));
    }
    if (node.kind !== 'session') return [];
    const { items, total } = await this.pager.list(node.key, (o, l) => this.ctx.source.sessionEpisodes(node.session.session, o, l));
    const episodes: Node[] = items.map((episode) => ({ kind: 'episode', key: `${node.key}/${episode.id}`, episode, parent: node }));
    return withMore(episodes, total, node.key, node, this.more(node.key, node));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'session': {
        const s = node.session;
        // Named by its title (the tool's, else its first question); the id stays one hover away.
        const label = s.title ?? s.session ?? '(no session)';
        const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.key;
        const dates = day(s.first) === day(s.last) ? day(s.last) : `${day(s.first)} – ${day(s.last)}`;
        const elsewhere = s.project && s.project !== workspaceProject().project ? ` · ${projectLabel(s.project)}` : '';
        item.description = `${dates} · ${s.episodes} episode${s.episodes === 1 ? '' : 's'}${elsewhere}`;
        // The session id is often a file name (SpecStory's), so anyone who can commit chooses it: text only.
        const tooltip = new vscode.MarkdownString();
        if (s.title) tooltip.appendMarkdown(`${escapeMarkdown(s.title)}\n\n`);
        tooltip.appendMarkdown(`Session ${s.session === null ? '(none)' : codeSpan(s.session)}\n\n`);
        if (s.project) tooltip.appendMarkdown(`Project ${escapeMarkdown(s.project)}\n\n`);
        tooltip.appendMarkdown(escapeMarkdown(`${s.episodes} episode(s), ${minute(s.first)} to ${minute(s.last)}`));
        item.tooltip = tooltip;
        item.accessibilityInformation = { label: `Session ${label}, ${item.description}` };
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
        item.contextValue = 'session';
        return item;
      }
      case 'episode':
        return episodeItem(node.key, node.episode);
      case 'more':
        return moreItem(node);
      case 'message':
        return messageItem(node);
    }
  }
}

const sessionKey = (session: string | null): string => (session === null ? 's0' : `s/${session}`);

/** A project key as a person reads it: `github.com/me/app` is `app`, `dir:/home/me/notes` is `notes`. */
const projectLabel = (key: string): string => key.replace(/\/+$/, '').split(/[/:]/).pop() || key;
