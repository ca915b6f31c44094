// The shopper-facing text: web/src/locales/<lang>.json, one object per language with the keys of
// en.json ({name} placeholders are filled with text, never HTML; a missing key falls back to
// English; error keys are the stable error codes, "<code>.next" the next step shown under the
// message, "<code>.<method>" a method's own wording). web/build.mjs puts English into paywasm.js as
// ENGLISH (the en table) and writes each other language as paywasm-<lang>.json beside it (its values in
// the order of the English keys), with LOCALES = { lang: its SRI value } (paywasm:build).
import { ENGLISH, LOCALES } from 'paywasm:build';
import { besideScript } from './assets.js';

// lang -> its table; other languages are added when their file has arrived.
export const MESSAGES = { en: ENGLISH };

export const LANGS = ['en', ...Object.keys(LOCALES)];

// The supported language for a BCP 47 tag, else the browser's languages, else English: { lang, tag }
// (tag, canonical, is what Intl formats with). Portuguese is Brazilian for pt-BR and a bare "pt"
// (CLDR's default), European for any other region.
export function pickLocale(tag) {
  const nav = typeof navigator !== 'undefined' ? navigator.languages || [navigator.language] : [];
  for (const t of [tag, ...nav]) {
    let loc;
    try { loc = new Intl.Locale(String(t).replace(/_/g, '-')); } catch (e) { continue; }
    const lang = loc.language === 'pt' ? (loc.region && loc.region !== 'BR' ? 'pt-PT' : 'pt-BR') : loc.language;
    if (t && LANGS.includes(lang)) return { lang, tag: loc.toString() };
  }
  return { lang: 'en', tag: 'en' };
}

// Fetches paywasm-<lang>.json (beside the script, checked against its built-in SRI value) once
// and adds it to MESSAGES. Never rejects: until it has arrived, or when it cannot be had (offline,
// blocked by connect-src), text is English, and a later call tries again.
const localeLoads = {};
export function loadLocale(lang) {
  if (MESSAGES[lang] || !LOCALES[lang] || typeof fetch !== 'function') return Promise.resolve();
  if (!localeLoads[lang]) {
    localeLoads[lang] = Promise.resolve()
      .then(() => fetch(besideScript(`paywasm-${lang}.json`), { credentials: 'same-origin', integrity: LOCALES[lang] }))
      .then((r) => (r.ok ? r.json() : null))
      .then((texts) => {
        const keys = Object.keys(MESSAGES.en);
        if (!Array.isArray(texts) || texts.length !== keys.length) throw new Error('not this version\'s language file');
        const table = {};
        keys.forEach((k, i) => { if (typeof texts[i] === 'string') table[k] = texts[i]; });
        MESSAGES[lang] = table;
      })
      .catch(() => {})
      .then(() => { delete localeLoads[lang]; });
  }
  return localeLoads[lang];
}

// loadLocale(lang), resolved after LANGUAGE_WAIT_MS at the latest: a language file that is slow to
// come never holds the checkout back (the text is English until it has arrived).
const LANGUAGE_WAIT_MS = 2000;
export function languageWithin(lang) {
  return Promise.race([loadLocale(lang), new Promise((resolve) => setTimeout(resolve, LANGUAGE_WAIT_MS))]);
}

// Text for `key` in `lang` with {placeholders} filled in (values are inserted as text).
export function translate(lang, key, vars) {
  const text = (MESSAGES[lang] && MESSAGES[lang][key]) || MESSAGES.en[key] || key;
  return vars ? text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m)) : text;
}
