// WebKitGTK (Debian's webkit2gtk-driver: WebKitWebDriver, which starts MiniBrowser) over plain W3C
// WebDriver. MiniBrowser needs an X display even for automation: an Xvfb of its own is started
// here and stopped with the browser.
import fs from 'node:fs';
import { driverPool, startProcess } from './webdriver.mjs';

async function startXvfb() {
  for (let tries = 0; tries < 20; tries++) {
    const n = 100 + Math.floor(Math.random() * 800);
    if (fs.existsSync(`/tmp/.X11-unix/X${n}`) || fs.existsSync(`/tmp/.X${n}-lock`)) continue;
    const x = await startProcess('Xvfb', [`:${n}`, '-nolisten', 'tcp', '-screen', '0', '1280x1024x24'], {
      ready: async () => fs.existsSync(`/tmp/.X11-unix/X${n}`),
    }).catch(() => null);
    if (x) return { display: `:${n}`, stop: x.stop };
  }
  throw new Error('Xvfb: no free display');
}

export async function launch() {
  const x = await startXvfb();
  const pool = driverPool('WebKitWebDriver', { DISPLAY: x.display, LANG: 'en_US.UTF-8', LANGUAGE: 'en_US' }, {});
  try {
    // Each page is a session of its own (a fresh MiniBrowser); the first says the version.
    const probe = await pool.newPage();
    const version = probe.capabilities.browserVersion;
    await probe.close();
    return {
      name: 'WebKitGTK',
      version,
      async newPage({ width = 800, height = 600 } = {}) {
        const page = await pool.newPage();
        await page.setWindowSize(width, height);
        return page;
      },
      async close() {
        await pool.close();
        await x.stop();
      },
    };
  } catch (e) {
    await pool.close();
    await x.stop();
    throw e;
  }
}
