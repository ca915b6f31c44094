// src/core/crypto_der.hpp — the little DER that RSA keys need: a strict reader that says exactly
// what is wrong (truncated, trailing data, indefinite length), and a writer for SPKI and PKCS#8.
// Internal to crypto_keys.cpp and crypto_private.cpp; kept apart so the key logic reads without byte fiddling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "paywasm/error.hpp"

namespace paywasm::detail {

namespace der {
constexpr std::uint8_t kInteger = 0x02;
constexpr std::uint8_t kBitString = 0x03;
constexpr std::uint8_t kOctetString = 0x04;
constexpr std::uint8_t kNull = 0x05;
constexpr std::uint8_t kOid = 0x06;
constexpr std::uint8_t kSequence = 0x30;
// 1.2.840.113549.1.1.1 (rsaEncryption), content bytes only.
constexpr std::string_view kRsaEncryptionOid{"\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01", 9};
}  // namespace der

struct Tlv {
    std::uint8_t tag = 0;
    std::string_view content;
};

// Reads consecutive TLVs from a byte range. Every failure is Error(invalid_key) naming `what`.
class DerReader {
public:
    explicit DerReader(std::string_view bytes) : rest_(bytes) {}
    bool empty() const { return rest_.empty(); }
    std::size_t remaining() const { return rest_.size(); }
    std::uint8_t peek_tag() const { return rest_.empty() ? 0 : static_cast<std::uint8_t>(rest_[0]); }

    Tlv read(const char* what) {
        if (rest_.empty()) fail(std::string("truncated DER: ") + what + " is missing");
        Tlv t;
        t.tag = static_cast<std::uint8_t>(rest_[0]);
        if ((t.tag & 0x1f) == 0x1f) fail(std::string("not a key: ") + what + " has a multi-byte tag");
        if (rest_.size() < 2) fail(std::string("truncated DER: ") + what + " has no length");
        auto first = static_cast<std::uint8_t>(rest_[1]);
        std::size_t pos = 2, len = first;
        if (first == 0x80) fail(std::string("not DER: ") + what + " uses an indefinite length");
        if (first > 0x80) {
            std::size_t count = first & 0x7fu;
            if (count > 3) fail(std::string("not a key: ") + what + " claims an absurd length");
            if (rest_.size() < 2 + count) fail(std::string("truncated DER: ") + what + " length is cut off");
            len = 0;
            for (std::size_t i = 0; i < count; ++i) len = (len << 8) | static_cast<std::uint8_t>(rest_[2 + i]);
            pos += count;
        }
        if (rest_.size() - pos < len) {
            fail(std::string("truncated DER: ") + what + " needs " + std::to_string(len) + " bytes, only " +
                 std::to_string(rest_.size() - pos) + " are left");
        }
        t.content = rest_.substr(pos, len);
        rest_.remove_prefix(pos + len);
        return t;
    }

    Tlv expect(std::uint8_t tag, const char* what) {
        Tlv t = read(what);
        if (t.tag != tag) fail(std::string("not a key: ") + what + " has the wrong ASN.1 type");
        return t;
    }

    [[noreturn]] static void fail(const std::string& message) { throw Error(ErrorCode::invalid_key, message); }

private:
    std::string_view rest_;
};

// ---- Writer ----

inline std::string der_tlv(std::uint8_t tag, std::string_view content) {
    std::string out(1, static_cast<char>(tag));
    std::size_t n = content.size();
    if (n < 0x80) {
        out += static_cast<char>(n);
    } else {
        char buf[sizeof(std::size_t)];
        int count = 0;
        for (std::size_t v = n; v != 0; v >>= 8) buf[count++] = static_cast<char>(v & 0xff);
        out += static_cast<char>(0x80 | count);
        while (count > 0) out += buf[--count];
    }
    out.append(content.data(), content.size());
    return out;
}

// Big-endian unsigned magnitude -> DER INTEGER (minimal, with a 0x00 when the top bit is set).
inline std::string der_unsigned_integer(std::string_view magnitude) {
    while (magnitude.size() > 1 && magnitude[0] == '\0') magnitude.remove_prefix(1);
    std::string content;
    if (magnitude.empty()) {
        content.assign(1, '\0');
    } else {
        if (static_cast<std::uint8_t>(magnitude[0]) & 0x80) content += '\0';
        content.append(magnitude.data(), magnitude.size());
    }
    return der_tlv(der::kInteger, content);
}

inline std::string der_rsa_algorithm() {
    return der_tlv(der::kSequence, der_tlv(der::kOid, der::kRsaEncryptionOid) + der_tlv(der::kNull, {}));
}

}  // namespace paywasm::detail
