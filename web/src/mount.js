// PayWasm.mount(): a checkout from JavaScript, over the element.
import { ATTRIBUTE_DEFAULTS } from 'paywasm:build';
import { PayWasmError } from './error.js';
import { TAG } from './element.js';

// Options of mount(): every attribute in camelCase, plus cart, shippingAddress, getShopperToken,
// qrResult.
const OBJECT_OPTIONS = ['cart', 'shippingAddress', 'getShopperToken', 'qrResult'];
function applyOptions(el, options) {
  for (const [k, v] of Object.entries(options || {})) {
    if (OBJECT_OPTIONS.includes(k) || k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()) in ATTRIBUTE_DEFAULTS) el[k] = v;
    else console.warn(`paywasm: mount() ignores the unknown option ${k}`);
  }
}

// Mounts a checkout on `target` (a <paywasm-checkout>, a container to put one in, or a selector)
// and returns its controller.
export function mount(target, options) {
  const found = typeof target === 'string' ? document.querySelector(target) : target;
  if (!found || !(found instanceof Element)) {
    throw new PayWasmError('usage', `mount(): no element for ${typeof target === 'string' ? target : 'the given target'}`);
  }
  const created = found.localName !== TAG;
  const el = created ? document.createElement(TAG) : found;
  applyOptions(el, options);
  if (created) found.append(el);
  let listeners = [];  // [name, fn, listener]
  const eventName = (type) => (type.startsWith('paywasm-') ? type : `paywasm-${type}`);
  const controller = {
    element: el,
    ready: el.ready,
    // on('status', (detail, event) => ...) — also 'ready', 'error', 'complete'; returns an unsubscribe.
    on(type, fn) {
      const name = eventName(type);
      const listener = (event) => fn(event.detail, event);
      el.addEventListener(name, listener);
      listeners.push([name, fn, listener]);
      return () => controller.off(type, fn);
    },
    off(type, fn) {
      const name = eventName(type);
      // removeEventListener() returns undefined: the matching entries go
      listeners = listeners.filter((l) => l[0] !== name || l[1] !== fn || el.removeEventListener(name, l[2]));
    },
    update(next) { applyOptions(el, next); },
    // false (and nothing changes) while a request is in flight: see the element's reset().
    reset() { return el.reset(); },
    destroy() {
      for (const l of listeners) el.removeEventListener(l[0], l[2]);
      listeners = [];
      if (created) el.remove();
      else {
        el._teardown();
        el.shadowRoot.replaceChildren();
      }
    },
  };
  return controller;
}
