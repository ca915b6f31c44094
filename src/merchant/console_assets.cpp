// The console's stylesheet (console.hpp), embedded at build time: one file, no third-party origin,
// light and dark by the reader's preference.
#include "console_assets.hpp"

namespace merchant {

const char* const kConsoleCss = R"css(
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0b5cad;
  --ok: #116329; --warn: #7d4e00; --bad: #a40e26; --panel: #f6f8fa; --bar: #0b5cad; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9ea7b3; --line: #3d444d; --accent: #6cb6ff; --ok: #56d364;
    --warn: #e3b341; --bad: #ff7b72; --panel: #161b22; --bar: #6cb6ff; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--fg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, main:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; z-index: 1; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line);
  background: var(--panel); }
header nav ul { display: flex; flex-wrap: wrap; gap: 1rem; list-style: none; margin: 0; padding: 0; }
header nav a[aria-current="page"] { font-weight: 700; }
header .who { margin-left: auto; display: flex; gap: .75rem; align-items: center; color: var(--muted); }
main { padding: 1rem 1.5rem 3rem; max-width: 78rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; overflow-wrap: anywhere; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; list-style: none; padding: 0; margin: 0 0 .75rem; }
.filters a[aria-current="page"] { font-weight: 700; text-decoration: none; color: var(--fg); }
form.inline { display: inline; }
form.stack { display: grid; gap: .5rem; max-width: 32rem; margin: .5rem 0 1rem; }
label { font-weight: 600; }
input, select, textarea, button { font: inherit; color: inherit; }
input, select, textarea { background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: .35rem .5rem; }
button { background: var(--accent); color: var(--bg); border: 0; border-radius: 4px; padding: .35rem .9rem; cursor: pointer; }
button.quiet { background: transparent; color: var(--accent); border: 1px solid var(--line); }
.banner { border: 1px solid var(--line); border-left: 6px solid var(--warn); background: var(--panel); padding: .75rem 1rem; margin: 1rem 0; }
.banner.bad { border-left-color: var(--bad); }
.banner.ok { border-left-color: var(--ok); }
.state-paid { color: var(--ok); font-weight: 600; }
.state-partial, .state-attention, .state-refunded { color: var(--warn); font-weight: 600; }
.state-failed { color: var(--bad); font-weight: 600; }
.muted { color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; background: var(--panel); }
.card h2 { margin-top: 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
ol.timeline { list-style: none; padding: 0; border-left: 2px solid var(--line); margin-left: .5rem; }
ol.timeline li { padding: .25rem 0 .5rem 1rem; }
ol.timeline time { color: var(--muted); font-variant-numeric: tabular-nums; margin-right: .5rem; }
svg.chart { width: 100%; max-width: 48rem; height: auto; }
svg.chart rect { fill: var(--bar); }
svg.chart line { stroke: var(--line); }
svg.chart text { fill: var(--muted); font-size: 10px; }
.login { max-width: 24rem; margin: 4rem auto; }
)css";

}  // namespace merchant
