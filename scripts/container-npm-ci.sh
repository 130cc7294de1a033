#!/bin/sh
# npm ci for the container image's build stage (Containerfile), keeping better-sqlite3's compiled
# driver between builds in the directory given (a build cache mount). Compiling SQLite is most of
# an image build; a rebuild of the same better-sqlite3 for the same Node.js on the same system
# copies the driver compiled last time instead. Every other install script runs as npm ci runs it.
#
# Usage: scripts/container-npm-ci.sh CACHE_DIR   (in the directory holding package-lock.json)
set -eu
cache=$1
mkdir -p "$cache"

# node-gyp compiles against the headers of the Node.js that runs it (the prefix it is installed
# under), never ones downloaded from nodejs.org.
npm_config_nodedir="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
export npm_config_nodedir

npm ci --prefer-offline --ignore-scripts

# The packages with install scripts, one name a line.
scripted=$(npm query ':attr(scripts, [preinstall]), :attr(scripts, [install]), :attr(scripts, [postinstall])' |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log([...new Set(JSON.parse(s).map((p) => p.name))].join("\n")))')
others=$(printf '%s\n' "$scripted" | grep -vx better-sqlite3 || true)

# What the driver depends on: its own version, Node.js's exact version and architecture, the C
# library and the Debian release it was compiled on.
version=$(node -p 'require("./node_modules/better-sqlite3/package.json").version')
system="$(getconf GNU_LIBC_VERSION | tr ' ' '-')-debian-$(cat /etc/debian_version 2>/dev/null | tr '/' '-')"
addon="$cache/better-sqlite3-$version-node-$(node -p 'process.version + "-" + process.arch')-$system.node"
target=node_modules/better-sqlite3/build/Release/better_sqlite3.node

if [ -f "$addon" ]; then
  echo "better-sqlite3 $version: driver compiled by an earlier build taken from the cache ($(basename "$addon"))"
  mkdir -p "$(dirname "$target")"
  cp "$addon" "$target"
  # shellcheck disable=SC2086 # one package name a word
  [ -z "$others" ] || npm rebuild --foreground-scripts $others
else
  # shellcheck disable=SC2086
  npm rebuild --foreground-scripts $scripted
  cp "$target" "$addon.partial"
  mv "$addon.partial" "$addon"
fi
# Whichever way it came, the driver loads and answers.
node -e 'const Database = require("better-sqlite3"); new Database(":memory:").prepare("select 1").get()'
