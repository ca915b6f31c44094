// Chromium (Debian's /usr/bin/chromium) through playwright-core, as the other browser suites drive it.
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../lib.mjs';
import { playwrightPage } from './pages.mjs';

export async function launch() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return {
    name: 'Chromium',
    version: browser.version(),
    // A fresh context per page: nothing cached or stored from another page.
    async newPage({ width = 800, height = 600 } = {}) {
      const context = await browser.newContext({ locale: 'en-US', viewport: { width, height } });
      return playwrightPage(await context.newPage(), () => context.close());
    },
    close: () => browser.close(),
  };
}
