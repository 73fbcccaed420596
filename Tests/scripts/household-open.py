#!/usr/bin/python3
"""Opens a lomme-vault household file (a journal or a hand-over) from docs/SYNC.md alone,
with PyNaCl (Debian's python3-nacl): finds the stanza of the recipient's key id, opens the
sealed file key with the recipient's X25519 secret key, decrypts the body
(XChaCha20-Poly1305, the header and nonce as associated data), checks the writer's Ed25519
signature over the domain, the header and the body, and prints
`{"kind": …, "writer": HEX, "recipients": [HEX…], "body": {…}}`. Exit 1 on anything wrong.

    household-open.py FILE RECEIVING_PUBLIC_HEX RECEIVING_SECRET_HEX"""
import base64
import hashlib
import json
import sys
import nacl.bindings as b
from nacl.public import PrivateKey, SealedBox
from nacl.signing import VerifyKey

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"


def unbase45(text):
    values = [ALPHABET.index(c) for c in text]
    out = b""
    for i in range(0, len(values), 3):
        chunk = values[i:i + 3]
        n = sum(v * 45 ** k for k, v in enumerate(chunk))
        out += n.to_bytes(2 if len(chunk) == 3 else 1, "big")
    return out


def main():
    path, public_hex, secret_hex = sys.argv[1:4]
    data = open(path, "rb").read()
    if data.startswith(b"LVH1:"):
        data = unbase45(data[5:].decode().strip())
    if data[:4] != b"LVHF" or data[4] != 1:
        sys.exit("not a household file of format 1")
    kind, count = data[5], data[6]
    stanzas, position = [], 7
    for _ in range(count):
        stanzas.append((data[position:position + 8], data[position + 8:position + 88]))
        position += 88
    header, nonce = data[:position], data[position:position + 24]
    public = bytes.fromhex(public_hex)
    mine = hashlib.blake2b(public, digest_size=32).digest()[:8]
    sealed = next((box for key_id, box in stanzas if key_id == mine), None)
    if sealed is None:
        sys.exit("not sealed to this key")
    file_key = SealedBox(PrivateKey(bytes.fromhex(secret_hex))).decrypt(sealed)
    inner = b.crypto_aead_xchacha20poly1305_ietf_decrypt(data[position + 24:], header + nonce, nonce, file_key)
    writer, signature, body = inner[:32], inner[32:96], inner[96:]
    VerifyKey(writer).verify(b"lomme-vault household file v1\x00" + header + body, signature)
    print(json.dumps({"kind": {1: "journal", 2: "hand-over"}[kind], "writer": writer.hex(),
                      "recipients": [key_id.hex() for key_id, _ in stanzas], "body": json.loads(body)}))


if __name__ == "__main__":
    main()
