#!/usr/bin/env bash
# Installs what building and testing need, on a fresh Debian machine: the
# CUnit and zlib headers, pkg-config, clang with its runtime (ASan/libFuzzer)
# and Debian's VisualVM (its heap library is the independent reader the
# integration tests open our files with), python3 (the text heap dump
# checker and test_convert's gzip check), gdb (the stress suite saves a
# frozen JVM's stacks with it), time (/usr/bin/time: test_convert checks the
# converter's peak memory), and groff-base and man-db (the install test
# renders the man pages).
# Only missing packages are installed; `apt-get update` runs once, and only
# when something is missing.
set -euo pipefail

need=()
for pkg in libcunit1-dev zlib1g-dev pkg-config clang libclang-rt-14-dev visualvm python3 gdb time groff-base man-db; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
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
