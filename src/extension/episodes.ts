/**
 * The Episodes view: sessions, most recent first (with their dates), then the session's
 * episodes in order. Opening one shows it read-only with its citation (episodeDocument.ts).
 */
import * as vscode from 'vscode';
import type { EpisodeView } from '../core/model/views.js';
import type { RecallExtension } from './ctx.js';
import { episodeItem } from './entities.js';
import { VIEWS } from './ids.js';
import { messageItem, moreItem, PagedTree, withMore, type MessageNode, type MoreNode } from './paging.js';
import { day } from './present.js';
import { workspaceProject } from './connection.js';
import type { SessionSummary } from './source.js';

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
        const item = new vscode.TreeItem(s.session ?? '(no session)', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.key;
        const dates = day(s.first) === day(s.last) ? day(s.last) : `${day(s.first)} – ${day(s.last)}`;
        item.description = `${dates} · ${s.episodes} episode${s.episodes === 1 ? '' : 's'}${s.project && s.project !== workspaceProject().project ? ` · ${projectLabel(s.project)}` : ''}`;
        item.tooltip = `Session ${s.session ?? '(none)'}: ${s.episodes} episode(s), ${s.first.slice(0, 16).replace('T', ' ')} to ${s.last.slice(0, 16).replace('T', ' ')}`;
        item.accessibilityInformation = { label: `Session ${s.session ?? '(none)'}, ${item.description}` };
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
