#include "http.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "paywasm/error.hpp"
#include "server/sql.hpp"

namespace paywasm::server {

namespace {
std::string& name_slot() {
    static std::string name = "paywasm";
    return name;
}
}  // namespace

void set_server_name(std::string name) { name_slot() = std::move(name); }
const std::string& server_name() { return name_slot(); }

void send_json(httplib::Response& res, int status, const std::string& json) {
    res.status = status;
    res.set_content(json, "application/json");
}

void send_error(httplib::Response& res, int status, std::string_view slug, std::string_view message,
                std::string_view field) {
    JsonWriter w;
    w.begin_object().num("code", status).str("error", slug).str("message", message);
    if (!field.empty()) w.str("field", field);
    w.end_object();
    send_json(res, status, w.text());
}

JsonDocument parse_object(const httplib::Request& req, const std::string& body) {
    std::string type = req.get_header_value("Content-Type");
    std::string media = type.substr(0, type.find(';'));
    while (!media.empty() && media.back() == ' ') media.pop_back();
    for (char& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (media != "application/json") {
        throw HttpError(415, "unsupported_media_type",
                        "Content-Type must be application/json" + (type.empty() ? std::string() : " (got " + type.substr(0, 60) + ")"));
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

std::string bearer_token(const httplib::Request& req) {
    std::string h = req.get_header_value("Authorization");
    if (h.size() < 7) return {};
    std::string scheme = h.substr(0, 7);
    for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (scheme != "bearer ") return {};
    std::size_t start = h.find_first_not_of(' ', 7);
    return start == std::string::npos ? std::string() : h.substr(start);
}

namespace {

// cpp-httplib does not hand the socket to handlers, so find it: the one descriptor whose local port
// is this server's and whose peer is the request's client. shutdown() (not close(): httplib still
// owns the descriptor) ends the connection; httplib then closes it.
void shutdown_connection(int local_port, int remote_port) {
    DIR* dir = opendir("/proc/self/fd");
    if (!dir) return;
    while (dirent* e = readdir(dir)) {
        char* end = nullptr;
        long fd = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0') continue;
        sockaddr_storage local{}, peer{};
        socklen_t llen = sizeof local, plen = sizeof peer;
        if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local), &llen) != 0) continue;
        if (getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &plen) != 0) continue;
        auto port_of = [](const sockaddr_storage& a) -> int {
            if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
            if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
            return -1;
        };
        if (port_of(local) == local_port && port_of(peer) == remote_port) {
            ::shutdown(static_cast<int>(fd), SHUT_RDWR);
            break;
        }
    }
    closedir(dir);
}

}  // namespace

void drop_connection(const httplib::Request& req) { shutdown_connection(req.local_port, req.remote_port); }

// httplib keeps a connection alive whatever the answer says, so the body is sent by a content
// provider that shuts the connection down once the last byte is out.
void close_after_answer(const httplib::Request& req, httplib::Response& res) {
    auto body = std::make_shared<std::string>(res.body);
    std::string type = res.get_header_value("Content-Type");
    res.headers.erase("Content-Type");
    res.body.clear();
    res.set_header("Connection", "close");
    const int local = req.local_port, remote = req.remote_port;
    res.set_content_provider(body->size(), type,
                             [body, local, remote](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                                 if (!sink.write(body->data() + offset, length)) return false;
                                 if (offset + length >= body->size()) shutdown_connection(local, remote);
                                 return true;
                             });
}

void guard(httplib::Response& res, const std::function<void()>& body) {
    try {
        body();
    } catch (const HttpError& e) {
        send_error(res, e.status, e.slug, e.what(), e.field);
    } catch (const paywasm::Error& e) {
        std::string slug(paywasm::to_string(e.code()));
        send_error(res, 400, slug, e.what(), e.field());
    } catch (const StorageUnavailable& e) {
        std::fprintf(stderr, "%s: %s\n", server_name().c_str(), e.what());
        res.set_header("Retry-After", "2");
        send_error(res, 503, "storage_unavailable", "the database is unavailable; retry later");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: internal error: %s\n", server_name().c_str(), e.what());
        send_error(res, 500, "internal", "internal error in " + server_name());
    }
}

void route(httplib::Server& server, std::string_view method, const std::string& pattern, std::size_t max_body,
           Handler handler) {
    if (method == "GET" || method == "DELETE") {
        auto wrapped = [handler](const httplib::Request& req, httplib::Response& res) {
            guard(res, [&] { handler(req, res, std::string()); });
        };
        if (method == "GET") server.Get(pattern, wrapped);
        else server.Delete(pattern, wrapped);
        return;
    }
    auto wrapped = [handler, max_body](const httplib::Request& req, httplib::Response& res,
                                       const httplib::ContentReader& reader) {
        // Over the limit, nothing more is kept, but the rest is read and dropped (up to
        // drain_limit) so the connection stays usable; past that the connection is closed.
        std::string body;
        std::size_t seen = 0;
        const std::size_t cap = drain_limit(max_body);
        bool complete = reader([&](const char* data, std::size_t len) {
            seen += len;
            if (seen > max_body) {
                std::string().swap(body);
                return seen <= cap;
            }
            body.append(data, len);
            return true;
        });
        if (seen > max_body) {
            send_error(res, 413, "payload_too_large",
                       "the body is larger than " + server_name() + "'s limit of " + std::to_string(max_body) + " bytes");
            if (!complete) close_after_answer(req, res);
            return;
        }
        if (!complete) {
            send_error(res, 400, "bad_request", "the body could not be read");
            close_after_answer(req, res);
            return;
        }
        guard(res, [&] { handler(req, res, body); });
    };
    if (method == "POST") server.Post(pattern, wrapped);
    else server.Put(pattern, wrapped);
}

}  // namespace paywasm::server
