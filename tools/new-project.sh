#!/usr/bin/env bash
# Scaffolds one Nx project: tools/new-project.sh <apps|libs> <name> <tags,comma,separated>
set -euo pipefail
kind=$1 name=$2 tags=$3
root="$kind/$name"
mkdir -p "$root/src"
tagjson=$(printf '%s' "$tags" | awk -F, '{for(i=1;i<=NF;i++){printf "%s\"%s\"", (i>1?", ":""), $i}}')
cat > "$root/project.json" <<JSON
{
  "name": "$name",
  "\$schema": "../../node_modules/nx/schemas/project-schema.json",
  "sourceRoot": "$root/src",
  "projectType": "$([ "$kind" = apps ] && echo application || echo library)",
  "tags": [$tagjson],
  "targets": {
    "lint": { "command": "eslint {projectRoot}" },
    "typecheck": { "command": "tsc -p {projectRoot}/tsconfig.json" },
    "test": { "command": "jest -c {projectRoot}/jest.config.cjs --passWithNoTests --json --outputFile=tmp/test-results/{projectName}.json" }
  }
}
JSON
cat > "$root/tsconfig.json" <<JSON
{
  "extends": "../../tsconfig.base.json",
  "include": ["src/**/*.ts", "test/**/*.ts", "bench/**/*.ts"]
}
JSON
cat > "$root/jest.config.cjs" <<JSON
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: '$name',
  rootDir: __dirname,
};
JSON
[ -f "$root/src/index.ts" ] || [ "$kind" = apps ] || echo "export {};" > "$root/src/index.ts"
[ "$kind" = libs ] || [ -f "$root/src/main.ts" ] || echo "export {};" > "$root/src/main.ts"
