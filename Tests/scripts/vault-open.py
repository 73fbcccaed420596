#!/usr/bin/python3
"""Opens a lomme-vault file with PyNaCl, written from docs/FORMAT.md alone (no code of
lomme-vault). Version 1: Argon2id13 over the passphrase is the vault key. Version 2: the
passphrase slot's Argon2id13 output unwraps the file key (XChaCha20-Poly1305 with the
slot's associated data), which is the vault key. Then: crypto_kdf subkeys (context
"lommevlt", 1 = AEAD, 2 = key check), the keyed BLAKE2b key check, and the body's
XChaCha20-Poly1305-IETF with the header up to and including the check as associated data.

    vault-open.py VAULT PASSPHRASE_FILE [--ad none]    prints the plaintext
Exit 4 when the passphrase opens nothing, 5 when the check or the body does not authenticate."""
import struct
import sys

import nacl.bindings as b
import nacl.exceptions
import nacl.hash
import nacl.encoding

vault = open(sys.argv[1], "rb").read()
phrase = open(sys.argv[2], "rb").read().rstrip(b"\n")
no_ad = sys.argv[3:] == ["--ad", "none"]
assert vault[:8] == b"LOMMEVLT" and vault[8] in (1, 2), "magic, version 1 or 2"


def argon2id(salt, ops, mem):
    return b.crypto_pwhash_alg(32, phrase, salt, ops, mem, b.crypto_pwhash_ALG_ARGON2ID13)


def blake2b(data, key):
    return nacl.hash.blake2b(data, digest_size=32, key=key, encoder=nacl.encoding.RawEncoder)


if vault[8] == 1:
    assert vault[9] == 1, "KDF 1"
    ops, mem = struct.unpack("<IQ", vault[12:24])
    salt, nonce = vault[24:40], vault[40:64]
    key = argon2id(salt, ops, mem)
    checked_end, body_start = 64, 96
else:
    assert vault[9] == 0, "flags 0"
    salt, nonce = vault[10:26], vault[26:50]
    (public_length,) = struct.unpack("<H", vault[50:52])
    checked_end = 52 + public_length
    at = checked_end + 32
    count, at = vault[at], at + 1
    key = None
    for _ in range(count):
        kind, slot_id = vault[at], vault[at + 1]
        created, _last_used, length = struct.unpack("<QQH", vault[at + 2:at + 20])
        body = vault[at + 20:at + 20 + length]
        at += 20 + length
        if kind != 1 or key is not None:
            continue
        parameters, slot_nonce, wrapped = body[:-72], body[-72:-48], body[-48:]
        ops, mem = struct.unpack("<IQ", parameters[1:13])
        kek = argon2id(parameters[13:29], ops, mem)
        ad = b"lomme-vault slot v2\x00" + salt + bytes([kind, slot_id]) + struct.pack("<Q", created) + parameters + slot_nonce
        try:
            key = b.crypto_aead_xchacha20poly1305_ietf_decrypt(wrapped, ad, slot_nonce, kek)
        except nacl.exceptions.CryptoError:
            pass
    if key is None:
        sys.exit(4)
    body_start = at


def subkey(number):
    # crypto_kdf_derive_from_key: BLAKE2b keyed by the vault key, salt = id (LE u64)
    # padded to 16 bytes, personal = the 8-byte context padded to 16 bytes.
    return nacl.hash.blake2b(b"", digest_size=32, key=key, salt=struct.pack("<Q", number) + bytes(8),
                             person=b"lommevlt" + bytes(8), encoder=nacl.encoding.RawEncoder)


if blake2b(vault[:checked_end], subkey(2)) != vault[checked_end:checked_end + 32]:
    sys.exit(4 if vault[8] == 1 else 5)
associated = vault[:checked_end + 32]
try:
    plain = b.crypto_aead_xchacha20poly1305_ietf_decrypt(vault[body_start:], None if no_ad else associated, nonce, subkey(1))
except nacl.exceptions.CryptoError:
    sys.exit(5)
sys.stdout.buffer.write(plain)
