// Building the shopper's view with DOM calls only (createElement, textContent, setAttribute): no
// innerHTML and no style attributes, so data from a server can never become markup, and the element
// runs under style-src 'self'.

export const SVG_NS = 'http://www.w3.org/2000/svg';

// h('button', { class: 'pay', onclick: fn }, 'text', child): attributes as attributes, strings as
// text nodes. Never parses markup.
export function h(tag, attrs, ...children) {
  const el = /^(svg|path)$/.test(tag) ? document.createElementNS(SVG_NS, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(9)) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

// One path each (sub-paths in one `d`).
const ICONS = {
  check: 'M4 12.5l5 5L20 6.5',
  cross: 'M6 6l12 12M18 6L6 18',
  clock: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18zM12 7v5l3.5 2',
  alert: 'M12 3L2 20h20zM12 10v4M12 17v.5',
};
export const icon = (name) => h('svg', { viewBox: '0 0 24 24', class: 'icon', 'aria-hidden': 'true', focusable: 'false' }, h('path', { d: ICONS[name] }));

// `text` with the order id in it kept in one piece where it fits on a line (span.id: an inline
// block that breaks inside only when it is longer than a line).
export function withId(text, id) {
  const i = id ? text.indexOf(id) : -1;
  return i < 0 ? text : [text.slice(0, i), h('span', { class: 'id' }, id), text.slice(i + id.length)];
}
