// src/server/http.hpp — how every route of a native server (the sandbox, the gateway) reads its
// request and writes its answer.
//
// Errors are JSON everywhere: {"code": <HTTP status>, "error": "<slug>", "message": "...",
// "field": "<path>"?}. A handler throws HttpError (or a paywasm::Error, mapped to 400) and the
// route wrapper writes it; nothing a client sends can take the server down.
//
// JSON is the core's (paywasm/json.hpp) and nothing else: every text a server reads goes through
// paywasm::parse_json (strict, at most kMaxJsonDepth levels, no recursion), and every answer is
// written with paywasm::JsonWriter (compact, members in the order written).
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "paywasm/json.hpp"
#include "server/message.hpp"
#include "server/router.hpp"

namespace paywasm::server {

using paywasm::JsonDocument;
using paywasm::JsonValue;
using paywasm::JsonWriter;

struct HttpError : std::runtime_error {
    HttpError(int status_, std::string slug_, const std::string& message, std::string field_ = {})
        : std::runtime_error(message), status(status_), slug(std::move(slug_)), field(std::move(field_)) {}
    int status;
    std::string slug;
    std::string field;
};

// The program's name in logs and in the 500/413 messages ("paywasm-sandbox", "paywasm-merchant");
// set once at start-up, before the server runs.
void set_server_name(std::string name);
const std::string& server_name();

// `json` is a complete JSON text (a JsonWriter's text()).
void send_json(Response& res, int status, const std::string& json);
void send_error(Response& res, int status, std::string_view slug, std::string_view message,
                std::string_view field = {});

// The request body as a JSON object: Content-Type must be application/json (415 otherwise), the
// text must parse by the core's rules (400 invalid_json, with the core's reason) and be an object
// (400). The document's root() is the object.
JsonDocument parse_object(const Request& req, const std::string& body);

// A stored JSON text (the sandbox's own, or what a client once sent) through the core's reader;
// nullopt when it refuses it.
std::optional<JsonDocument> read_json(std::string_view text);
// `v` compactly re-written, or "null" when `v` is not valid (no such member).
std::string json_text(JsonValue v);
// A decimal text ("15.00", "-0.50") as a JSON number: trailing fractional zeros dropped ("15",
// "-0.5"), as JSON.stringify writes the same value.
std::string json_number(std::string_view decimal);

// Safe on a value that is not there (a missing member): JsonValue's is_*(), text() and size() need
// a valid value.
inline bool has_kind(JsonValue v, paywasm::JsonKind kind) { return v.valid() && v.kind() == kind; }
inline std::string string_or(JsonValue v, std::string_view fallback = {}) {
    return std::string(has_kind(v, paywasm::JsonKind::string) ? v.text() : fallback);
}

// Typed member access for request objects; each throws HttpError(400) naming the member.
std::string need_string(JsonValue obj, const char* name, const std::string& path = {});
std::optional<std::string> opt_string(JsonValue obj, const char* name, const std::string& path = {});
// An optional JSON member: nullopt when absent or null, else the value.
std::optional<JsonValue> opt_member(JsonValue obj, const char* name);

// The token of an `Authorization: Bearer <token>` header, or empty.
std::string bearer_token(const Request& req);

// Closes the request's connection without an answer (the `drop` fault).
inline void drop_connection(Response& res) { res.drop = true; }
// Sends the answer in `res`, then closes the connection.
inline void close_after_answer(const Request&, Response& res) { res.close = true; }

// Runs `body`, turning whatever it throws into a JSON error answer (HttpError as given,
// paywasm::Error as 400 with its code and field, StorageUnavailable as 503, anything else as 500).
void guard(Response& res, const std::function<void()>& body);

}  // namespace paywasm::server
