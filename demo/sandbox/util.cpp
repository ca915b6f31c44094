#include "util.hpp"

#include <chrono>
#include <ctime>

#include "paywasm/crypto.hpp"

namespace sandbox {

std::int64_t now_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string iso8601(std::int64_t epoch_ms) {
    std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[40];
    std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(epoch_ms % 1000));
    return out;
}

std::string random_hex(std::size_t bytes) {
    static const char* digits = "0123456789abcdef";
    std::string raw(bytes, '\0');
    paywasm::random_bytes(reinterpret_cast<unsigned char*>(raw.data()), raw.size());
    std::string out;
    out.reserve(bytes * 2);
    for (unsigned char c : raw) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string uuid_v4() {
    unsigned char b[16];
    paywasm::random_bytes(b, sizeof b);
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
        out += digits[b[i] >> 4];
        out += digits[b[i] & 15];
    }
    return out;
}

std::string random_token(std::string_view prefix) {
    unsigned char b[32];
    paywasm::random_bytes(b, sizeof b);
    std::string text = paywasm::base64_encode(std::string_view(reinterpret_cast<const char*>(b), sizeof b));
    std::string out(prefix);
    for (char c : text) {
        if (c == '+') out += '-';
        else if (c == '/') out += '_';
        else if (c != '=') out += c;
    }
    return out;
}

bool equal_secret(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace sandbox
