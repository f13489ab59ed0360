#!/usr/bin/env bash
# Installs the OpenAPI specs the openapi tests and benchmark read, from the npm registry, under .peers/openapi
# (git-ignored; the specs are not vendored):
#   .peers/openapi/node_modules/@readme/oas-examples/{3.0,3.1}/{json,yaml}/*  (Petstore and friends)
#   .peers/openapi/node_modules/@octokit/openapi/generated/api.github.com.json  (GitHub REST, > 1,000 operations)
# Idempotent; prints nothing but errors unless something is installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
P="$root/.peers/openapi"
OAS_EXAMPLES=8.2.2
OCTOKIT_OPENAPI=23.0.2
mkdir -p "$P"
installed() {
  [ -f "$P/node_modules/$1/package.json" ] &&
    [ "$(node -p "require('$P/node_modules/$1/package.json').version" 2>/dev/null)" = "$2" ]
}
if ! installed @readme/oas-examples "$OAS_EXAMPLES" || ! installed @octokit/openapi "$OCTOKIT_OPENAPI"; then
  (cd "$P" && { [ -f package.json ] || echo '{"private":true}' > package.json; } &&
    npm install --no-fund --no-audit --ignore-scripts --loglevel=error \
      "@readme/oas-examples@$OAS_EXAMPLES" "@octokit/openapi@$OCTOKIT_OPENAPI" >&2)
fi
