#!/usr/bin/python3
"""A real OAuth 2.0 authorization server for lomme-vault's tests, built on Authlib; also
the engine of examples/sandbox-bank, the README tour's pretend bank.

POST /token     Authlib's AuthorizationServer with its ClientCredentialsGrant; clients
                authenticate with HTTP Basic only (client_secret_basic).
GET  /accounts/ a bank-shaped accounts API protected by Authlib's ResourceProtector
                (Bearer tokens, checked by Authlib's own BearerTokenValidator rules:
                unknown, expired or revoked tokens are refused), which also wants the
                header customerId to equal the configured customer.
GET  /stats     {"token_requests": n, "accounts_requests": n}: what the tests count.
POST /revoke-all  revokes every token issued so far (a bank that forgot its tokens).
POST /renew-secret  {"client_id": …, "client_secret": …}: the client's secret becomes this
                one; the old one is refused from then on (the bank's "order a new secret").
POST /broken/KIND  token endpoints that misbehave on purpose: 500, malformed, no-token,
                html, slow, huge, mac (a non-Bearer token type).

Configuration is one JSON object on standard input:
  {"lifetime": 3600,
   "clients": [{"client_id": "...", "client_secret": "...", "grant_types": ["client_credentials"]}],
   "customer_id": "01010112345",
   "accounts": [{...}, ...],
   "tls": false,        (true: https with a self-signed certificate no client trusts)
   "port": 0}           (0: a free port)
It binds 127.0.0.1, prints "PORT <n>" on stdout and serves until killed, its parent goes
away, or --max-seconds (600; 0: no limit) have passed.

Client authentication: RFC 6749 §2.3.1 says the client id and secret are each
form-urlencoded before they go into the Basic header. Authlib decodes them from 1.3 on
(authlib.oauth2.rfc6749.util.extract_basic_authorization applies urllib.parse.unquote);
Debian 12 ships Authlib 1.2.0, which does not. When the installed Authlib does not
decode, this server registers a client_secret_basic method that does exactly what newer
Authlib does (extract, unquote each part, then Authlib's own client checks), through
Authlib's documented register_client_auth_method. Everything else is Authlib's.
"""

import base64
import json
import os
import signal
import sys
import threading
import time
from urllib.parse import unquote

# The tests talk plain http on 127.0.0.1, which Authlib refuses unless told otherwise.
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

from flask import Flask, Response, jsonify, request
from werkzeug.serving import make_server

from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector, current_token
from authlib.oauth2.rfc6749 import ClientMixin, TokenMixin
from authlib.oauth2.rfc6749 import grants
from authlib.oauth2.rfc6749.util import extract_basic_authorization
from authlib.oauth2.rfc6750 import BearerTokenValidator
from authlib.oauth2.rfc6749 import authenticate_client as authlib_client_auth

settings = json.load(sys.stdin)
lifetime = int(settings.get("lifetime", 3600))
customer_id = settings.get("customer_id", "")
accounts = settings.get("accounts", [])

counts = {"token_requests": 0, "accounts_requests": 0}
counts_lock = threading.Lock()


class Client(ClientMixin):
    def __init__(self, client_id, client_secret, grant_types):
        self.client_id = client_id
        self.client_secret = client_secret
        self.grant_types = grant_types

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        return ""

    def check_redirect_uri(self, redirect_uri):
        return False

    def has_client_secret(self):
        return True

    def check_client_secret(self, client_secret):
        return client_secret == self.client_secret

    def check_endpoint_auth_method(self, method, endpoint):
        return method == "client_secret_basic"

    def check_response_type(self, response_type):
        return False

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


class Token(TokenMixin):
    def __init__(self, client_id, access_token, expires_in):
        self.client_id = client_id
        self.access_token = access_token
        self.expires_in = expires_in
        self.issued_at = time.time()
        self.revoked = False

    def check_client(self, client):
        return client.get_client_id() == self.client_id

    def get_scope(self):
        return ""

    def get_expires_in(self):
        return self.expires_in

    def is_expired(self):
        return time.time() >= self.issued_at + self.expires_in

    def is_revoked(self):
        return self.revoked


clients = {
    c["client_id"]: Client(c["client_id"], c["client_secret"], c.get("grant_types", ["client_credentials"]))
    for c in settings["clients"]
}
tokens = {}


def query_client(client_id):
    return clients.get(client_id)


def save_token(token, oauth_request):
    client = oauth_request.client
    tokens[token["access_token"]] = Token(client.get_client_id(), token["access_token"], token["expires_in"])


app = Flask(__name__)
app.config["OAUTH2_TOKEN_EXPIRES_IN"] = {"client_credentials": lifetime}
server = AuthorizationServer(app, query_client=query_client, save_token=save_token)
server.register_grant(grants.ClientCredentialsGrant)


def authlib_decodes_basic():
    probe = base64.b64encode(b"id%41:secret%41").decode()
    user, password = extract_basic_authorization({"Authorization": "Basic " + probe})
    return user == "idA" and password == "secretA"


def client_secret_basic_rfc6749(query, oauth_request):
    """Authlib >= 1.3's client_secret_basic: extract, unquote each part, check."""
    client_id, client_secret = extract_basic_authorization(oauth_request.headers)
    if client_id and client_secret:
        client_id, client_secret = unquote(client_id), unquote(client_secret)
        client = authlib_client_auth._validate_client(query, client_id, oauth_request.state, 401)
        if client.check_client_secret(client_secret):
            return client
    return None


if not authlib_decodes_basic():
    server.register_client_auth_method("client_secret_basic", client_secret_basic_rfc6749)


class Validator(BearerTokenValidator):
    def authenticate_token(self, token_string):
        return tokens.get(token_string)


require_oauth = ResourceProtector()
require_oauth.register_token_validator(Validator())


@app.route("/token", methods=["POST"])
def issue_token():
    with counts_lock:
        counts["token_requests"] += 1
    return server.create_token_response()


@app.route("/accounts/", methods=["GET"])
@require_oauth()
def list_accounts():
    with counts_lock:
        counts["accounts_requests"] += 1
    if request.headers.get("customerId") != customer_id:
        return jsonify({"errorType": "Forbidden", "errorMessage": "customerId does not match"}), 403
    return jsonify({"availableItems": len(accounts), "items": accounts})


@app.route("/revoke-all", methods=["POST"])
def revoke_all():
    for token in tokens.values():
        token.revoked = True
    return jsonify({"revoked": len(tokens)})


@app.route("/renew-secret", methods=["POST"])
def renew_secret():
    """The bank's "order a new secret": the client's old secret stops working at once.
    Body: {"client_id": "...", "client_secret": "the new one"} (never in the URL)."""
    body = request.get_json(force=True)
    client = clients.get(body.get("client_id"))
    if client is None or not body.get("client_secret"):
        return jsonify({"error": "unknown client"}), 404
    client.client_secret = body["client_secret"]
    return jsonify({"renewed": client.client_id})


@app.route("/stats", methods=["GET"])
def stats():
    with counts_lock:
        return jsonify(dict(counts))


@app.route("/broken/<kind>", methods=["POST"])
def broken(kind):
    with counts_lock:
        counts["token_requests"] += 1
    if kind == "500":
        return jsonify({"error": "server_error"}), 500
    if kind == "503":
        return Response("Service Unavailable", status=503, mimetype="text/plain")
    if kind == "malformed":
        return Response('{"access_token": "abc", "token_type": "Bearer", ', mimetype="application/json")
    if kind == "no-token":
        return jsonify({"token_type": "Bearer", "expires_in": 3600})
    if kind == "html":
        return Response("<html><body>Login</body></html>", mimetype="text/html")
    if kind == "mac":
        return jsonify({"access_token": "abc", "token_type": "mac", "expires_in": 3600})
    if kind == "string-expiry":
        return jsonify({"access_token": "abc", "token_type": "Bearer", "expires_in": "3600"})
    if kind == "huge":
        return jsonify({"access_token": "a" * 100000, "token_type": "Bearer", "expires_in": 3600})
    if kind == "slow":
        time.sleep(5)
        return jsonify({"access_token": "late", "token_type": "Bearer", "expires_in": 3600})
    return Response("no such kind", status=404)


# A parent's blocked signal mask is inherited (test runners block SIGTERM in their
# threads); unblock it so the test can stop this server. And never outlive the test:
# exit when the parent goes away, or after --max-seconds (600) whatever happens.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
parent = os.getppid()
max_seconds = int(sys.argv[sys.argv.index("--max-seconds") + 1]) if "--max-seconds" in sys.argv else 600
deadline = time.time() + max_seconds if max_seconds > 0 else float("inf")


def watchdog():
    while os.getppid() == parent and time.time() < deadline:
        time.sleep(0.5)
    os._exit(0)


threading.Thread(target=watchdog, daemon=True).start()

def self_signed_context():
    """An https context with a fresh self-signed certificate for 127.0.0.1, which no
    client trusts: for testing that the client verifies certificates."""
    import datetime
    import ipaddress
    import ssl
    import tempfile
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .sign(key, hashes.SHA256()))
    directory = tempfile.mkdtemp()
    with open(directory + "/cert.pem", "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(directory + "/key.pem", "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(directory + "/cert.pem", directory + "/key.pem")
    os.remove(directory + "/key.pem")
    return context


try:
    http = make_server("127.0.0.1", int(settings.get("port", 0)), app, threaded=True,
                       ssl_context=self_signed_context() if settings.get("tls") else None)
except OSError as error:
    sys.exit("cannot listen on 127.0.0.1:%s: %s" % (settings.get("port", 0), error.strerror))
print("PORT %d" % http.server_port, flush=True)
http.serve_forever()
