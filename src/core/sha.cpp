// src/core/sha.cpp — SHA-1 and SHA-256 over Crypto++'s compression functions (see sha.hpp).
#include "core/sha.hpp"

#include <cstring>

#include <cryptopp/sha.h>

namespace paywasm::detail {

Sha::~Sha() {
    volatile unsigned char* b = block_;
    for (std::size_t i = 0; i < sizeof block_; ++i) b[i] = 0;
    volatile std::uint32_t* s = state_;
    for (std::size_t i = 0; i < 8; ++i) s[i] = 0;
}

void Sha::restart() {
    if (kind_ == ShaKind::sha1)
        CryptoPP::SHA1::InitState(state_);
    else
        CryptoPP::SHA256::InitState(state_);
    used_ = 0;
    length_ = 0;
}

// Both Transform functions take the block as 16 big-endian words in host order (what Crypto++'s
// IteratedHash hands them after its ConditionalByteReverse).
void Sha::compress() {
    std::uint32_t words[16];
    for (std::size_t i = 0; i < 16; ++i) {
        const unsigned char* p = block_ + 4 * i;
        words[i] = std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
    }
    if (kind_ == ShaKind::sha1)
        CryptoPP::SHA1::Transform(state_, words);
    else
        CryptoPP::SHA256::Transform(state_, words);
    volatile std::uint32_t* w = words;
    for (std::size_t i = 0; i < 16; ++i) w[i] = 0;
}

void Sha::update(const unsigned char* data, std::size_t n) {
    length_ += n;
    while (n > 0) {
        const std::size_t take = n < sizeof block_ - used_ ? n : sizeof block_ - used_;
        std::memcpy(block_ + used_, data, take);
        used_ += take;
        data += take;
        n -= take;
        if (used_ == sizeof block_) {
            compress();
            used_ = 0;
        }
    }
}

// FIPS 180-4 5.1.1: a 1 bit, zeros up to 56 bytes mod 64, the message length in bits as a 64-bit
// big-endian number.
void Sha::final(unsigned char* digest) {
    const std::uint64_t bits = length_ * 8;
    block_[used_++] = 0x80;
    if (used_ > 56) {
        std::memset(block_ + used_, 0, sizeof block_ - used_);
        compress();
        used_ = 0;
    }
    std::memset(block_ + used_, 0, 56 - used_);
    for (std::size_t i = 0; i < 8; ++i) block_[56 + i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
    compress();
    for (std::size_t i = 0; i < digest_size() / 4; ++i) {
        digest[4 * i] = static_cast<unsigned char>(state_[i] >> 24);
        digest[4 * i + 1] = static_cast<unsigned char>(state_[i] >> 16);
        digest[4 * i + 2] = static_cast<unsigned char>(state_[i] >> 8);
        digest[4 * i + 3] = static_cast<unsigned char>(state_[i]);
    }
    restart();
}

}  // namespace paywasm::detail
