/** The graph's Cytoscape stylesheet, in VS Code's theme colours (read from its CSS variables by graph-view.ts). */
import type { StylesheetJson } from 'cytoscape';

/** `v(name, fallback)`: the value of `--vscode-<name>`. */
export function graphStyle(v: (name: string, fallback: string) => string): StylesheetJson {
  const fg = v('editor-foreground', '#ccc');
  const muted = v('descriptionForeground', '#888');
  const palette = ['charts-blue', 'charts-purple', 'charts-orange', 'charts-green', 'charts-yellow', 'charts-red'].map((c) => v(c, '#4a9'));
  return [
    {
      selector: 'node',
      style: {
        width: 'data(size)',
        height: 'data(size)',
        label: 'data(label)',
        color: fg,
        'font-size': 11,
        'text-valign': 'bottom',
        'text-margin-y': 3,
        'background-color': palette[0],
        'border-width': 1,
        'border-color': v('editor-background', '#000'),
      },
    },
    ...palette.map((c, i) => ({ selector: `node.type-${i}`, style: { 'background-color': c } })),
    { selector: 'node.expanded', style: { 'border-width': 3, 'border-color': fg } },
    { selector: 'node:selected, node.selected', style: { 'border-width': 4, 'border-color': v('focusBorder', '#07f') } },
    {
      selector: 'edge',
      style: {
        width: 'data(w)',
        opacity: 'data(op)' as unknown as number,
        label: 'data(label)',
        'font-size': 9,
        color: muted,
        'text-rotation': 'autorotate',
        'curve-style': 'bezier',
        'target-arrow-shape': 'triangle',
        'line-color': fg,
        'target-arrow-color': fg,
      },
    },
    // A knowledge item is labelled by its kind (its predicate), in the text colour, so rules and decisions stand out.
    { selector: 'edge.item', style: { color: fg, 'font-weight': 'bold', 'font-size': 10 } },
    { selector: 'edge.agent', style: { 'line-style': 'dashed' } },
    { selector: 'edge.external', style: { 'line-style': 'dashed', 'line-dash-pattern': [2, 4] } },
    { selector: 'edge.pinned', style: { 'line-color': v('charts-green', '#3a3'), 'target-arrow-color': v('charts-green', '#3a3') } },
    { selector: 'edge.stale', style: { 'line-color': muted, 'target-arrow-color': muted, 'line-style': 'dashed' } },
    {
      selector: 'edge.superseded',
      style: { 'line-color': muted, 'target-arrow-color': muted, 'line-style': 'dotted', opacity: 0.5, width: 1.5 },
    },
    {
      selector: 'edge.wrong',
      style: {
        'line-color': v('errorForeground', '#f44'),
        'target-arrow-color': v('errorForeground', '#f44'),
        'target-arrow-shape': 'tee',
        'line-style': 'dotted',
        opacity: 0.8,
        width: 2,
        color: v('errorForeground', '#f44'),
      },
    },
    {
      selector: 'edge:selected, edge.selected',
      style: { 'line-color': v('focusBorder', '#07f'), 'target-arrow-color': v('focusBorder', '#07f') },
    },
    { selector: '.hidden', style: { display: 'none' } },
  ];
}
