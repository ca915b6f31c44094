#include "http.hpp"


#include <cctype>
#include <cstdio>

#include "paywasm/error.hpp"
#include "server/sql.hpp"
#include "paywasm/text.hpp"

namespace paywasm::server {

namespace {
std::string& name_slot() {
    static std::string name = "paywasm";
    return name;
}
}  // namespace

void set_server_name(std::string name) { name_slot() = std::move(name); }
const std::string& server_name() { return name_slot(); }

void send_json(Response& res, int status, const std::string& json) {
    res.status = status;
    res.set_content(json, "application/json");
}

void send_error(Response& res, int status, std::string_view slug, std::string_view message,
                std::string_view field) {
    JsonWriter w;
    w.begin_object().num("code", status).str("error", slug).str("message", message);
    if (!field.empty()) w.str("field", field);
    w.end_object();
    send_json(res, status, w.text());
}

JsonDocument parse_object(const Request& req, const std::string& body) {
    std::string type = req.get_header_value("Content-Type");
    std::string media = type.substr(0, type.find(';'));
    while (!media.empty() && media.back() == ' ') media.pop_back();
    for (char& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (media != "application/json") {
        throw HttpError(415, "unsupported_media_type",
                        "Content-Type must be application/json" + (type.empty() ? std::string() : " (got " + paywasm::escape_untrusted(type, 60) + ")"));
    }
    // The core's reader: strict RFC 8259, at most kMaxJsonDepth levels, no recursion, so a hostile
    // nesting (120,000 levels) is refused here.
    JsonDocument doc;
    try {
        doc = paywasm::parse_json(body);
    } catch (const paywasm::Error& e) {
        throw HttpError(400, "invalid_json", std::string("the body is not valid JSON: ") + e.what());
    }
    if (!doc.root().is_object()) throw HttpError(400, "invalid_json", "the body must be a JSON object");
    return doc;
}

std::optional<JsonDocument> read_json(std::string_view text) {
    try {
        return paywasm::parse_json(text);
    } catch (const paywasm::Error&) {
        return std::nullopt;
    }
}

std::string json_text(JsonValue v) {
    if (!v.valid()) return "null";
    JsonWriter w;
    w.value(v);
    return w.take();
}

std::string json_number(std::string_view decimal) {
    std::string s(decimal);
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    return s;
}

std::string need_string(JsonValue obj, const char* name, const std::string& path) {
    std::string field = path.empty() ? name : path + "." + name;
    JsonValue v = obj.member(name);
    if (!v.valid() || v.is_null()) throw HttpError(400, "validation", field + ": is required", field);
    if (!v.is_string()) throw HttpError(400, "validation", field + ": must be a string", field);
    return std::string(v.text());
}

std::optional<std::string> opt_string(JsonValue obj, const char* name, const std::string& path) {
    JsonValue v = obj.member(name);
    if (!v.valid() || v.is_null()) return std::nullopt;
    std::string field = path.empty() ? name : path + "." + name;
    if (!v.is_string()) throw HttpError(400, "validation", field + ": must be a string", field);
    return std::string(v.text());
}

std::optional<JsonValue> opt_member(JsonValue obj, const char* name) {
    JsonValue v = obj.member(name);
    if (!v.valid() || v.is_null()) return std::nullopt;
    return v;
}

std::string bearer_token(const Request& req) {
    std::string h = req.get_header_value("Authorization");
    if (h.size() < 7) return {};
    std::string scheme = h.substr(0, 7);
    for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (scheme != "bearer ") return {};
    std::size_t start = h.find_first_not_of(' ', 7);
    return start == std::string::npos ? std::string() : h.substr(start);
}

void guard(Response& res, const std::function<void()>& body) {
    try {
        body();
    } catch (const HttpError& e) {
        send_error(res, e.status, e.slug, e.what(), e.field);
    } catch (const paywasm::Error& e) {
        std::string slug(paywasm::to_string(e.code()));
        send_error(res, 400, slug, e.what(), e.field());
    } catch (const StorageUnavailable& e) {
        std::fprintf(stderr, "%s: %s\n", server_name().c_str(), paywasm::escape_untrusted(e.what(), 500).c_str());
        res.set_header("Retry-After", "2");
        send_error(res, 503, "storage_unavailable", "the database is unavailable; retry later");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: internal error: %s\n", server_name().c_str(), paywasm::escape_untrusted(e.what(), 500).c_str());
        send_error(res, 500, "internal", "internal error in " + server_name());
    }
}

}  // namespace paywasm::server
