// Firefox ESR (Debian's /usr/bin/firefox-esr) through puppeteer-core 24 over WebDriver BiDi
// (playwright-core cannot make a context in Firefox ESR: emulation.setMediaFeaturesOverride).
import puppeteer from 'puppeteer-core';
import { puppeteerPage } from './pages.mjs';

export const FIREFOX = process.env.PAYWASM_FIREFOX || '/usr/bin/firefox-esr';

export async function launch() {
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: FIREFOX, headless: true,
    extraPrefsFirefox: { 'intl.accept_languages': 'en-US', 'intl.locale.requested': 'en-US' },
  });
  return {
    name: 'Firefox ESR',
    version: (await browser.version()).replace(/^firefox\//i, ''),
    // A fresh browser context per page: nothing cached or stored from another page.
    async newPage({ width = 800, height = 600 } = {}) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width, height });
      return puppeteerPage(page, () => context.close());
    },
    close: () => browser.close(),
  };
}
