// Unit tests of src/core/sha.hpp: SHA-1 and SHA-256 (the padding and length written in the core
// over Crypto++'s compression functions), behind the OAEP encodings and key fingerprints. Checked
// against the FIPS 180 examples and, for every message length from 0 to 300 bytes fed whole and in
// pieces of 1, 3, 55, 63, 64 and 65 bytes, against Crypto++'s SHA1 and SHA256 classes (an
// independent framing: its IteratedHash pads and counts by itself). Runs natively and in wasm
// (unit.wasm, unit.wasm.nosimd: the core's objects as the widget links them). kat.crypto.wasm
// checks the shipped modules' OAEP ciphertexts and fingerprints against Node's own hashes.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "core/sha.hpp"

#include <cryptopp/sha.h>

using paywasm::detail::Sha;
using paywasm::detail::ShaKind;

namespace {

std::string hex(const unsigned char* bytes, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 0xf];
    }
    return out;
}

// The digest of `message` fed to `sha` in pieces of at most `piece` bytes (0: one update).
std::string ours(Sha& sha, const std::string& message, std::size_t piece = 0) {
    const auto* p = reinterpret_cast<const unsigned char*>(message.data());
    std::size_t left = message.size();
    if (piece == 0) piece = left ? left : 1;
    while (left > 0) {
        const std::size_t n = left < piece ? left : piece;
        sha.update(p, n);
        p += n;
        left -= n;
    }
    unsigned char digest[Sha::kMaxDigest];
    sha.final(digest);
    return hex(digest, sha.digest_size());
}

std::string ours(ShaKind kind, const std::string& message, std::size_t piece = 0) {
    Sha sha(kind);
    return ours(sha, message, piece);
}

template <class H>
std::string cryptopp(const std::string& message) {
    unsigned char digest[H::DIGESTSIZE];
    H().CalculateDigest(digest, reinterpret_cast<const unsigned char*>(message.data()), message.size());
    return hex(digest, sizeof digest);
}

// Deterministic bytes, NULs and high bytes included.
std::string message(std::size_t n, unsigned seed) {
    std::string s(n, '\0');
    std::uint32_t x = 0x9e3779b9u * (seed + 1);
    for (auto& c : s) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        c = static_cast<char>(x >> 24);
    }
    return s;
}

}  // namespace

TEST_CASE("SHA-1 and SHA-256 give the FIPS 180 examples") {
    const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK(ours(ShaKind::sha1, "") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    CHECK(ours(ShaKind::sha1, "abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
    CHECK(ours(ShaKind::sha1, two_blocks) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    CHECK(ours(ShaKind::sha1, std::string(1000000, 'a'), 4096) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    CHECK(ours(ShaKind::sha256, "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(ours(ShaKind::sha256, "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(ours(ShaKind::sha256, two_blocks) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(ours(ShaKind::sha256, std::string(1000000, 'a'), 4096) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-1 and SHA-256 agree with Crypto++'s hash classes on every length up to 300 bytes, in any pieces") {
    for (std::size_t n = 0; n <= 300; ++n) {
        const std::string m = message(n, static_cast<unsigned>(n));
        const std::string sha1 = cryptopp<CryptoPP::SHA1>(m);
        const std::string sha256 = cryptopp<CryptoPP::SHA256>(m);
        for (std::size_t piece : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{55},
                                  std::size_t{63}, std::size_t{64}, std::size_t{65}}) {
            INFO("length " << n << ", pieces of " << piece);
            CHECK(ours(ShaKind::sha1, m, piece) == sha1);
            CHECK(ours(ShaKind::sha256, m, piece) == sha256);
        }
    }
}

TEST_CASE("A hash starts over after final(): the next digest is of the next message alone") {
    for (ShaKind kind : {ShaKind::sha1, ShaKind::sha256}) {
        Sha sha(kind);
        for (std::size_t n : {0, 55, 56, 64, 119, 120, 200}) {
            const std::string m = message(n, 7);
            CHECK(ours(sha, m, 17) == ours(kind, m));
        }
    }
}
