#!/usr/bin/env bash
# Installs what paywasm needs to build and test, and nothing that is already there:
#   1. Debian packages (only the missing ones; checked with dpkg-query, so a no-op run touches no network)
#   2. the Crypto++ 8.7 and qrcodegen 1.8 source tarballs from Debian's source packages, SHA-256 pinned
#   3. Crypto++ built once for wasm, cached by version and flags
#   4. npm packages from package-lock.json (npm ci, only when the lock changed)
# Then writes build/deps.env with the two paths the wasm CMake configure needs.
#
# Environment:
#   PAYWASM_CACHE   where tarballs and the wasm Crypto++ live (default: $HOME/.cache/paywasm);
#                   outside the build tree so `make clean` keeps it.
#   PAYWASM_JOBS    parallel jobs for the Crypto++ build (default: 2)
#   PAYWASM_DEPS_ENV  where to write the paths file (default: build/deps.env in the checkout)
# Runs as root for apt-get (as CI does). Not root and something missing: prints the command and fails.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PAYWASM_CACHE:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.cache/paywasm}
JOBS=${PAYWASM_JOBS:-2}
export NODE_PATH=/usr/share/nodejs   # Debian's emcc runs its JS tools with /usr/bin/node (needs acorn)

say() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------------
# 1. Debian packages
# ---------------------------------------------------------------------------------------------------
APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates curl
  ccache                                       # the Makefile's compiler cache: a second clone builds in minutes
  emscripten                                   # 3.1.6, pinned by emsdk-version.txt
  libcrypto++-dev libqrcodegencpp-dev          # native Crypto++ 8.7, qrcodegen 1.8
  libcpp-httplib-dev libssl-dev libsqlite3-dev # the outbound HTTP client (CLI, gateway, sandbox), storage
  libboost1.74-dev                             # Boost.Beast/Asio (header-only): the servers' HTTP stack
  libpq-dev postgresql                         # the gateway on PostgreSQL (and its tests: a real server)
  libcurl4-openssl-dev python3-aiosmtpd        # the gateway's mail (libcurl's SMTP); its tests' real SMTP server
  rapidjson-dev doctest-dev                    # header-only
  openssl zbar-tools librsvg2-bin chromium     # known-answer tests, QR rendering + decoding, browser tests
  poppler-utils                                # the link poster printed to PDF, rasterised for zbarimg (pdftoppm)
  firefox-esr webkit2gtk-driver xvfb           # the browser suites in Firefox ESR and WebKitGTK (on an Xvfb display)
  wpewebkit-driver cog                         # ... and in WPE WebKit 2.38: no SIMD128, no constructable stylesheets
  clang-14 libclang-rt-14-dev llvm-14          # libFuzzer targets (make fuzz, fuzz.brief), symbolized reports
  wabt                                         # wasm-validate: paywasm-nosimd.wasm holds no SIMD (ctest)
  sqlite3                                      # gateway.upgrade reads and writes 0.2.0's database file
  systemd                                      # systemd-analyze verify: the gateway's unit (deploy.install)
  nginx                                        # proxy.nginx: the gateway behind deploy/nginx.conf
  dpkg-dev fakeroot lintian adduser            # make package: cpack's dpkg-shlibdeps, root-owned files, lintian
  apt util-linux                               # package.deb: apt-get install ./*.deb; setpriv, runuser, flock
)

missing_apt_packages() {
  # One dpkg-query for all: prints "name status" for known packages, nothing for unknown ones.
  local installed
  installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${APT_PACKAGES[@]}" 2>/dev/null |
              awk '$2 == "ii" { print $1 }' || true)
  local p
  for p in "${APT_PACKAGES[@]}"; do
    grep -qxF "$p" <<<"$installed" || printf '%s\n' "$p"
  done
  # Node and npm: any install will do (a nodesource nodejs ships npm and conflicts with Debian's npm).
  command -v node >/dev/null || printf 'nodejs\n'
  command -v npm >/dev/null || printf 'npm\n'
}

# Other installs on this machine may hold apt's locks: wait for them (10 minutes at most) instead of failing.
APT_WAIT=(-o DPkg::Lock::Timeout=600)

apt_install() {
  local cmd=(apt-get "${APT_WAIT[@]}" install -y --no-install-recommends "$@")
  if [[ $(id -u) -ne 0 ]]; then
    die "missing Debian packages; run as root: apt-get update && DEBIAN_FRONTEND=noninteractive ${cmd[*]}"
  fi
  say "installing: $*"
  apt_update
  DEBIAN_FRONTEND=noninteractive "${cmd[@]}"
}

# apt-get update takes the lists lock, which DPkg::Lock::Timeout does not cover: retry while it is held.
apt_update() {
  local i
  for i in $(seq 1 60); do
    DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT[@]}" update -q && return 0
    say "apt-get update failed (another apt holding its lock?); retrying in 10 s ($i/60)"
    sleep 10
  done
  die "apt-get update kept failing"
}

mapfile -t missing < <(missing_apt_packages)
if ((${#missing[@]})); then
  apt_install "${missing[@]}"
fi

# ---------------------------------------------------------------------------------------------------
# 2. Source tarballs (Debian source packages; pinned by SHA-256, see docs and shared toolchain notes)
# ---------------------------------------------------------------------------------------------------
CRYPTOPP_VERSION=8.7.0
CRYPTOPP_TARBALL=libcrypto++_8.7.0+git220824.orig.tar.gz
CRYPTOPP_SHA256=6aa99cbacf4d30eb21f0b8fc08f6244e81b024b04a7863032a1133797aa4e8fd
QRCODEGEN_VERSION=1.8.0
QRCODEGEN_TARBALL=qr-code-generator_1.8.0.orig.tar.gz
QRCODEGEN_SHA256=2ec0a4d33d6f521c942eeaf473d42d5fe139abcfa57d2beffe10c5cf7d34ae60

# The one compile-flag set every wasm object shares (must match cmake/EmscriptenCheck.cmake).
CRYPTOPP_WASM_FLAGS="-O3 -DNDEBUG -DCRYPTOPP_DISABLE_ASM -fwasm-exceptions"
# Of the objects the widget links, these are rebuilt with -Oz instead of -O3 and replaced in the
# archive: paywasm.wasm -1,209 B gzip -9 (each measured alone: sha -495, iterhash -213, cryptlib
# -210, oaep -151, misc -115). Not the others: pubkey.o (+192) and filters.o (+23) grow the module
# at -Oz, and a whole -Oz library links Crypto++'s Integer into the widget (+5 KB).
CRYPTOPP_WASM_OZ_OBJECTS="sha iterhash cryptlib oaep misc"
EMSDK_VERSION=$(tr -d '[:space:]' <"$ROOT/emsdk-version.txt")
FLAGS_KEY=$(printf '%s|%s|%s|%s' "$CRYPTOPP_VERSION" "$CRYPTOPP_WASM_FLAGS" "$EMSDK_VERSION" "$CRYPTOPP_WASM_OZ_OBJECTS" |
            sha256sum | cut -c1-10)
CRYPTOPP_WASM_DIR=$CACHE/cryptopp-$CRYPTOPP_VERSION-wasm-$FLAGS_KEY
QRCODEGEN_SRC_DIR=$CACHE/qrcodegen-$QRCODEGEN_VERSION

SRC_LIST=/etc/apt/sources.list.d/paywasm-deb-src.sources

ensure_deb_src() {
  # A deb-src twin of the machine's own Debian sources (same URIs and suites), so no host is named here.
  if apt-cache showsrc libcrypto++ qr-code-generator 2>/dev/null | grep -q '^Package: qr-code-generator'; then
    return
  fi
  [[ $(id -u) -eq 0 ]] || die "no Debian source index; as root, add a deb-src entry (Types: deb-src) \
mirroring /etc/apt/sources.list.d/debian.sources and run apt-get update"
  local base=/etc/apt/sources.list.d/debian.sources
  if [[ -f $base ]]; then
    if [[ ! -f $SRC_LIST ]]; then
      say "adding $SRC_LIST (deb-src twin of $base)"
      sed -E 's/^Types:.*/Types: deb-src/' "$base" >"$SRC_LIST.tmp"
      mv "$SRC_LIST.tmp" "$SRC_LIST"
    fi
  elif [[ -f /etc/apt/sources.list ]]; then   # older one-line format
    SRC_LIST=/etc/apt/sources.list.d/paywasm-deb-src.list
    if [[ ! -f $SRC_LIST ]]; then
      say "adding $SRC_LIST (deb-src twin of /etc/apt/sources.list)"
      sed -nE 's/^deb[[:space:]]+/deb-src /p' /etc/apt/sources.list >"$SRC_LIST.tmp"
      mv "$SRC_LIST.tmp" "$SRC_LIST"
    fi
  else
    die "neither $base nor /etc/apt/sources.list exists: cannot derive a deb-src entry"
  fi
  apt_update
}

# fetch_tarballs: puts both pinned tarballs in $CACHE/src, verified.
fetch_tarballs() {
  mkdir -p "$CACHE/src"
  local need=0 t
  for t in "$CRYPTOPP_TARBALL" "$QRCODEGEN_TARBALL"; do [[ -f $CACHE/src/$t ]] || need=1; done
  if ((need)); then
    ensure_deb_src
    local tmp
    tmp=$(mktemp -d "$CACHE/src/.download.XXXXXX")
    chmod 755 "$tmp"
    id _apt >/dev/null 2>&1 && chown _apt "$tmp"   # lets apt download sandboxed
    say "downloading Debian source tarballs (libcrypto++, qr-code-generator)"
    (cd "$tmp" && apt-get source -q --download-only --tar-only libcrypto++ qr-code-generator)
    for t in "$CRYPTOPP_TARBALL" "$QRCODEGEN_TARBALL"; do
      [[ -f $tmp/$t ]] || die "apt-get source did not produce $t (Debian's version changed?); got: $(ls "$tmp")"
      mv "$tmp/$t" "$CACHE/src/$t"
    done
    rm -rf "$tmp"
  fi
  verify "$CACHE/src/$CRYPTOPP_TARBALL" "$CRYPTOPP_SHA256"
  verify "$CACHE/src/$QRCODEGEN_TARBALL" "$QRCODEGEN_SHA256"
}

verify() {
  local file=$1 want=$2 got
  got=$(sha256sum "$file" | cut -d' ' -f1)
  if [[ $got != "$want" ]]; then
    mv -f "$file" "$file.bad"
    die "SHA-256 mismatch for $(basename "$file"): expected $want, got $got (moved aside to $file.bad)"
  fi
}

# extract TARBALL DEST: unpacks into DEST (one top-level folder stripped), atomically.
extract() {
  local tarball=$1 dest=$2 tmp
  tmp=$(mktemp -d "$dest.tmp.XXXXXX")
  tar -xzf "$tarball" -C "$tmp" --strip-components=1 --no-same-owner
  mv "$tmp" "$dest"
}

# ---------------------------------------------------------------------------------------------------
# 3. qrcodegen source tree and Crypto++ for wasm (each finished dir appears in one rename)
# ---------------------------------------------------------------------------------------------------
if [[ ! -f $QRCODEGEN_SRC_DIR/cpp/qrcodegen.cpp || ! -f $CRYPTOPP_WASM_DIR/lib/libcryptopp.a ]]; then
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9   # two builds sharing a cache wait for each other instead of racing
  # Holding the lock, anything half-done in the cache is from an interrupted run: drop it.
  rm -rf "$CACHE"/.cryptopp-build.* "$CACHE"/src/.download.* "$CACHE"/*.tmp.*
  trap 'exit 130' INT TERM   # so the EXIT trap below also cleans up on Ctrl-C or kill
fi

if [[ ! -f $QRCODEGEN_SRC_DIR/cpp/qrcodegen.cpp ]]; then
  fetch_tarballs
  rm -rf "$QRCODEGEN_SRC_DIR"
  extract "$CACHE/src/$QRCODEGEN_TARBALL" "$QRCODEGEN_SRC_DIR"
  [[ -f $QRCODEGEN_SRC_DIR/cpp/qrcodegen.cpp ]] || die "$QRCODEGEN_TARBALL has no cpp/qrcodegen.cpp"
  say "qrcodegen $QRCODEGEN_VERSION sources in $QRCODEGEN_SRC_DIR"
fi

if [[ ! -f $CRYPTOPP_WASM_DIR/lib/libcryptopp.a ]]; then
  fetch_tarballs
  work=$(mktemp -d "$CACHE/.cryptopp-build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  tar -xzf "$CACHE/src/$CRYPTOPP_TARBALL" -C "$work" --no-same-owner
  srcdir=$(find "$work" -mindepth 1 -maxdepth 2 -name GNUmakefile-cross -printf '%h\n' | head -n1)
  [[ -n $srcdir ]] || die "$CRYPTOPP_TARBALL has no GNUmakefile-cross"
  say "building Crypto++ $CRYPTOPP_VERSION for wasm ($CRYPTOPP_WASM_FLAGS), a few minutes, once"
  start=$SECONDS
  (cd "$srcdir" && emmake make -f GNUmakefile-cross -j"$JOBS" static \
     CXX=em++ AR=emar RANLIB=emranlib CXXFLAGS="$CRYPTOPP_WASM_FLAGS" >"$work/build.log" 2>&1 &&
   for o in $CRYPTOPP_WASM_OZ_OBJECTS; do
     echo "em++ ${CRYPTOPP_WASM_FLAGS/-O3/-Oz} -c $o.cpp; emar r libcryptopp.a $o.o" >>"$work/build.log"
     em++ ${CRYPTOPP_WASM_FLAGS/-O3/-Oz} -c "$o.cpp" -o "$o.o" >>"$work/build.log" 2>&1 &&
       emar r libcryptopp.a "$o.o" >>"$work/build.log" 2>&1 || exit 1
   done) || {
    tail -n 40 "$work/build.log" >&2
    die "Crypto++ wasm build failed (log above)"
  }
  out=$work/out
  mkdir -p "$out/include/cryptopp" "$out/lib"
  cp "$srcdir"/*.h "$out/include/cryptopp/"
  cp "$srcdir/libcryptopp.a" "$out/lib/"
  cp "$work/build.log" "$out/build.log"
  printf 'version=%s\nflags=%s\nemscripten=%s\n-Oz objects=%s\n' \
    "$CRYPTOPP_VERSION" "$CRYPTOPP_WASM_FLAGS" "$EMSDK_VERSION" "$CRYPTOPP_WASM_OZ_OBJECTS" >"$out/BUILD-INFO"
  rm -rf "$CRYPTOPP_WASM_DIR"
  mv "$out" "$CRYPTOPP_WASM_DIR"
  say "Crypto++ wasm built in $((SECONDS - start)) s: $CRYPTOPP_WASM_DIR"
fi

# ---------------------------------------------------------------------------------------------------
# 4. npm packages (pinned by package-lock.json; never downloads browsers: Debian's chromium is used)
# ---------------------------------------------------------------------------------------------------
if [[ -f $ROOT/package-lock.json ]]; then
  stamp=$ROOT/node_modules/.paywasm-lock.sha256
  lock_sum=$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)
  if [[ ! -f $stamp || $(<"$stamp") != "$lock_sum" ]]; then
    say "npm ci (package-lock.json changed or node_modules missing)"
    (cd "$ROOT" && npm ci --ignore-scripts --no-audit --no-fund)
    printf '%s\n' "$lock_sum" >"$stamp"
  fi
fi

# ---------------------------------------------------------------------------------------------------
# Paths for CMake (rewritten only when they change, so make does not reconfigure for nothing)
# ---------------------------------------------------------------------------------------------------
env_file=${PAYWASM_DEPS_ENV:-$ROOT/build/deps.env}
mkdir -p "$(dirname "$env_file")"
printf 'PAYWASM_CRYPTOPP_WASM_DIR=%s\nPAYWASM_QRCODEGEN_SRC_DIR=%s\n' \
  "$CRYPTOPP_WASM_DIR" "$QRCODEGEN_SRC_DIR" >"$env_file.tmp"
if cmp -s "$env_file.tmp" "$env_file"; then
  rm -f "$env_file.tmp"
else
  mv "$env_file.tmp" "$env_file"
fi
cat "$env_file"
