// src/core/crypto_encoding.cpp — base64, hex, SHA-256, HMAC and the platform's randomness.
//
// One of the four files of paywasm/crypto.hpp (see crypto_keys.cpp's header comment); it must
// never name CryptoPP::Integer: the widget's wasm links it.
#include "paywasm/crypto.hpp"

#include <unistd.h>  // getentropy (glibc; Emscripten maps it to crypto.getRandomValues / Node crypto)

#include <cerrno>
#include <cstring>

#include <cryptopp/cryptlib.h>
#include <cryptopp/hmac.h>
#include <cryptopp/misc.h>
#include <cryptopp/sha.h>

#include "core/crypto_internal.hpp"
#include "core/sha.hpp"
#include "paywasm/error.hpp"

namespace paywasm {

using detail::DerReader;
using detail::Tlv;
namespace der = detail::der;

namespace keyio {

// ---- Base64 ----

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

// Strict decoding; `skip_blanks` also ignores spaces and tabs (PEM bodies), not only line breaks.
// Returns false with `why` set instead of throwing so callers choose the error.
bool base64_decode_into(std::string_view text, bool skip_blanks, std::string& out, std::string& why) {
    out.clear();
    out.reserve(text.size() / 4 * 3);
    unsigned acc = 0;
    int quad = 0, pads = 0;
    std::size_t pos = 0;
    for (char c : text) {
        ++pos;
        if (c == '\n' || c == '\r' || (skip_blanks && (c == ' ' || c == '\t'))) continue;
        if (c == '=') {
            if (quad < 2) { why = "'=' at position " + std::to_string(pos) + " is not where padding can be"; return false; }
            ++pads;
            ++quad;
            if (quad == 4) quad = 0;
            continue;
        }
        int v = base64_value(c);
        if (v < 0) {
            unsigned char uc = static_cast<unsigned char>(c);
            why = (uc >= 0x21 && uc < 0x7f ? std::string("character '") + c + "'" : "byte " + std::to_string(uc)) +
                  " at position " + std::to_string(pos) + " is not in the standard base64 alphabet";
            return false;
        }
        if (pads > 0) { why = "data after '=' padding at position " + std::to_string(pos); return false; }
        acc = (acc << 6) | static_cast<unsigned>(v);
        if (++quad == 4) {
            out += static_cast<char>((acc >> 16) & 0xff);
            out += static_cast<char>((acc >> 8) & 0xff);
            out += static_cast<char>(acc & 0xff);
            acc = 0;
            quad = 0;
        }
    }
    if (quad != 0) { why = "length is not a multiple of 4 ('=' padding is required)"; return false; }
    if (pads == 1) {
        if (acc & 0x3u) { why = "non-zero bits in the last character before '='"; return false; }
        out += static_cast<char>((acc >> 10) & 0xff);
        out += static_cast<char>((acc >> 2) & 0xff);
    } else if (pads == 2) {
        if (acc & 0xfu) { why = "non-zero bits in the last character before '=='"; return false; }
        out += static_cast<char>((acc >> 4) & 0xff);
    } else if (pads > 2) {
        why = "too much '=' padding";
        return false;
    }
    return true;
}

}  // namespace keyio

using namespace keyio;

// ---- Hashing, base64, randomness ----

namespace {
std::string to_hex(const CryptoPP::byte* bytes, std::size_t n) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        out += hex[bytes[i] >> 4];
        out += hex[bytes[i] & 0xf];
    }
    return out;
}
}  // namespace

bool constant_time_equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    if (a.empty()) return true;
    return CryptoPP::VerifyBufsEqual(reinterpret_cast<const CryptoPP::byte*>(a.data()),
                                     reinterpret_cast<const CryptoPP::byte*>(b.data()), a.size());
}

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
    CryptoPP::HMAC<CryptoPP::SHA256> mac(reinterpret_cast<const CryptoPP::byte*>(key.data()), key.size());
    CryptoPP::byte digest[CryptoPP::SHA256::DIGESTSIZE];
    mac.CalculateDigest(digest, reinterpret_cast<const CryptoPP::byte*>(message.data()), message.size());
    return to_hex(digest, sizeof digest);
}

std::string sha256_hex(std::string_view bytes) {
    detail::Sha hash(detail::ShaKind::sha256);
    CryptoPP::byte digest[32];
    hash.update(reinterpret_cast<const CryptoPP::byte*>(bytes.data()), bytes.size());
    hash.final(digest);
    return to_hex(digest, sizeof digest);
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    auto at = [&](std::size_t j) { return static_cast<unsigned>(static_cast<unsigned char>(bytes[j])); };
    for (; i + 3 <= bytes.size(); i += 3) {
        unsigned v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    if (bytes.size() - i == 1) {
        unsigned v = at(i) << 16;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += "==";
    } else if (bytes.size() - i == 2) {
        unsigned v = (at(i) << 16) | (at(i + 1) << 8);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

std::string base64_decode(std::string_view text) {
    std::string out, why;
    if (!base64_decode_into(text, false, out, why)) fail_validation("base64", why);
    return out;
}

void random_bytes(unsigned char* out, std::size_t n) {
    while (n > 0) {
        std::size_t chunk = n < 256 ? n : 256;  // getentropy's per-call limit
        if (::getentropy(out, chunk) != 0) {
            // The errno number, not strerror's text: libc's message table would cost the widget's
            // module 1.2 KB gzip for an error its loader never causes.
            throw Error(ErrorCode::crypto, "no platform random source: getentropy failed with errno " +
                                               std::to_string(errno));
        }
        out += chunk;
        n -= chunk;
    }
}

}  // namespace paywasm
