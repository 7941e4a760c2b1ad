#!/usr/bin/env bash
# Runs lint, typecheck and the tests of the Nx projects a change affects (the
# project itself changed, or a project it depends on, or a workspace file), and
# builds (and pushes) the images of the affected apps. The per-service workflows
# in .github/workflows run it with --only <project>; run it locally to check a
# branch the way they will:
#   bash tools/ci/affected.sh                      # against the merge base with main, uncommitted changes included
#   bash tools/ci/affected.sh --dry-run            # only list what is affected
#   bash tools/ci/affected.sh --only gateway --images
# Options: --base REF (default: merge base with origin/main or main), --head REF
# (default: the work tree), --only P[,P...], --images (build with
# tools/images/build.ts <app>), --push (with --images: push to $IMAGE_REGISTRY/ocg/<app>:<commit> and :main),
# --dry-run. Writes affected=true|false to $GITHUB_OUTPUT when that is set.
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { echo "affected: $*"; }
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false

base='' head='' only='' images=false push=false dry=false
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --head) head=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --images) images=true; shift ;;
    --push) push=true; shift ;;
    --dry-run) dry=true; shift ;;
    *) say "unknown option $1 (see the top of $0)"; exit 2 ;;
  esac
done

image_apps=(gateway client-manager host-manager deployment-manager node-agent)

# A base that is not a commit here (the first push of a branch sends 0000…): check everything asked for.
if [ -z "$base" ]; then
  for ref in origin/main main; do
    if git rev-parse --verify --quiet "$ref^{commit}" >/dev/null; then base=$(git merge-base HEAD "$ref"); break; fi
  done
fi
if [ -n "$base" ] && git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
  range=(--base="$base")
  [ -n "$head" ] && range+=(--head="$head")
  mapfile -t affected < <(npx nx show projects --affected "${range[@]}" | sort)
  say "compared with ${base:0:12}${head:+..${head:0:12}}"
else
  say "no base commit to compare with (${base:-none}): every project counts as changed"
  mapfile -t affected < <(npx nx show projects | sort)
fi

selected=()
for p in "${affected[@]}"; do
  if [ -z "$only" ] || [[ ",$only," == *",$p,"* ]]; then selected+=("$p"); fi
done
[ -n "${GITHUB_OUTPUT:-}" ] && echo "affected=$([ ${#selected[@]} -gt 0 ] && echo true || echo false)" >>"$GITHUB_OUTPUT"
if [ ${#selected[@]} -eq 0 ]; then
  say "nothing affected${only:+ among $only}"
  exit 0
fi
say "projects: ${selected[*]}"

builds=()
if $images; then
  for p in "${selected[@]}"; do
    if [[ " ${image_apps[*]} " == *" $p "* ]]; then builds+=("$p"); fi
  done
fi
projects=$(IFS=,; echo "${selected[*]}")
if $dry; then
  say "would run: nx run-many -t lint typecheck test --projects=$projects"
  [ ${#builds[@]} -gt 0 ] && say "would build the images of: ${builds[*]}$($push && echo ' and push them')"
  exit 0
fi

# Workspace-wide and quick: formatting (Prettier) and declared dependencies (knip), as npm test runs them.
npm run -s format:check
npm run -s deps
npx tsx tools/testenv/run.ts -- npx nx run-many -t lint typecheck test --projects="$projects" --parallel=1 --outputStyle=stream

[ ${#builds[@]} -eq 0 ] && exit 0
if [ ! -f tools/images/build.ts ]; then
  say "tools/images/build.ts is missing: cannot build ${builds[*]}"
  exit 1
fi
if $push; then
  : "${IMAGE_REGISTRY:?--push needs IMAGE_REGISTRY}" "${REGISTRY_USER:?--push needs REGISTRY_USER}" "${REGISTRY_TOKEN:?--push needs REGISTRY_TOKEN}"
  registry=${IMAGE_REGISTRY,,}
  # The credentials go straight into Docker's config: docker login would need the engine running first.
  mkdir -p ~/.docker
  printf '{"auths":{"%s":{"auth":"%s"}}}\n' "${registry%%/*}" "$(printf '%s:%s' "$REGISTRY_USER" "$REGISTRY_TOKEN" | base64 -w0)" >~/.docker/config.json
  chmod 600 ~/.docker/config.json
fi
commit=$(git rev-parse HEAD)
# testenv starts dockerd when it is not running (and stops it after), as for the tests.
npx tsx tools/testenv/run.ts -- bash -c '
  set -euo pipefail
  for app in '"${builds[*]}"'; do
    npx tsx tools/images/build.ts "$app"
    if '"$push"'; then
      for tag in '"$commit"' main; do
        docker tag "ocg/$app" "'"${registry:-}"'/ocg/$app:$tag"
        docker push "'"${registry:-}"'/ocg/$app:$tag"
      done
    fi
  done'
