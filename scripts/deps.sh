#!/usr/bin/env bash
# Installs what building and testing need, on a fresh Debian machine: the
# CUnit and zlib headers, pkg-config, clang with its runtime (ASan/libFuzzer)
# and Debian's VisualVM (its heap library is the independent reader the
# integration tests open our files with), python3 (the text heap dump
# checker and test_convert's gzip check), gdb (the stress suite saves a
# frozen JVM's stacks with it), time (/usr/bin/time: test_convert checks the
# converter's peak memory), and groff-base and man-db (the install test
# renders the man pages), chromium (Debian's: the report page's browser
# tests run it headless; no browser is ever downloaded) and, when `node` or
# `npm` is missing, Debian's nodejs and npm; then the browser tests' harness
# (tests/report: playwright-core, pinned by its package-lock.json) is
# installed with `npm ci` into tests/report/node_modules, again only when
# missing or when the lock file changed.
# Only missing packages are installed; `apt-get update` runs once, and only
# when something is missing.
set -euo pipefail

need=()
for pkg in libcunit1-dev zlib1g-dev pkg-config clang libclang-rt-14-dev visualvm python3 gdb time groff-base man-db chromium; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
# node and npm may come from elsewhere than Debian (a newer Node.js): only
# when a command is missing
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)

# the report page's test harness: npm ci when the lock file is newer than
# what is installed (a stamp holds the lock's checksum)
report_harness() {
  local dir stamp sum
  dir="$(cd "$(dirname "$0")/.." && pwd)/tests/report"
  stamp="$dir/node_modules/.hprof-lock.sha256"
  sum=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
    return 0
  fi
  echo "deps: npm ci in tests/report (playwright-core, no browser download)"
  (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent >/dev/null)
  echo "$sum" >"$stamp"
}

if [ ${#need[@]} -eq 0 ]; then
  report_harness
  echo "deps: all present"
  exit 0
fi
echo "deps: installing ${need[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "HPROF ERROR: need root or sudo to install: ${need[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "deps: installed ${need[*]}"
report_harness
