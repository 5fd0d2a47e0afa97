/**
 * The Entities view: first the current project's rules and decisions in force, in a group of their
 * own (each item's kind, statement, whether a person confirmed it, who said it); then entity types →
 * entities → their relationships (predicate, other entity, effective confidence, provenance; ended
 * ones dimmed by decorations.ts) → evidence episodes. Items are facts: Confirm and Mark Wrong work on
 * them as on any fact. Children are fetched when a node is expanded, a page at a time.
 */
import { codeStale } from '../../core/model/code-anchors.js';
import * as vscode from 'vscode';
import type { KnowledgeKind } from '../../core/model/knowledge.js';
import type { EntityView, EpisodeView, FactView } from '../../core/model/views.js';
import type { RecallExtension } from '../ctx.js';
import { COMMANDS, VIEWS } from '../common/ids.js';
import { messageItem, moreItem, PagedTree, withMore, type MessageNode, type MoreNode } from './paging.js';
import { checkable } from './check-editor.js';
import * as present from './present.js';

export interface TypeNode {
  kind: 'type';
  key: string;
  type: string;
  count: number;
  expand: boolean;
}
/** The current project's rules and decisions in force. */
export interface GroupNode {
  kind: 'group';
  key: string;
  label: string;
  kinds: KnowledgeKind[];
  count: number;
  parent?: undefined;
}
export interface EntityNode {
  kind: 'entity';
  key: string;
  entity: EntityView;
  parent: TypeNode;
}
export interface FactNode {
  kind: 'fact';
  key: string;
  fact: FactView & { said_by?: string[] };
  /** The entity it is listed under (absent in a group: it reads whole). */
  from?: string;
  parent: EntityNode | GroupNode;
}
export interface EvidenceNode {
  kind: 'evidence';
  key: string;
  episode: EpisodeView;
  parent: FactNode;
}
export type Node = GroupNode | TypeNode | EntityNode | FactNode | EvidenceNode | MoreNode<Node> | MessageNode<Node>;

/** The group shown first: what holds in this project and is easiest to break unknowingly. */
const RULES_AND_DECISIONS: KnowledgeKind[] = ['rule', 'decision'];
/** An item's icon by its kind. */
const KIND_ICONS: Record<KnowledgeKind, string> = {
  rule: 'law',
  decision: 'milestone',
  preference: 'heart',
  fact: 'info',
  lesson: 'lightbulb',
};

export class EntitiesTree extends PagedTree<Node> {
  private codeTimer: NodeJS.Timeout | undefined;

  constructor(ctx: RecallExtension) {
    super(VIEWS.entities, 'Entities', ctx);
    // Facts show whether the code they name changed: a saved, deleted or renamed file may change that.
    const codeChanged = (): void => {
      clearTimeout(this.codeTimer);
      this.codeTimer = setTimeout(() => this.refresh(), CODE_REFRESH_MS);
    };
    ctx.push(
      vscode.workspace.onDidSaveTextDocument((d) => d.uri.scheme === 'file' && codeChanged()),
      vscode.workspace.onDidDeleteFiles(codeChanged),
      vscode.workspace.onDidRenameFiles(codeChanged),
      { dispose: () => clearTimeout(this.codeTimer) },
    );
  }

  /** A node for an entity found elsewhere (search), so the view can reveal it. */
  entityNode(entity: EntityView): EntityNode {
    return { kind: 'entity', key: `e/${entity.name.toLowerCase()}`, entity, parent: typeNode(entity.type, 0, false) };
  }

  protected async children(node?: Node): Promise<Node[]> {
    if (!node) return this.roots();
    switch (node.kind) {
      case 'group':
        return this.itemsOf(node);
      case 'type':
        return this.entitiesOf(node);
      case 'entity':
        return this.factsOf(node);
      case 'fact':
        return this.evidenceOf(node);
      default:
        return [];
    }
  }

  private async roots(): Promise<Node[]> {
    // The entities still show when the items cannot be listed (the group is then left out, and the log says why).
    const items = this.ctx.source.items(RULES_AND_DECISIONS, 0, 1).catch((err: Error) => {
      this.ctx.log.warn(`Entities view: rules and decisions not listed: ${err.message}`);
      return { total: 0 };
    });
    const [types, { total: rules }] = await Promise.all([this.ctx.source.types(), items]);
    const total = types.reduce((n, t) => n + t.entities, 0);
    this.view.description = total ? `${total} entit${total === 1 ? 'y' : 'ies'}` : undefined;
    const group: GroupNode[] = rules
      ? [{ kind: 'group', key: 'g/rules', label: 'Rules and decisions', kinds: RULES_AND_DECISIONS, count: rules }]
      : [];
    return [...group, ...types.map((t) => typeNode(t.type, t.entities, types.length <= 3))];
  }

  private async itemsOf(node: GroupNode): Promise<Node[]> {
    const { items, total } = await this.pager.list(node.key, (o, l) => this.ctx.source.items(node.kinds, o, l));
    const out: Node[] = items.map((fact) => ({ kind: 'fact', key: `${node.key}/f/${fact.id}`, fact, parent: node }));
    return withMore(out, total, node.key, node, this.more(node.key, node));
  }

  private async entitiesOf(node: TypeNode): Promise<Node[]> {
    const { items, total } = await this.pager.list(node.key, (o, l) => this.ctx.source.entities(node.type, o, l));
    const out: Node[] = items.map((entity) => ({ kind: 'entity', key: `e/${entity.name.toLowerCase()}`, entity, parent: node }));
    return withMore(out, total, node.key, node, this.more(node.key, node));
  }

  private async factsOf(node: EntityNode): Promise<Node[]> {
    const { items, total } = await this.pager.list(node.key, (o, l) => this.ctx.source.facts(node.entity.name, o, l));
    if (total === 0) return [{ kind: 'message', key: `${node.key}/none`, text: 'No relationships yet', parent: node }];
    const out: Node[] = items.map((fact) => ({
      kind: 'fact',
      key: `${node.key}/f/${fact.id}`,
      fact,
      from: node.entity.name,
      parent: node,
    }));
    return withMore(out, total, node.key, node, this.more(node.key, node));
  }

  private async evidenceOf(node: FactNode): Promise<Node[]> {
    const ids = node.fact.evidence.slice(0, 500);
    const episodes = await this.ctx.source.episodesById(ids);
    const out: Node[] = episodes.map((episode) => ({ kind: 'evidence', key: `${node.key}/ep/${episode.id}`, episode, parent: node }));
    if (node.fact.evidence.length > ids.length) {
      out.push({
        kind: 'message',
        key: `${node.key}/cut`,
        text: `… ${node.fact.evidence.length - ids.length} more evidence episodes`,
        parent: node,
      });
    }
    return out;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const None = vscode.TreeItemCollapsibleState.None;
    const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    switch (node.kind) {
      case 'group': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
        item.id = node.key;
        item.description = String(node.count);
        item.tooltip = `The rules and decisions in force in this project (and your global memory): ${node.count}`;
        item.iconPath = new vscode.ThemeIcon('law');
        item.contextValue = 'knowledgeGroup';
        return item;
      }
      case 'type': {
        const item = new vscode.TreeItem(node.type, node.expand ? vscode.TreeItemCollapsibleState.Expanded : Collapsed);
        item.id = node.key;
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon('symbol-namespace');
        item.contextValue = 'entityType';
        return item;
      }
      case 'entity': {
        const item = new vscode.TreeItem(node.entity.name, Collapsed);
        item.id = node.key;
        item.description = present.entityDescription(node.entity);
        item.tooltip = present.entityTooltip(node.entity);
        item.iconPath = new vscode.ThemeIcon('symbol-class');
        item.contextValue = 'entity';
        return item;
      }
      case 'fact': {
        const f = node.fact;
        const item = new vscode.TreeItem(present.factLabel(f, node.from), f.evidence.length ? Collapsed : None);
        item.id = node.key;
        item.description = node.parent.kind === 'group' ? present.itemDescription(f) : present.factDescription(f);
        item.tooltip = present.factTooltip(f);
        item.resourceUri = present.factUri(f, node.key);
        const outgoing = node.from === undefined || f.subject.toLowerCase() === node.from.toLowerCase();
        const stale = f.status === 'current' && codeStale(f.code);
        const icon = f.kind ? KIND_ICONS[f.kind] : f.pinned ? 'verified' : outgoing ? 'arrow-right' : 'arrow-left';
        item.iconPath = stale
          ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
          : new vscode.ThemeIcon(f.status !== 'current' ? 'circle-slash' : icon);
        // `.stale`: the code it names changed or is gone, so Re-confirm Against Code is offered instead of Confirm;
        // `.rule`: it can carry a check (Edit Rule Check…); `.item`: a knowledge item, which Same As… joins to another.
        item.contextValue = `fact.${f.status === 'current' ? 'current' : 'ended'}${f.pinned ? '.pinned' : ''}${stale ? '.stale' : ''}${checkable(f) ? '.rule' : ''}${f.kind ? '.item' : ''}`;
        item.accessibilityInformation = { label: `${present.factText(f)}, ${item.description}` };
        return item;
      }
      case 'evidence':
        return episodeItem(node.key, node.episode);
      case 'more':
        return moreItem(node);
      case 'message':
        return messageItem(node);
    }
  }
}

/** Saves come in bursts (Save All): one refresh after they settle. */
const CODE_REFRESH_MS = 500;

const typeNode = (type: string, count: number, expand: boolean): TypeNode => ({ kind: 'type', key: `t/${type}`, type, count, expand });

export function episodeItem(key: string, e: EpisodeView): vscode.TreeItem {
  const item = new vscode.TreeItem(present.episodeLabel(e), vscode.TreeItemCollapsibleState.None);
  item.id = key;
  item.description = present.episodeDescription(e);
  item.tooltip = present.episodeTooltip(e);
  item.iconPath = new vscode.ThemeIcon(e.role && /assistant|agent|model/i.test(e.role) ? 'hubot' : 'comment');
  item.contextValue = 'episode';
  item.command = { command: COMMANDS.openEpisode, title: 'Open Episode', arguments: [e.id] };
  return item;
}
