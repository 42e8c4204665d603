#!/usr/bin/env bash
# Downloads the two header-only libraries the build needs, CLI11 and nlohmann/json, as Debian
# packages and unpacks them into .deps/ (git-ignored), for a machine where they cannot be
# installed (no root, or a GPU machine without network access: run this where there is network,
# then copy .deps/ along with the tree). CMakeLists.txt looks in .deps/usr by itself.
#   bash scripts/fetch_deps.sh
# Needs apt-get (its package lists: 'apt-get update' once) and dpkg-deb. Nothing is compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
chmod a+rwx "$tmp"  # apt-get download writes as the _apt user where it can
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download libcli11-dev nlohmann-json3-dev >/dev/null)
rm -rf .deps
mkdir -p .deps
for deb in "$tmp"/*.deb; do
  dpkg-deb -x "$deb" .deps
  basename "$deb" >> .deps/PACKAGES
done
[ -f .deps/usr/include/CLI/CLI.hpp ] && [ -f .deps/usr/include/nlohmann/json.hpp ] ||
  { echo "fetch_deps.sh: unexpected package layout" >&2; exit 1; }
echo "fetch_deps.sh: $(tr '\n' ' ' < .deps/PACKAGES)unpacked into .deps/"
