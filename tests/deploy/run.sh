#!/usr/bin/env bash
# The operator's install: `cmake --install` of the native build into a temporary prefix holds the
# three programs, their --help texts, and the gateway's systemd unit with that prefix's paths, and
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
done
unit=$prefix/lib/systemd/system/paywasm-merchant.service
[[ -f $unit ]] || fail "the systemd unit was not installed"
grep -q "^ExecStart=$prefix/bin/paywasm-merchant " "$unit" || fail "ExecStart does not name the installed binary"
grep -q '@PAYWASM_' "$unit" && fail "placeholders left in the unit"
for directive in DynamicUser=yes ProtectSystem=strict StateDirectory=paywasm-merchant NoNewPrivileges=yes \
                 EnvironmentFile=/etc/paywasm/merchant.env; do
  grep -qx "$directive" "$unit" || fail "the unit lacks $directive"
done
# No secret on the unit's command line: they come from the environment file.
grep -E '^ExecStart=.*(TOKEN|SECRET|password)' "$unit" && fail "a secret on ExecStart"
command -v systemd-analyze >/dev/null || fail "systemd-analyze not found (Debian's systemd package)"
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$unit" 2>&1) || fail "systemd-analyze verify: $out"
# verify prints warnings without failing; a unit of ours must have none.
[[ -z $out ]] || fail "systemd-analyze verify warned: $out"
echo "deploy: installed into $prefix; the unit verifies"
