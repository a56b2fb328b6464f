// CodeMirror writes its styles (style-mod) into a <style> element when it lives in a document,
// and into an adopted stylesheet only in a shadow root. The lab's Content-Security-Policy refuses
// inline <style> elements (style-src 'self', no nonce: a static site has no per-response nonce),
// so before the first editor mounts, the document's style set is made an adopted one: style-mod
// picks a constructed CSSStyleSheet for a root without a `head`, and keeps that set for the root.
// Checked in the browser by e2e/csp.e2e.mjs (the editor opens with no violation).
import { StyleModule } from 'style-mod';

let adopted = false;

/** Makes CodeMirror's styles for `doc` an adopted stylesheet (once; a no-op where the DOM has none, e.g. jsdom). */
export function adoptEditorStyles(doc: Document = document): void {
  if (adopted || !('adoptedStyleSheets' in doc) || typeof CSSStyleSheet === 'undefined') return;
  adopted = true;
  // Hide `head` for the one call that creates the document's style set (an own property shadows Document.prototype's getter).
  Object.defineProperty(doc, 'head', { value: null, configurable: true });
  try {
    StyleModule.mount(doc, []);
  } finally {
    delete (doc as { head?: unknown }).head;
  }
}
