// The classic script, dist/paywasm.js (<script src=".../paywasm.js">). The first copy of the widget
// on a page (this script or paywasm.mjs) boots it; any later one reuses window.PayWasm.
import { boot } from './api.js';

if (!window.PayWasm) window.PayWasm = boot((document.currentScript && document.currentScript.src) || document.baseURI);
