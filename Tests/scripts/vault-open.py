#!/usr/bin/python3
"""Opens a lomme-vault file with PyNaCl, written from docs/FORMAT.md alone (no code of
lomme-vault): Argon2id13 over the passphrase, crypto_kdf subkeys (context "lommevlt",
1 = AEAD, 2 = key check), the keyed BLAKE2b check over bytes 0..64, and
XChaCha20-Poly1305-IETF with the whole 96-byte header as associated data.

    vault-open.py VAULT PASSPHRASE_FILE [--ad none]    prints the plaintext
Exit 4 when the key check fails, 5 when the body does not authenticate."""
import struct
import sys

import nacl.bindings as b
import nacl.exceptions
import nacl.hash
import nacl.encoding

vault = open(sys.argv[1], "rb").read()
phrase = open(sys.argv[2], "rb").read().rstrip(b"\n")
no_ad = sys.argv[3:] == ["--ad", "none"]
assert vault[:8] == b"LOMMEVLT" and vault[8] == 1 and vault[9] == 1, "magic, version 1, KDF 1"
ops, mem = struct.unpack("<IQ", vault[12:24])
salt, nonce = vault[24:40], vault[40:64]
master = b.crypto_pwhash_alg(32, phrase, salt, ops, mem, b.crypto_pwhash_ALG_ARGON2ID13)


def subkey(number):
    # crypto_kdf_derive_from_key: BLAKE2b keyed by the master key, salt = id (LE u64)
    # padded to 16 bytes, personal = the 8-byte context padded to 16 bytes.
    return nacl.hash.blake2b(b"", digest_size=32, key=master, salt=struct.pack("<Q", number) + bytes(8),
                             person=b"lommevlt" + bytes(8), encoder=nacl.encoding.RawEncoder)


check = nacl.hash.blake2b(vault[:64], digest_size=32, key=subkey(2), encoder=nacl.encoding.RawEncoder)
if check != vault[64:96]:
    sys.exit(4)
try:
    plain = b.crypto_aead_xchacha20poly1305_ietf_decrypt(vault[96:], None if no_ad else vault[:96], nonce, subkey(1))
except nacl.exceptions.CryptoError:
    sys.exit(5)
sys.stdout.buffer.write(plain)
