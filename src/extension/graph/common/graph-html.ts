/**
 * The graph webview's page: a strict Content Security Policy (nothing remote; the one script by
 * nonce; styles only from the extension's own files), the bundled script and stylesheet, and the
 * controls the script fills in. Cytoscape injects a <style> unless one with its id exists: an inert
 * placeholder stands in, so no inline style is ever needed.
 */
import * as crypto from 'node:crypto';

export interface PageUris {
  cspSource: string;
  script: string;
  style: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

export function graphPage(uris: PageUris, title: string): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(uris.cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uris.style}">
<meta id="__________cytoscape_stylesheet">
<title>${escapeHtml(title)}</title>
</head>
<body>
<header>
  <label>Search <input id="search" type="search" placeholder="an entity" aria-label="Search entities to add to the graph"></label>
  <label>Project <select id="project" aria-label="Project"></select></label>
  <label>Confidence ≥ <input id="confidence" type="range" min="0" max="100" value="0" aria-label="Minimum effective confidence"> <span id="confidence-value">0%</span></label>
  <label><input id="ended" type="checkbox" checked> Wrong and superseded facts</label>
  <span id="types" role="group" aria-label="Entity types"></span>
  <span class="legend">bold label: a rule, decision or other knowledge item, by its kind · dashed: an agent's · grey: stale or superseded · red ⊣: wrong · green: confirmed</span>
</header>
<aside>
  <ul id="found" aria-label="Search results"></ul>
  <ul id="nodes" role="listbox" tabindex="0" aria-label="Entities drawn (arrows move, Enter expands, R reveals, Shift+F10 actions)"></ul>
  <section id="facts" aria-live="polite"></section>
</aside>
<div id="stage">
  <div id="graph" tabindex="0" role="application" aria-label="Knowledge graph (arrows move between nodes, Enter expands)"></div>
  <div id="menu" role="menu" hidden></div>
</div>
<footer id="status" role="status"></footer>
<script nonce="${nonce}" src="${uris.script}"></script>
</body>
</html>`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
