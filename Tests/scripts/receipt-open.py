#!/usr/bin/python3
"""Opens a receipt made by the built binary with PyNaCl, written from docs/FORMAT.md
("Receipt") alone: the parent's issuer key and record from its vault, the child's
receiving key from the child's vault (both opened by vault-open.py), the receipt's Base45
decoded here, the box opened with crypto_box_open_easy from the child's key to the X25519
form of the parent's Ed25519 secret key. Prints "ok CREDENTIAL" when it opens and names
the credential the parent's record holds for the code; exits 1 otherwise.

    receipt-open.py PARENT_VAULT PARENT_PW CHILD_VAULT CHILD_PW RECEIPT_TEXT"""
import json
import os
import subprocess
import sys

import nacl.bindings as b

here = os.path.dirname(os.path.abspath(__file__))
parent_vault, parent_pw, child_vault, child_pw, text = sys.argv[1:6]


def plaintext(vault, pw):
    out = subprocess.run([sys.executable, os.path.join(here, "vault-open.py"), vault, pw], capture_output=True, check=True).stdout
    return json.loads(out)


ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"


def base45(data):
    out = bytearray()
    for i in range(0, len(data), 3):
        chunk = [ALPHABET.index(c) for c in data[i:i + 3]]
        n = sum(v * 45 ** k for k, v in enumerate(chunk))
        out += n.to_bytes(2 if len(chunk) == 3 else 1, "big")
    return bytes(out)


parent, child = plaintext(parent_vault, parent_pw), plaintext(child_vault, child_pw)
assert text.startswith("LR1:"), text
# No strip: Base45's alphabet holds the space, and one in 43 receipts begins with it.
raw = base45(text[4:])
assert len(raw) == 57 and raw[0] == 1, len(raw)
nonce, box = raw[1:25], raw[25:]
code_id = nonce[:16].hex()
secret = b.crypto_sign_ed25519_sk_to_curve25519(bytes.fromhex(parent["device"]["signing"]["secret"]))
# crypto_box_easy puts the MAC first, as PyNaCl's crypto_box_open takes it.
credential = b.crypto_box_open(box, nonce, bytes.fromhex(child["device"]["receiving"]["public"]), secret)
records = [r for r in parent["household"]["issued"] if r["id"] == code_id]
assert records, "the parent's record has no code " + code_id
assert records[0]["credential"] == credential.hex(), (records[0]["credential"], credential.hex())
print("ok", credential.hex())
