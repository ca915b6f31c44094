// The page interface every engine gives (engines/index.mjs), over Playwright's and Puppeteer's
// pages; webdriver.mjs gives the same over W3C WebDriver.
const NAMED = new Set(['Tab', 'Enter', 'Space', 'ArrowDown', 'ArrowUp', 'Escape']);

// Puppeteer over BiDi knows no "Space" key: a typed space is the same keystroke.
function common(page, closeContext, { space = 'Space' } = {}) {
  return {
    goto: (url) => page.goto(url).then(() => {}),
    run: (fn, arg) => page.evaluate(fn, arg === undefined ? null : arg),
    async click(fn, arg) {
      const handle = await page.evaluateHandle(fn, arg === undefined ? null : arg);
      const el = handle.asElement ? handle.asElement() : handle;
      if (!el) throw new Error(`click: no element from ${String(fn).slice(0, 120)}`);
      await el.click();
    },
    async pressAcross(fn, arg, during, duringArg) {
      const handle = await page.evaluateHandle(fn, arg === undefined ? null : arg);
      const el = handle.asElement ? handle.asElement() : handle;
      if (!el) throw new Error(`pressAcross: no element from ${String(fn).slice(0, 120)}`);
      await el.hover();
      await page.mouse.down();
      await page.evaluate(during, duringArg === undefined ? null : duringArg);
      await page.mouse.up();
    },
    async press(...keys) {
      for (const k of keys) {
        if (k === 'Space' && space !== 'Space') await page.keyboard.type(space);
        else if (NAMED.has(k)) await page.keyboard.press(k);
        else await page.keyboard.type(k);
      }
    },
    screenshot: async () => Buffer.from(await page.screenshot()),
    close: closeContext,
  };
}

export const playwrightPage = (page, close) => common(page, close);
export const puppeteerPage = (page, close) => common(page, close, { space: ' ' });
