// One driver interface over every browser engine the widget is tested in, so that a check is
// written once (engines/suite.mjs) and runs in each. Engines differ in how they are driven, never
// in what a test asserts.
//
//   const engine = await launchEngine('firefox');   // chromium | firefox | webkit | wpe
//   engine.name, engine.version                      // 'Firefox', '153.7.0esr'
//   const page = await engine.newPage();            // a fresh context (nothing cached or stored),
//                                                    // 800x600; newPage({width, height}): another
//                                                    // size (chromium, firefox, webkit; wpe: 800x600)
//   await page.goto(url);
//   await page.run(fn, arg)                          // fn(arg) in the page (self-contained; may be
//                                                    // async); its JSON result
//   await page.click(fn, arg)                        // a real click on the element fn(arg) returns
//                                                    // (shadow DOM included)
//   await page.pressAcross(fn, arg, during, duringArg)
//                                                    // the mouse pressed on fn(arg)'s centre, then
//                                                    // during(duringArg) run in the page, then released
//   await page.press('Tab', '654321', 'Enter')       // keys: named ones (Tab, Enter, Space,
//                                                    // ArrowDown, ArrowUp, Escape), else typed text
//   await page.screenshot()                          // PNG of the viewport (a Buffer)
//   await page.close(); await engine.close();
//
//   chromium  Debian's Chromium through playwright-core (chromium.mjs)
//   firefox   Firefox ESR through puppeteer-core 24 over WebDriver BiDi (firefox.mjs)
//   webkit    WebKitGTK's MiniBrowser through WebKitWebDriver, on an Xvfb display it starts (webkit.mjs)
//   wpe       WPE WebKit 2.38 (cog, headless) through WPEWebDriver (wpe.mjs)
import { waitFor } from '../../support/node.mjs';

export const ENGINES = ['chromium', 'firefox', 'webkit', 'wpe'];

export async function launchEngine(name) {
  if (!ENGINES.includes(name)) throw new Error(`unknown engine ${name} (one of ${ENGINES.join(', ')})`);
  const { launch } = await import(`./${name}.mjs`);
  const engine = await launch();
  const newPage = engine.newPage;
  engine.newPage = async (size) => waitingClicks(await newPage(size));
  return engine;
}

// A click waits for its target, as a shopper does: fn(arg) is asked again until it names an element
// (20 s at most: a deadline for a busy machine). What the page draws after an event (a panel after a radio, a button after an
// answer) is there when the page has handled the event, which a driver's previous command does not
// always wait for.
function waitingClicks(page) {
  const click = page.click;
  page.click = async (fn, arg) => {
    let failed = null;  // any other failure of the click is the test's, at once
    await waitFor(async () => {
      try {
        await click(fn, arg);
      } catch (e) {
        if (/^click: no element/.test(e.message)) return false;
        failed = e;
      }
      return true;
    }, { timeout: 20000, interval: 50, what: `an element to click from ${String(fn).slice(0, 120)}` });
    if (failed) throw failed;
  };
  return page;
}
