// WPE WebKit 2.38 (Debian's wpewebkit-driver and cog: a 2022 engine whose user agent says Safari
// 16.0, without SIMD128 and without constructable stylesheets) over plain W3C WebDriver; cog runs
// headless, so no display. Its viewport is 800x600.
import { execFileSync } from 'node:child_process';
import { driverPool } from './webdriver.mjs';

const CAPABILITIES = { 'wpe:browserOptions': { binary: '/usr/bin/cog', args: ['--automation', '--platform=headless'] } };

export async function launch() {
  const pool = driverPool('WPEWebDriver', { LANG: 'en_US.UTF-8', LANGUAGE: 'en_US' }, CAPABILITIES);
  // "0.16.1 (WPE WebKit 2.38.6)": the driver's capabilities say "2.38" only.
  const version = /WPE WebKit ([\d.]+)/.exec(execFileSync('cog', ['--version']).toString())?.[1] || '?';
  return { name: 'WPE WebKit', version, newPage: () => pool.newPage(), close: () => pool.close() };
}
