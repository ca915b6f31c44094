#include "client/url.hpp"

#include <cctype>

#include "paywasm/error.hpp"

namespace paywasm::client {

std::optional<Url> split_url(std::string_view url) {
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) return std::nullopt;
    Url out;
    out.scheme = std::string(url.substr(0, scheme_end));
    if (out.scheme != "http" && out.scheme != "https") return std::nullopt;
    const auto path_start = url.find('/', scheme_end + 3);
    out.origin = std::string(url.substr(0, path_start));
    out.path = path_start == std::string_view::npos ? "/" : std::string(url.substr(path_start));
    std::string_view rest = std::string_view(out.origin).substr(scheme_end + 3);
    if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
        out.user_info = true;
        rest.remove_prefix(at + 1);
    }
    if (rest.empty()) return std::nullopt;
    if (rest[0] == '[') {
        const auto close = rest.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        out.host = std::string(rest.substr(0, close + 1));
    } else {
        out.host = std::string(rest.substr(0, rest.find(':')));
    }
    if (out.host.empty()) return std::nullopt;
    return out;
}

std::string http_origin(std::string_view url) {
    if (url.size() > 2000) return "";
    for (char c : url) {
        if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f || c == '\\') return "";
    }
    // The authority ends at the path, the query or the fragment.
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) return "";
    std::string lowered(url.substr(0, url.find_first_of("/?#", scheme_end + 3)));
    for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto parts = split_url(lowered);
    if (!parts || parts->user_info) return "";
    const std::string& host = parts->host;
    const bool ipv6 = host.front() == '[';
    const std::string_view inner = ipv6 ? std::string_view(host).substr(1, host.size() - 2) : std::string_view(host);
    if (inner.empty() || inner.find_first_not_of(ipv6 ? "0123456789abcdef:." : "abcdefghijklmnopqrstuvwxyz0123456789.-") !=
                             std::string_view::npos) {
        return "";
    }
    const std::string_view port = std::string_view(parts->origin).substr(parts->scheme.size() + 3 + host.size());
    if (!port.empty() && (port[0] != ':' || port.size() < 2 || port.size() > 6 ||
                          port.find_first_not_of("0123456789", 1) != std::string_view::npos)) {
        return "";
    }
    return parts->origin;
}

BaseUrl split_base_url(std::string_view url, const std::string& field) {
    const auto scheme_end = url.find("://");
    const std::string_view scheme = scheme_end == std::string_view::npos ? "" : url.substr(0, scheme_end);
    if (scheme != "http" && scheme != "https") {
        fail_validation(field, "must start with http:// or https:// (got '" + std::string(url.substr(0, 64)) + "')");
    }
    const auto parts = split_url(url);
    if (!parts) fail_validation(field, "has no host");
    BaseUrl out{parts->origin, url.find('/', scheme_end + 3) == std::string_view::npos ? std::string() : parts->path};
    while (!out.prefix.empty() && out.prefix.back() == '/') out.prefix.pop_back();
    if (out.prefix.find_first_of("?#") != std::string::npos) fail_validation(field, "must not have a query or fragment");
    return out;
}

std::string redact_url(std::string_view url) {
    std::string out(url.substr(0, 200));
    if (const auto scheme = out.find("://"); scheme != std::string::npos) {
        const auto start = scheme + 3;
        const auto at = out.find('@', start);
        const auto slash = out.find('/', start);
        if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
            const auto colon = out.find(':', start);
            if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
        }
    }
    for (std::size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 12)) {
        std::size_t end = p + 9;
        while (end < out.size() && out[end] != ' ' && out[end] != '&') ++end;
        out.replace(p + 9, end - p - 9, "***");
    }
    for (char& c : out) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    return out;
}

}  // namespace paywasm::client
