// Where the script was loaded from: the wasm module and the language files are fetched beside it.
// Set once by the entry (entry-script.js: document.currentScript; entry-module.js: import.meta.url).
let scriptUrl = '';
export const setScriptUrl = (url) => { scriptUrl = url; };
export const besideScript = (file) => new URL(file, scriptUrl || document.baseURI).href;
