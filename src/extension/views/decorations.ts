/**
 * Dims ended facts (marked wrong or superseded) in the Entities view and badges confirmed ones:
 * tree items carry a `recall-fact:` resourceUri whose query says the fact's status.
 */
import * as vscode from 'vscode';
import { FACT_SCHEME } from '../common/ids.js';

export function registerFactDecorations(): vscode.Disposable {
  return vscode.window.registerFileDecorationProvider({
    provideFileDecoration(uri) {
      if (uri.scheme !== FACT_SCHEME) return undefined;
      const q = new URLSearchParams(uri.query);
      const status = q.get('status');
      if (status && status !== 'current') {
        return {
          badge: status === 'wrong' ? '✗' : '⤳',
          tooltip: status === 'wrong' ? 'Marked wrong by a person' : 'Superseded',
          color: new vscode.ThemeColor('disabledForeground'),
        };
      }
      const code = q.get('code');
      if (code === 'changed' || code === 'gone') {
        return {
          badge: '⚠',
          tooltip: code === 'changed' ? 'The code it names changed since it was learned' : 'The code it names is gone (renamed or deleted)',
          color: new vscode.ThemeColor('list.warningForeground'),
        };
      }
      if (q.get('pinned') === '1') return { badge: '✓', tooltip: 'Confirmed by a person' };
      return undefined;
    },
  });
}
