"""A local OAuth 2.1 authorization server for the resource-server tests, built on the Python SDK's
`mcp.server.auth` (metadata, /authorize, /token, /register, /revoke), with JWT access tokens signed by an
RSA key whose public half is served as a JWKS, and an RFC 7662 introspection endpoint for opaque tokens.

Authorization is approved at once (no user): /authorize redirects back with a code.

Test-only endpoints, to make the tokens a test needs:
  POST /test/mint    {"claims": {...}, "ttl": s, "stray": bool, "opaque": bool} -> {"token": ...}
                     (claims override the defaults; stray signs with a key not in the JWKS but with
                     the current kid; opaque makes an introspectable random token)
  POST /test/rotate  -> {"kid": ...}: a new signing key; the JWKS then holds only the new one
  POST /test/exchange  RFC 8693 token exchange (form: subject_token, audience, ...; client gw:gw-secret
                     by HTTP Basic): a token for `audience` with the subject token's sub and scope and
                     `act: {"sub": "gw"}`, valid 600 s
  GET  /test/exchanges -> {"<sub>": n}: how many exchanges each subject had

Usage: oauth_as.py PORT   (prints "ready" once listening)
"""
import base64
from contextlib import asynccontextmanager
import json
import secrets
import sys
import time

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp.server.auth.provider import AuthorizationCode, construct_redirect_uri
from mcp.server.auth.routes import build_metadata, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

PORT = int(sys.argv[1])
ISSUER = f"http://127.0.0.1:{PORT}"
# The issuer identifier as the SDK's metadata spells it (pydantic adds the trailing slash); tokens carry it.
ISSUER_ID = str(AnyHttpUrl(ISSUER))
SCOPES = ["files:read", "files:write"]


def b64(n: int) -> str:
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Keys:
    def __init__(self):
        self.rotate()

    def rotate(self):
        self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = secrets.token_hex(8)

    def jwks(self):
        pub = self.private.public_key().public_numbers()
        return {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid,
                          "n": b64(pub.n), "e": b64(pub.e)}]}

    def sign(self, claims, stray=False):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048) if stray else self.private
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": self.kid, "typ": "at+jwt"})


KEYS = Keys()
OPAQUE: dict[str, dict] = {}


def claims_for(sub, client_id, scopes, resource, ttl=600):
    now = int(time.time())
    return {"iss": ISSUER_ID, "sub": sub, "aud": resource, "client_id": client_id,
            "scope": " ".join(scopes), "iat": now, "exp": now + ttl, "jti": secrets.token_hex(8)}


class Provider:
    """An in-memory provider that approves every authorization request at once."""

    def __init__(self):
        self.clients = {}
        self.codes = {}

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params):
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300,
            client_id=client.client_id, code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource, subject="user-1")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client, authorization_code):
        self.codes.pop(authorization_code.code, None)
        c = claims_for(authorization_code.subject, client.client_id, authorization_code.scopes,
                       authorization_code.resource or ISSUER)
        return OAuthToken(access_token=KEYS.sign(c), token_type="Bearer", expires_in=600,
                          scope=" ".join(authorization_code.scopes))

    async def load_refresh_token(self, client, refresh_token):
        return None

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        raise NotImplementedError

    async def load_access_token(self, token):
        return None

    async def revoke_token(self, token):
        OPAQUE.pop(getattr(token, "token", ""), None)


async def jwks(request: Request):
    return JSONResponse(KEYS.jwks())


async def introspect(request: Request):
    form = await request.form()
    c = OPAQUE.get(str(form.get("token", "")))
    if c is None or c["exp"] < time.time():
        return JSONResponse({"active": False})
    return JSONResponse({"active": True, "token_type": "Bearer", **c})


async def mint(request: Request):
    body = await request.json()
    c = claims_for("user-1", "test-client", SCOPES, "http://unset", body.get("ttl", 600))
    c.update(body.get("claims", {}))
    c = {k: v for k, v in c.items() if v is not None}
    if body.get("opaque"):
        token = secrets.token_urlsafe(32)
        OPAQUE[token] = c
        return JSONResponse({"token": token})
    return JSONResponse({"token": KEYS.sign(c, stray=body.get("stray", False))})


EXCHANGES: dict[str, int] = {}


async def exchange(request: Request):
    if request.headers.get("authorization") != "Basic " + base64.b64encode(b"gw:gw-secret").decode():
        return JSONResponse({"error": "invalid_client"}, status_code=401)
    form = await request.form()
    if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange":
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
    try:
        subject = jwt.decode(str(form.get("subject_token", "")), KEYS.private.public_key(),
                             algorithms=["RS256"], options={"verify_aud": False})
    except jwt.PyJWTError as e:
        return JSONResponse({"error": "invalid_grant", "error_description": str(e)}, status_code=400)
    audience = str(form.get("audience", ""))
    if not audience:
        return JSONResponse({"error": "invalid_target"}, status_code=400)
    EXCHANGES[subject["sub"]] = EXCHANGES.get(subject["sub"], 0) + 1
    c = claims_for(subject["sub"], "gw", subject.get("scope", "").split(), audience)
    c["act"] = {"sub": "gw"}
    return JSONResponse({"access_token": KEYS.sign(c), "issued_token_type":
                         "urn:ietf:params:oauth:token-type:access_token", "token_type": "Bearer",
                         "expires_in": 600})


async def exchanges(request: Request):
    return JSONResponse(EXCHANGES)


async def rotate(request: Request):
    KEYS.rotate()
    return JSONResponse({"kid": KEYS.kid})


registration = ClientRegistrationOptions(enabled=True, valid_scopes=SCOPES, default_scopes=SCOPES)
revocation = RevocationOptions(enabled=True)
metadata = build_metadata(AnyHttpUrl(ISSUER), None, registration, revocation)
metadata.introspection_endpoint = AnyHttpUrl(f"{ISSUER}/introspect")
metadata.scopes_supported = SCOPES


async def server_metadata(request: Request):
    # The SDK's document (its model has no `jwks_uri` field), plus where the signing keys are.
    return JSONResponse({**metadata.model_dump(mode="json", exclude_none=True), "jwks_uri": f"{ISSUER}/jwks"})


routes = [
    # Ahead of the SDK's own metadata route: the same document, plus jwks_uri and introspection.
    Route("/.well-known/oauth-authorization-server", server_metadata, methods=["GET"]),
    *create_auth_routes(Provider(), AnyHttpUrl(ISSUER), client_registration_options=registration,
                        revocation_options=revocation),
    Route("/jwks", jwks, methods=["GET"]),
    Route("/introspect", introspect, methods=["POST"]),
    Route("/test/mint", mint, methods=["POST"]),
    Route("/test/rotate", rotate, methods=["POST"]),
    Route("/test/exchange", exchange, methods=["POST"]),
    Route("/test/exchanges", exchanges, methods=["GET"]),
]

@asynccontextmanager
async def lifespan(app):
    print("ready", flush=True)
    yield


app = Starlette(routes=routes, lifespan=lifespan)

if __name__ == "__main__":
    # Keep-alive beyond any test's length: uvicorn closes a connection idle for 5 s by default, and a
    # client that sends on a pooled connection as it closes sees "Server disconnected without sending a
    # response" (the Python SDK's OAuth flow did, once, on a loaded CI host).
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning", timeout_keep_alive=300)
