// Known-answer test of `paywasm qr`: the SVG it prints, rendered to PNG by librsvg (rsvg-convert)
// and read back by ZBar (zbarimg), must give exactly the text it was made from.
//   node qr_kat.mjs PAYWASM_BIN
import fs from 'node:fs';
import path from 'node:path';

import { tempDir } from '../support/node.mjs';
import { Checks, run, tool } from './kat_lib.mjs';

const cli = process.argv[2];
if (!cli || !fs.existsSync(cli)) {
  console.error(`usage: node qr_kat.mjs PAYWASM_BIN (got ${cli ?? 'nothing'})`);
  process.exit(2);
}
const rsvg = tool('rsvg-convert', 'RSVG_CONVERT', 'librsvg2-bin');
const zbarimg = tool('zbarimg', 'ZBARIMG', 'zbar-tools');

const cases = [
  { text: 'bitcoin:bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh?amount=0.00123456&value=45.10', args: ['--check-uri'] },
  { text: 'ethereum:0x52908400098527886E0F7030069857D2E4169EE7?amount=0.5&value=1700.25', args: ['--ecc', 'H'] },
  { text: 'litecoin:ltc1qg82m5lfmsxjxqtmzjzsl0jzfe5ymspzxgqcszz?amount=1&value=80', args: ['--ecc', 'L', '--border', '1'] },
  { text: 'HELLO WORLD 0123456789', args: ['--ecc', 'Q', '--border', '8'] },
  { text: `https://example.com/checkout?cart=${'x'.repeat(600)}`, args: [] },
];

const checks = new Checks('kat.qr');
const dir = tempDir('paywasm-kat-qr-');
try {
  cases.forEach(({ text, args }, i) => {
    const name = `qr ${args.join(' ') || '(defaults)'} "${text.length > 50 ? `${text.slice(0, 47)}...` : text}"`;
    checks.guard(name, () => {
      const svgPath = path.join(dir, `qr${i}.svg`);
      const pngPath = path.join(dir, `qr${i}.png`);
      const svg = run(cli, ['qr', ...args, text]).toString();
      fs.writeFileSync(svgPath, svg);
      const wellFormed = svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"') &&
        (svg.match(/<path /g) || []).length === 1 && !/<script|href/i.test(svg);
      run(rsvg, ['--width', '600', '--height', '600', '--keep-aspect-ratio', '-o', pngPath, svgPath]);
      const decoded = run(zbarimg, ['--quiet', '--raw', '-Sdisable', '-Sqrcode.enable', pngPath]).toString();
      checks.check(`${name}: one path, no script; rsvg-convert + zbarimg read back the exact text`,
        wellFormed && decoded === `${text}\n`, `well-formed ${wellFormed}, zbarimg read ${JSON.stringify(decoded)}`);
    });
  });

  checks.guard('qr --check-uri refuses javascript:', () => {
    let status = 0;
    try {
      run(cli, ['qr', '--check-uri', 'javascript:alert(1)']);
    } catch (e) {
      status = e.status;
    }
    checks.check('qr --check-uri refuses javascript:alert(1) with exit 1', status === 1);
  });
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
checks.finish();
