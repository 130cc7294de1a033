import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** Renders a full document. Preact escapes every interpolated value. */
export function renderPage(vnode: VNode): string {
  return `<!doctype html>${renderToString(vnode)}`;
}

export function renderFragment(vnode: VNode): string {
  return renderToString(vnode);
}
