// The element's colours: the shared stylesheet of every shadow root, and the per-element text
// colours on and of the brand colour, worked out from the computed colours. Writes only the
// element's own sheet (c.sheet), never a style attribute and never the checkout's state.
import { CSS_TEXT } from 'paywasm:build';

let sharedSheet = null;
export function styleSheet() {
  if (!sharedSheet) {
    sharedSheet = new CSSStyleSheet();
    sharedSheet.replaceSync(CSS_TEXT);
  }
  return sharedSheet;
}

// The colour of any CSS colour text as [r, g, b, a] (a 1x1 canvas reads it as sRGB), and its WCAG 2
// relative luminance + 0.05 (the contrast of two colours is the ratio of these).
let canvas = null;
function rgba(color) {
  canvas = canvas || document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  canvas.fillStyle = '#000';
  canvas.fillStyle = color;
  canvas.fillRect(0, 0, 1, 1);
  return canvas.getImageData(0, 0, 1, 1).data;
}
const luminance = (c) => [0.2126, 0.7152, 0.0722].reduce((sum, w, i) => {
  const x = c[i] / 255;
  return sum + w * (x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
}, 0.05);
const contrast = (a, b) => { const x = luminance(a); const y = luminance(b); return x > y ? x / y : y / x; };

// The text on the brand colour and the brand colour as text keep 4.5:1 (WCAG AA) whatever colours
// the merchant gives: --paywasm-accent-fg is kept when it reaches it on the accent, else the text
// is black or white, whichever contrasts more; the accent as text (links, copy buttons, the info
// icon, the chosen method's border) is darkened on a light background, lightened on a dark one,
// until it reaches it. The result goes into this element's own sheet, never a style attribute.
// Returns true.
export function colours(c, root) {
  const style = getComputedStyle(root);
  const bg = rgba(style.backgroundColor);
  const accent = rgba(style.getPropertyValue('--_accent'));
  // Black and white meet at luminance 0.179: one of them always reaches 4.58:1.
  const on = contrast(rgba(style.getPropertyValue('--_accent-fg')), accent) > 4.6 ? 'var(--_accent-fg)'
    : luminance(accent) > 0.229 ? '#000' : '#fff';
  const to = luminance(bg) > 0.229 ? 0 : 255;
  let text = accent;
  for (let i = 0; i < 20 && contrast(text, bg) < 4.6; i++) text = text.map((v) => v + (to - v) / 5);
  c.sheet.replaceSync(`.root{--_on:${on};--_text:rgb(${text.slice(0, 3)})}`);
  return true;
}
