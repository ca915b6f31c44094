// src/core/sha.hpp — SHA-1 and SHA-256 (FIPS 180-4) for the core's encryption paddings and key
// fingerprints. Internal; not part of the public API.
//
// The compression functions are Crypto++'s (SHA1::Transform, SHA256::Transform: static functions of
// sha.o); the rest is done here: the message in 64-byte blocks read as big-endian words (FIPS 180-4
// 3.1, 5.2.1) and the padding with the message length in bits (5.1.1). Crypto++'s hash classes
// (HashTransformation, IteratedHash and their templates) bring vtables, RTTI names,
// Clone/AlgorithmName/Verify/truncation methods and their exceptions, none of which the core uses:
// in the widget's wasm that was some 5 KB of code and 1.7 KB of data beside the two compression
// functions. tests/unit/test_sha.cpp checks this against FIPS 180 known answers and against
// Crypto++'s SHA1/SHA256 classes (native and wasm).
#pragma once

#include <cstddef>
#include <cstdint>

namespace paywasm::detail {

enum class ShaKind : unsigned char { sha1, sha256 };

class Sha {
public:
    static constexpr std::size_t kMaxDigest = 32;

    explicit Sha(ShaKind kind) : kind_(kind) { restart(); }
    ~Sha();  // wipes the state and the buffered block (they may hold an OAEP seed's hash)
    Sha(const Sha&) = delete;
    Sha& operator=(const Sha&) = delete;

    std::size_t digest_size() const { return kind_ == ShaKind::sha1 ? 20 : 32; }
    void update(const unsigned char* data, std::size_t n);
    // Writes the digest (digest_size() bytes) of everything updated since the construction or the
    // last final(), and starts over.
    void final(unsigned char* digest);

private:
    void restart();
    void compress();  // block_ (64 bytes, full) into state_

    ShaKind kind_;
    std::uint32_t state_[8];
    unsigned char block_[64];
    std::size_t used_;       // bytes of block_ filled
    std::uint64_t length_;   // bytes updated since restart()
};

}  // namespace paywasm::detail
