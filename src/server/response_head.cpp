#include "server/response_head.hpp"

#include <boost/beast/http/status.hpp>

namespace paywasm::server {

namespace {

std::string reason(int status) {
    const auto r = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
    return r.empty() ? "Status" : std::string(r.data(), r.size());
}

// A header line's name or value with CR and LF taken out.
std::string clean(std::string_view v) {
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c != '\r' && c != '\n') out += c;
    }
    return out;
}

}  // namespace

std::string response_head(int status, const Headers& headers, const HeadFraming& framing) {
    std::string text = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\n";
    for (const auto& [name, value] : headers) {
        if (same_name(name, "Content-Length") || same_name(name, "Connection") || same_name(name, "Transfer-Encoding") ||
            (!framing.content_type.empty() && same_name(name, "Content-Type"))) {
            continue;
        }
        text += clean(name) + ": " + clean(value) + "\r\n";
    }
    if (!framing.content_type.empty()) text += "Content-Type: " + std::string(framing.content_type) + "\r\n";
    if (framing.content_length) text += "Content-Length: " + std::to_string(*framing.content_length) + "\r\n";
    if (framing.chunked) text += "Transfer-Encoding: chunked\r\n";
    if (!framing.connection.empty()) text += "Connection: " + std::string(framing.connection) + "\r\n";
    if (framing.keep_alive_seconds) text += "Keep-Alive: timeout=" + std::to_string(*framing.keep_alive_seconds) + "\r\n";
    text += "\r\n";
    return text;
}

std::string error_answer(int status, std::string_view slug, std::string_view message, const Headers& headers) {
    std::string body = R"({"code":)" + std::to_string(status) + R"(,"error":")" + std::string(slug) + R"(","message":")";
    for (char c : clean(message)) {
        if (c == '"' || c == '\\') body += '\\';
        body += c;
    }
    body += "\"}";
    return response_head(status, headers, {"application/json", body.size(), false, "close", std::nullopt}) + body;
}

}  // namespace paywasm::server
