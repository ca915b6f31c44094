#!/usr/bin/env bash
# The operator's install: `cmake --install` of the native build into a temporary prefix holds the
# three programs, their --help texts and man pages (made of the same text), and the gateway's
# systemd unit with that prefix's paths, and
# `systemd-analyze verify` accepts the unit (syntax, directives, the ExecStart binary).
#   tests/deploy/run.sh <native build dir>
set -euo pipefail
build=${1:?usage: run.sh <native build dir>}
prefix=$(mktemp -d "${TMPDIR:-/tmp}/paywasm-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
fail() { printf 'deploy: FAIL: %s\n' "$*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for p in paywasm paywasm-merchant paywasm-sandbox; do
  [[ -x $prefix/bin/$p ]] || fail "bin/$p was not installed"
  doc=$prefix/share/doc/paywasm/$p.txt
  [[ -s $doc ]] || fail "$doc was not installed"
  grep -q "^usage: $p" "$doc" || fail "$doc is not $p's --help text"
  man=$prefix/share/man/man1/$p.1.gz
  [[ -s $man ]] || fail "$man was not installed"
  # The man page is the --help text: every line of it, escaped for roff, in the page.
  diff <(zcat "$man" | sed -n '/^\.nf$/,/^\.fi$/p' | sed '1d;$d' | sed -e 's/^\\&//' -e 's/\\-/-/g' -e 's/\\e/\\/g') "$doc" >/dev/null ||
    fail "$man is not $p --help"
done
# Nothing outside the prefix: /etc and the widget are the Debian package's alone (make package).
[[ ! -e $prefix/etc && ! -e $prefix/share/paywasm ]] || fail "a package-only file under the prefix"
unit=$prefix/lib/systemd/system/paywasm-merchant.service
[[ -f $unit ]] || fail "the systemd unit was not installed"
grep -q "^ExecStart=$prefix/bin/paywasm-merchant " "$unit" || fail "ExecStart does not name the installed binary"
grep -q '@PAYWASM_' "$unit" && fail "placeholders left in the unit"
grep -qx "ExecStart=$prefix/bin/paywasm-merchant --config /etc/paywasm/merchant.conf" "$unit" ||
  fail "ExecStart does not read /etc/paywasm/merchant.conf"
for directive in User=paywasm Group=paywasm ProtectSystem=strict StateDirectory=paywasm NoNewPrivileges=yes UMask=0077; do
  grep -qx "$directive" "$unit" || fail "the unit lacks $directive"
done
# No secret on the unit's command line or in its environment: the configuration names their files.
grep -E '^(ExecStart|Environment).*(TOKEN|SECRET|password)' "$unit" && fail "a secret on ExecStart"
command -v systemd-analyze >/dev/null || fail "systemd-analyze not found (Debian's systemd package)"
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$unit" 2>&1) || fail "systemd-analyze verify: $out"
# verify prints warnings without failing; a unit of ours must have none.
[[ -z $out ]] || fail "systemd-analyze verify warned: $out"
echo "deploy: installed into $prefix; the unit verifies"
