#include "server/message.hpp"

#include <cctype>

namespace paywasm::server {

bool same_name(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    }
    return true;
}

std::string url_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '+') {
            out += ' ';
        } else if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 &&
                   hex(text[i + 2]) >= 0) {
            out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::string Request::get_header_value(std::string_view name, std::string_view fallback) const {
    for (const auto& [n, v] : headers) {
        if (same_name(n, name)) return v;
    }
    return std::string(fallback);
}

bool Request::has_header(std::string_view name) const {
    for (const auto& h : headers) {
        if (same_name(h.first, name)) return true;
    }
    return false;
}

bool Request::has_param(std::string_view name) const {
    return for_each_urlencoded(query, [&](std::string_view n, std::string_view) { return url_decode(n) == name; });
}

std::string Request::get_param_value(std::string_view name) const {
    std::string out;
    for_each_urlencoded(query, [&](std::string_view n, std::string_view v) {
        if (url_decode(n) != name) return false;
        out = url_decode(v);
        return true;
    });
    return out;
}

void Response::set_header(std::string_view name, std::string_view value) { headers.emplace_back(name, value); }

std::string Response::get_header_value(std::string_view name) const {
    for (const auto& [n, v] : headers) {
        if (same_name(n, name)) return v;
    }
    return {};
}

bool Response::has_header(std::string_view name) const {
    for (const auto& h : headers) {
        if (same_name(h.first, name)) return true;
    }
    return false;
}

void Response::set_content(std::string text, std::string_view content_type) {
    body = std::move(text);
    for (auto it = headers.begin(); it != headers.end();) {
        it = same_name(it->first, "Content-Type") ? headers.erase(it) : it + 1;
    }
    headers.emplace_back("Content-Type", content_type);
}

}  // namespace paywasm::server
