#!/usr/bin/python3
"""Makes a receipt with PyNaCl, written from docs/CODES.md ("Receipt") alone: as the child's
device would, from the child's receiving key (its vault opened by vault-open.py) to the
X25519 form of the parent's issuer key (the parent's vault), for the code CODE_ID (32 hex
digits), naming CREDENTIAL (32 hex digits) — any credential, which the binary's own
`receipt` never does: a test's way to a receipt that is right in everything but that.
Prints the receipt's text.

    receipt-make.py PARENT_VAULT PARENT_PW CHILD_VAULT CHILD_PW CODE_ID CREDENTIAL"""
import json
import os
import subprocess
import sys

import nacl.bindings as b
from nacl.public import Box, PrivateKey, PublicKey

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "fixtures"))
from codes import base45  # noqa: E402  (fixtures/codes.py)

parent_vault, parent_pw, child_vault, child_pw, code_id, credential = sys.argv[1:7]


def plaintext(vault, pw):
    out = subprocess.run([sys.executable, os.path.join(here, "vault-open.py"), vault, pw], capture_output=True, check=True).stdout
    return json.loads(out)


parent, child = plaintext(parent_vault, parent_pw), plaintext(child_vault, child_pw)
code_id, credential = bytes.fromhex(code_id), bytes.fromhex(credential)
assert len(code_id) == 16 and len(credential) == 16
nonce = code_id + os.urandom(8)
issuer = PublicKey(b.crypto_sign_ed25519_pk_to_curve25519(bytes.fromhex(parent["device"]["signing"]["public"])))
device = PrivateKey(bytes.fromhex(child["device"]["receiving"]["secret"]))
box = Box(device, issuer).encrypt(credential, nonce).ciphertext
print("LR1:" + base45(bytes([1]) + nonce + box))
