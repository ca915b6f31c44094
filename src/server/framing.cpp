#include "server/framing.hpp"

#include <utility>

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <cctype>
#include <limits>

namespace paywasm::server {

namespace http = boost::beast::http;

std::size_t head_length(std::string_view data) {
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < data.size(); ++i) {
        if (data[i] != '\n') continue;
        const std::size_t line = i - line_start;  // without the LF
        if (line_start > 0 && (line == 0 || (line == 1 && data[line_start] == '\r'))) return i + 1;
        line_start = i + 1;
    }
    return 0;
}

namespace {

bool is_bodiless(std::string_view method) {
    return method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "DELETE" || method == "TRACE";
}

std::string lower_trimmed(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    std::string out(v);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The byte-level rules Beast's parser is lenient about (it unfolds obs-fold, takes a bare LF).
const char* byte_problem(std::string_view head) {
    for (std::size_t i = 0; i < head.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(head[i]);
        if (c == 0) return "a NUL byte in the head";
        if (c == '\r') {
            if (i + 1 >= head.size() || head[i + 1] != '\n') return "a bare CR in the head";
            continue;
        }
        if (c == '\n') {
            if (i == 0 || head[i - 1] != '\r') return "a line ended by a bare LF";
            if (i + 1 < head.size() && (head[i + 1] == ' ' || head[i + 1] == '\t')) return "a folded header line (obs-fold)";
            continue;
        }
        if ((c < 0x20 && c != '\t') || c == 0x7f) return "a control character in the head";
    }
    return nullptr;
}

}  // namespace

std::variant<RequestHead, FramingError> parse_head(std::string_view head, const HeadLimits& limits) {
    if (head.size() > limits.max_bytes) return FramingError{"the head is larger than " + std::to_string(limits.max_bytes) + " bytes"};
    if (const char* problem = byte_problem(head)) return FramingError{problem};

    http::request_parser<http::empty_body> parser;
    parser.eager(false);
    parser.header_limit(static_cast<std::uint32_t>(limits.max_bytes));
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());  // the server decides on the size
    boost::beast::error_code ec;
    const std::size_t used = parser.put(boost::asio::buffer(head.data(), head.size()), ec);
    if (ec && ec != http::error::need_more) return FramingError{"malformed head: " + ec.message()};
    if (!parser.is_header_done() || used != head.size()) return FramingError{"malformed head"};

    const auto& msg = parser.get();
    RequestHead out;
    out.method = std::string(msg.method_string());
    out.target = std::string(msg.target());
    out.version = static_cast<int>(msg.version());
    if (out.version != 10 && out.version != 11) return FramingError{"only HTTP/1.0 and HTTP/1.1 are served"};
    if (out.method == "CONNECT") return FramingError{"CONNECT is not served"};
    if (out.target.empty() || (out.target[0] != '/' && !(out.target == "*" && out.method == "OPTIONS"))) {
        return FramingError{"the request target must be a path"};
    }

    std::size_t hosts = 0, lengths = 0, encodings = 0;
    std::string encoding;
    for (const auto& field : msg) {
        if (out.headers.size() >= limits.max_fields) return FramingError{"more than " + std::to_string(limits.max_fields) + " header fields"};
        const std::string_view name(field.name_string().data(), field.name_string().size());
        const std::string_view value(field.value().data(), field.value().size());
        if (same_name(name, "Host")) ++hosts;
        else if (same_name(name, "Content-Length")) ++lengths;
        else if (same_name(name, "Transfer-Encoding")) {
            ++encodings;
            encoding = lower_trimmed(value);
        }
        out.headers.emplace_back(name, value);
    }
    if (out.version == 11 ? hosts != 1 : hosts > 1) return FramingError{"an HTTP/1.1 request needs exactly one Host"};
    if (lengths > 1) return FramingError{"more than one Content-Length"};
    if (encodings > 0 && lengths > 0) return FramingError{"Transfer-Encoding together with Content-Length"};
    if (encodings > 1 || (encodings == 1 && encoding != "chunked")) return FramingError{"a Transfer-Encoding other than chunked"};
    if (encodings == 1 && out.version == 10) return FramingError{"Transfer-Encoding in an HTTP/1.0 request"};

    if (encodings == 1) {
        out.body = RequestHead::Body::chunked;
    } else if (lengths == 1) {
        const auto length = parser.content_length();
        if (!length) return FramingError{"a malformed Content-Length"};
        out.content_length = *length;
        out.body = *length > 0 ? RequestHead::Body::length : RequestHead::Body::none;
    }
    if (out.body != RequestHead::Body::none && is_bodiless(out.method)) {
        return FramingError{"a body on " + out.method + " (it would be read as the next request)"};
    }
    return out;
}

}  // namespace paywasm::server
