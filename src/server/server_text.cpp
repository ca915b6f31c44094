// server.hpp's text helpers: a server's origin, and a path as the access log shows it.
#include <string>
#include <string_view>

#include "server/server.hpp"

namespace paywasm::server {

std::string http_origin(const std::string& host, int port) {
    const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return "http://" + shown + ":" + std::to_string(port);
}

std::string loggable_path(const std::string& path) {
    // Capabilities and ids cut short (a session id is the shopper's credential; SECURITY.md keeps
    // subscription ids off logs), then every byte that is not printable ASCII as %XX: a path with a
    // newline or an ANSI escape, raw or percent-decoded, cannot write a line of its own.
    std::string out = path.substr(0, 200);
    for (const char* prefix : {"/cs_", "/v1/subscriptions/"}) {
        const std::size_t keep = prefix[1] == 'c' ? 10 : std::string_view(prefix).size() + 4;
        for (std::size_t at = out.find(prefix); at != std::string::npos; at = out.find(prefix, at + 1)) {
            std::size_t end = out.find('/', at + std::string_view(prefix).size());
            if (end == std::string::npos) end = out.size();
            if (end - at > keep) out.replace(at + keep, end - at - keep, "...");
        }
    }
    std::string safe;
    static const char* hex = "0123456789ABCDEF";
    for (unsigned char c : out) {
        if (c < 0x21 || c > 0x7e) {
            safe += '%';
            safe += hex[c >> 4];
            safe += hex[c & 15];
        } else {
            safe += static_cast<char>(c);
        }
    }
    return safe;
}

}  // namespace paywasm::server
