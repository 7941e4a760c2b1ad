#!/usr/bin/env bash
# Installs what this machine lacks to run the stack and the tests: Debian
# packages (as root, with apt-get) and the npm packages. Safe to run again:
# it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "setup: $*"; }

packages=()
for pkg in redis-server docker.io busybox-static docker-registry apache2-utils openssl chromium nginx-light mmdebstrap docker-compose prometheus haproxy; do
  dpkg -s "$pkg" >/dev/null 2>&1 || packages+=("$pkg")
done
if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    say "missing Debian packages: ${packages[*]}; install them as root: apt-get install -y ${packages[*]}"
    exit 1
  fi
  say "installing ${packages[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${packages[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages"
  # The lock file lists every platform's optional binaries, so npm ci works; npm install mends a lock edited by hand.
  npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error
fi
# npm scripts run on the Node the project pins (the `node` dev dependency), whatever the machine's own is.
say "ready: npm scripts run on node $(npm exec --offline -- node --version) (the machine's own node is $(command -v node >/dev/null && node --version || echo missing))"
