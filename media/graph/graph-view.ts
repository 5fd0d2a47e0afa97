/**
 * The graph webview (bundled by esbuild.mjs into dist/graph-view.js, loaded under a strict CSP):
 * draws the neighbourhoods the extension sends, node by node, with Cytoscape.js. Node size is the
 * entity's evidence, edge width and opacity its effective confidence; wrong, superseded and stale
 * facts and each provenance are styled apart; knowledge items are labelled by their kind and listed
 * by kind in the facts panel. Everything is reachable by keyboard: the node list
 * (arrows move, Enter expands), the facts of the selected node with their actions, a context menu.
 */
import cytoscape, { type Core, type EdgeSingular, type ElementDefinition, type NodeSingular } from 'cytoscape';
import { graphStyle } from './graph-style.js';
import { edgeGroups, edgeState, edgeText } from '../../src/extension/graph/common/graph-text.js';
import type {
  Found,
  GraphEdge,
  GraphNode,
  Neighbourhood,
  ToExtension,
  ToWebview,
} from '../../src/extension/graph/common/graph-messages.js';

declare function acquireVsCodeApi(): { postMessage(m: ToExtension): void };
const vscode = acquireVsCodeApi();
const post = (m: ToExtension): void => vscode.postMessage(m);
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

const nodes = new Map<string, GraphNode & { expanded: boolean }>();
const edges = new Map<string, GraphEdge>();
const filter = { hiddenTypes: new Set<string>(), project: '', minConfidence: 0, ended: true };
let selected: string | undefined;

const cy: Core = cytoscape({ container: $('graph'), minZoom: 0.1, maxZoom: 4, wheelSensitivity: 0.3, boxSelectionEnabled: false });
applyTheme();
new MutationObserver(applyTheme).observe(document.body, { attributes: true, attributeFilter: ['class'] });

// ---- messages -----------------------------------------------------------------------------

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const m = event.data;
  if (m.type === 'neighbourhood') {
    merge(m.data);
    if (m.focus) select(key(m.data.center));
  } else if (m.type === 'refreshed') {
    nodes.clear();
    edges.clear();
    for (const part of m.parts) merge(part, true);
    draw();
    status(`${nodes.size} entities and ${edges.size} facts drawn (updated after a change)`);
  } else if (m.type === 'found') showFound(m.entities);
  else if (m.type === 'error') status(m.message, true);
});
post({ type: 'ready' });

const key = (name: string): string => name.toLowerCase();

function merge(n: Neighbourhood, quiet = false): void {
  const center = key(n.center);
  const origin = cy.getElementById(center);
  const at = origin.nonempty() ? origin.position() : { x: 0, y: 0 };
  for (const node of n.nodes) {
    const k = key(node.name);
    nodes.set(k, { ...node, expanded: nodes.get(k)?.expanded ?? false });
  }
  nodes.get(center)!.expanded = true;
  for (const e of n.edges) edges.set(e.id, e);
  if (quiet) return;
  // New neighbours go on a ring around the node they came from; what is drawn already stays put.
  const fresh = n.nodes.filter((x) => cy.getElementById(key(x.name)).empty());
  const radius = 90 + 6 * fresh.length;
  draw(new Map(fresh.map((x, i) => [key(x.name), ring(at, radius, i, fresh.length, x.name === n.center)])));
  status(`${n.center}: ${n.edges.length} of ${n.total} fact(s) drawn`);
  if (cy.nodes().length <= fresh.length + 1) cy.fit(undefined, 40);
}

function ring(at: { x: number; y: number }, r: number, i: number, count: number, isCenter: boolean): { x: number; y: number } {
  if (isCenter) return at;
  const a = (2 * Math.PI * i) / Math.max(count, 1);
  return { x: at.x + r * Math.cos(a), y: at.y + r * Math.sin(a) };
}

// ---- drawing ------------------------------------------------------------------------------

function draw(positions = new Map<string, { x: number; y: number }>()): void {
  const els: ElementDefinition[] = [];
  for (const [k, n] of nodes) {
    const have = cy.getElementById(k);
    const data = { id: k, label: n.name, type: n.type, size: 18 + 7 * Math.log2(1 + n.episodes), more: n.relationships };
    if (have.nonempty()) have.data(data);
    else els.push({ group: 'nodes', data, position: positions.get(k) ?? { x: Math.random() * 400, y: Math.random() * 400 } });
  }
  for (const [id, e] of edges) {
    const [s, o] = [key(e.subject), key(e.object)];
    if (!nodes.has(s) || !nodes.has(o)) continue;
    const data = {
      id,
      source: s,
      target: o,
      label: e.predicate,
      w: 1 + 5 * e.effective_confidence,
      op: 0.3 + 0.7 * e.effective_confidence,
    };
    const have = cy.getElementById(id);
    if (have.nonempty()) have.data(data);
    else els.push({ group: 'edges', data });
  }
  cy.batch(() => {
    cy.nodes().forEach((el) => void (nodes.has(el.id()) || el.remove()));
    cy.edges().forEach((el) => void (edges.has(el.id()) || el.remove()));
    cy.add(els);
    cy.nodes().forEach((el) => {
      el.toggleClass('expanded', nodes.get(el.id())!.expanded);
      el.toggleClass('type-' + typeIndex(el.data('type')), true);
    });
    cy.edges().forEach((el) => {
      const e = edges.get(el.id())!;
      el.classes([e.status, e.authority, e.stale ? 'stale' : '', e.pinned ? 'pinned' : '', e.kind ? 'item' : ''].filter(Boolean));
    });
  });
  applyFilter();
}

const TYPES: string[] = [];
function typeIndex(type: string): number {
  if (!TYPES.includes(type)) TYPES.push(type);
  return TYPES.indexOf(type) % 6;
}

/** Canvas colours come from VS Code's theme variables, read again when the theme changes. */
function applyTheme(): void {
  const css = getComputedStyle(document.body);
  cy.style(graphStyle((name, fallback) => css.getPropertyValue(`--vscode-${name}`).trim() || fallback));
}

// ---- filters ------------------------------------------------------------------------------

function applyFilter(): void {
  cy.batch(() => {
    cy.edges().forEach((el) => {
      const e = edges.get(el.id())!;
      const project = filter.project === '' || (filter.project === '-' ? !e.project : e.project === filter.project);
      const shown = project && e.effective_confidence >= filter.minConfidence && (filter.ended || e.status === 'current');
      el.toggleClass('hidden', !shown);
    });
    cy.nodes().forEach((el) => {
      const hiddenType = filter.hiddenTypes.has(el.data('type'));
      // A node stays while a shown fact touches it, or when nothing touches it (it was searched for).
      const touching = el.connectedEdges();
      el.toggleClass('hidden', hiddenType || (touching.nonempty() && touching.filter('.hidden').length === touching.length));
    });
  });
  renderControls();
  renderList();
}

function renderControls(): void {
  const types = [...new Set([...nodes.values()].map((n) => n.type))].sort();
  const box = $('types');
  box.replaceChildren(
    ...types.map((t) => {
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.type = 'checkbox';
      input.checked = !filter.hiddenTypes.has(t);
      input.addEventListener('change', () => {
        if (input.checked) filter.hiddenTypes.delete(t);
        else filter.hiddenTypes.add(t);
        applyFilter();
      });
      label.append(input, ` ${t}`);
      return label;
    }),
  );
  const projects = [...new Set([...edges.values()].map((e) => e.project).filter((p): p is string => !!p))].sort();
  const select = $<HTMLSelectElement>('project');
  const options = [['', 'All projects'], ['-', 'Global only'], ...projects.map((p) => [p, p])];
  if (select.options.length !== options.length) {
    select.replaceChildren(...options.map(([value, text]) => new Option(text, value, false, value === filter.project)));
  }
}

$<HTMLSelectElement>('project').addEventListener('change', (e) => {
  filter.project = (e.target as HTMLSelectElement).value;
  applyFilter();
});
$<HTMLInputElement>('confidence').addEventListener('input', (e) => {
  filter.minConfidence = Number((e.target as HTMLInputElement).value) / 100;
  $('confidence-value').textContent = `${Math.round(filter.minConfidence * 100)}%`;
  applyFilter();
});
$<HTMLInputElement>('ended').addEventListener('change', (e) => {
  filter.ended = (e.target as HTMLInputElement).checked;
  applyFilter();
});

// ---- the node list, the selection and the facts panel ------------------------------------

function visibleNodes(): NodeSingular[] {
  return cy
    .nodes()
    .filter((n) => !n.hasClass('hidden'))
    .sort((a, b) => String(a.data('label')).localeCompare(String(b.data('label'))))
    .toArray() as NodeSingular[];
}

function renderList(): void {
  const list = $('nodes');
  list.replaceChildren(
    ...visibleNodes().map((n) => {
      const li = document.createElement('li');
      li.id = `item-${n.id()}`;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', String(n.id() === selected));
      const node = nodes.get(n.id())!;
      li.textContent = `${node.name} · ${node.type} · ${node.episodes} ep${node.expanded ? '' : ' · +'}`;
      li.addEventListener('click', () => select(n.id()));
      li.addEventListener('dblclick', () => post({ type: 'expand', entity: node.name }));
      return li;
    }),
  );
  if (selected) list.setAttribute('aria-activedescendant', `item-${selected}`);
  renderFacts();
}

function select(id: string | undefined): void {
  selected = id;
  cy.elements().removeClass('selected');
  if (id) {
    const el = cy.getElementById(id);
    el.addClass('selected');
    if (el.nonempty() && !el.visible()) cy.center(el);
  }
  renderList();
  document.getElementById(`item-${id}`)?.scrollIntoView({ block: 'nearest' });
}

function renderFacts(): void {
  const panel = $('facts');
  const node = selected ? nodes.get(selected) : undefined;
  if (!node) return void panel.replaceChildren();
  const title = document.createElement('h2');
  title.textContent = `${node.name} (${node.type})`;
  const actions = document.createElement('div');
  actions.append(
    button('Expand', () => post({ type: 'expand', entity: node.name })),
    button('Reveal in Entities', () => post({ type: 'reveal', entity: node.name })),
  );
  const shown = cy
    .getElementById(selected!)
    .connectedEdges()
    .filter((x) => !x.hasClass('hidden'))
    .map((x) => edges.get(x.id())!);
  // Its knowledge items by kind (rules and decisions first), then its plain relationships.
  const groups = edgeGroups(shown).flatMap((g) => {
    const heading = document.createElement('h3');
    heading.textContent = `${g.title} (${g.edges.length})`;
    const list = document.createElement('ul');
    list.append(...g.edges.map(factItem));
    return [heading, list];
  });
  panel.replaceChildren(title, actions, ...groups);
}

function factItem(e: GraphEdge): HTMLLIElement {
  const el = cy.getElementById(e.id);
  const li = document.createElement('li');
  li.className = `fact ${e.status}${e.stale ? ' stale' : ''}`;
  const text = document.createElement('span');
  text.textContent = `${edgeText(e)} — ${edgeState(e)}`;
  li.append(text, ...factButtons(e));
  li.addEventListener('mouseenter', () => el.addClass('selected'));
  li.addEventListener('mouseleave', () => el.removeClass('selected'));
  return li;
}

function factButtons(e: GraphEdge): HTMLButtonElement[] {
  const out: HTMLButtonElement[] = [];
  if (e.status === 'current') out.push(button('Mark Wrong', () => post({ type: 'correct', id: e.id, verdict: 'wrong' })));
  if (!e.pinned || e.status !== 'current') out.push(button('Confirm', () => post({ type: 'correct', id: e.id, verdict: 'confirm' })));
  return out;
}

function button(text: string, run: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.textContent = text;
  b.addEventListener('click', () => {
    closeMenu();
    run();
  });
  return b;
}

// Keyboard on the list: arrows move, Enter expands, R reveals, the context-menu key opens actions.
$('nodes').addEventListener('keydown', (ev) => {
  const list = visibleNodes();
  const at = list.findIndex((n) => n.id() === selected);
  const move = (to: number): void => {
    ev.preventDefault();
    const n = list[Math.max(0, Math.min(list.length - 1, to))];
    if (n) select(n.id());
  };
  if (ev.key === 'ArrowDown') move(at + 1);
  else if (ev.key === 'ArrowUp') move(at - 1);
  else if (ev.key === 'Home') move(0);
  else if (ev.key === 'End') move(list.length - 1);
  else if (selected && ev.key === 'Enter') post({ type: 'expand', entity: nodes.get(selected)!.name });
  else if (selected && (ev.key === 'r' || ev.key === 'R')) post({ type: 'reveal', entity: nodes.get(selected)!.name });
  else if (selected && (ev.key === 'ContextMenu' || (ev.shiftKey && ev.key === 'F10'))) {
    ev.preventDefault();
    const el = cy.getElementById(selected);
    openMenu(el.renderedPosition(), el);
  }
});

// Keyboard on the canvas: arrows move the selection to the nearest node that way.
$('graph').addEventListener('keydown', (ev) => {
  const dir = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] }[ev.key];
  if (!dir) {
    if (selected && ev.key === 'Enter') post({ type: 'expand', entity: nodes.get(selected)!.name });
    return;
  }
  ev.preventDefault();
  const from = selected ? cy.getElementById(selected) : undefined;
  if (!from || from.empty()) return select(visibleNodes()[0]?.id());
  const p = from.position();
  let best: [number, string] | undefined;
  for (const n of visibleNodes()) {
    const dx = n.position().x - p.x;
    const dy = n.position().y - p.y;
    const along = dx * dir[0]! + dy * dir[1]!;
    if (n.id() === from.id() || along <= 0) continue;
    const score = along + 2 * Math.abs(dx * dir[1]! - dy * dir[0]!);
    if (!best || score < best[0]) best = [score, n.id()];
  }
  if (best) select(best[1]);
});

// ---- pointer and the context menu --------------------------------------------------------

cy.on('tap', 'node', (e) => {
  select(e.target.id());
  post({ type: 'reveal', entity: nodes.get(e.target.id())!.name });
});
cy.on('dbltap', 'node', (e) => post({ type: 'expand', entity: nodes.get(e.target.id())!.name }));
cy.on('tap', 'edge', (e) => select(e.target.source().id()));
cy.on('cxttap', 'node, edge', (e) => openMenu(e.renderedPosition ?? e.target.renderedPosition(), e.target));
cy.on('tap', (e) => e.target === cy && closeMenu());

function openMenu(at: { x: number; y: number }, el: NodeSingular | EdgeSingular | cytoscape.CollectionReturnValue): void {
  const menu = $('menu');
  const items: HTMLButtonElement[] = [];
  if (el.isNode()) {
    const name = nodes.get(el.id())!.name;
    items.push(
      button('Expand', () => post({ type: 'expand', entity: name })),
      button('Reveal in Entities', () => post({ type: 'reveal', entity: name })),
    );
  } else items.push(...factButtons(edges.get(el.id())!));
  items.forEach((b) => b.setAttribute('role', 'menuitem'));
  menu.replaceChildren(...items);
  menu.hidden = false;
  menu.style.left = `${at.x}px`;
  menu.style.top = `${at.y}px`;
  items[0]?.focus();
}

function closeMenu(): void {
  $('menu').hidden = true;
}

$('menu').addEventListener('keydown', (ev) => {
  const items = [...$('menu').querySelectorAll('button')];
  const at = items.indexOf(document.activeElement as HTMLButtonElement);
  if (ev.key === 'Escape') {
    closeMenu();
    $('nodes').focus();
  } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
    ev.preventDefault();
    items[(at + (ev.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
  }
});

// ---- search --------------------------------------------------------------------------------

let searchTimer: ReturnType<typeof setTimeout> | undefined;
$<HTMLInputElement>('search').addEventListener('input', (e) => {
  clearTimeout(searchTimer);
  const query = (e.target as HTMLInputElement).value.trim();
  searchTimer = setTimeout(() => (query ? post({ type: 'search', query }) : showFound([])), 200);
});

function showFound(found: Found[]): void {
  $('found').replaceChildren(
    ...found.map((f) => {
      const li = document.createElement('li');
      li.append(button(`${f.name} (${f.type})`, () => post({ type: 'expand', entity: f.name })));
      return li;
    }),
  );
}

function status(text: string, error = false): void {
  const el = $('status');
  el.textContent = text;
  el.classList.toggle('error', error);
}
