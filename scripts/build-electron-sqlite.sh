#!/usr/bin/env bash
# Builds better-sqlite3 for Electron's ABI into resources/native/, leaving node_modules' Node
# build alone (the CLI, `arbor serve` and the tests keep using it). The Electron main process
# loads this file through better-sqlite3's `nativeBinding` option.
# Needs Electron's headers from the network: run it on a machine that can fetch them.
set -euo pipefail
cd "$(dirname "$0")/.."
electron_version=$(node -p "require('electron/package.json').version")
work=$(mktemp -d)
cp -r node_modules/better-sqlite3 "$work/"
(cd "$work/better-sqlite3" && npx --yes node-gyp rebuild --release \
  --runtime=electron --target="$electron_version" --dist-url=https://electronjs.org/headers)
mkdir -p resources/native
cp "$work/better-sqlite3/build/Release/better_sqlite3.node" resources/native/better_sqlite3-electron.node
echo "built resources/native/better_sqlite3-electron.node for Electron $electron_version"
