#include "util.hpp"

#include <chrono>
#include <cstdlib>
#include <cctype>
#include <ctime>

#include "paywasm/crypto.hpp"

namespace paywasm::server {

// PAYWASM_CLOCK_OFFSET_MS (read once; for tests and retention drills only, documented in
// docs/merchant.md): added to the wall clock, so a test can run a server "40 days later".
std::int64_t now_ms() {
    using namespace std::chrono;
    static const std::int64_t offset = [] {
        const char* v = std::getenv("PAYWASM_CLOCK_OFFSET_MS");
        return v && *v ? std::strtoll(v, nullptr, 10) : 0LL;
    }();
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() + offset;
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


}  // namespace paywasm::server

namespace paywasm::server {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool is_port(std::string_view s) {
    if (s.empty() || s.size() > 5) return false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

}  // namespace

bool is_loopback_host_header(std::string_view header) {
    std::string host = lower(header);
    // Strip the port: after "]" for IPv6, else after the only colon.
    std::string name = host;
    if (!host.empty() && host[0] == '[') {
        std::size_t close = host.find(']');
        if (close == std::string::npos) return false;
        name = host.substr(0, close + 1);
        std::string rest = host.substr(close + 1);
        if (!rest.empty() && (rest[0] != ':' || !is_port(rest.substr(1)))) return false;
    } else if (std::size_t colon = host.find(':'); colon != std::string::npos) {
        name = host.substr(0, colon);
        if (!is_port(host.substr(colon + 1))) return false;
    }
    return name == "localhost" || name == "127.0.0.1" || name == "[::1]";
}

bool is_loopback_host(std::string_view host_text) {
    std::string host = lower(host_text);
    if (host == "localhost" || host == "[::1]") return true;
    // 127.0.0.0/8 written as a dotted quad of decimal numbers.
    if (host.rfind("127.", 0) != 0) return false;
    int parts = 0;
    std::size_t start = 0;
    while (start <= host.size()) {
        std::size_t dot = host.find('.', start);
        std::string part = host.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (part.empty() || part.size() > 3 || part.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(part) > 255) {
            return false;
        }
        ++parts;
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return parts == 4;
}

}  // namespace paywasm::server
