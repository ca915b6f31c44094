// src/server/router.hpp — which handler answers a request: routes by method and a whole-path
// regular expression, tried in the order registered (the first match wins), with the hooks the
// programs use around them. Handlers run on the server's worker threads (server.hpp), so they may
// block (the database, the payment service); several run at once. route() is the one way to
// register one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "server/message.hpp"

namespace paywasm::server {

class Router {
public:
    // A route's handler: the request, the answer to fill in, and the body (read whole by the server).
    using Handler = std::function<void(const Request&, Response&, const std::string& body)>;

    // Registers `handler` for `method` ("GET", "POST", ...; HEAD uses GET's routes) and `pattern`,
    // which must match the whole path (its groups become req.matches[1..]). A body over `max_body`
    // is answered 413 payload_too_large and the handler does not run; what the handler throws
    // becomes a JSON error answer (http.hpp's guard()).
    Router& route(std::string_view method, const std::string& pattern, std::size_t max_body, Handler handler);

    // Runs before routing; returning true means `res` is the answer and no route runs.
    void set_pre_routing_handler(std::function<bool(const Request&, Response&)> hook) { pre_ = std::move(hook); }
    // Runs after the route (or the 404), on every answer but a stream's.
    void set_post_routing_handler(std::function<void(const Request&, Response&)> hook) { post_ = std::move(hook); }
    // Runs for an answer of status >= 400 whose body is still empty (the program's JSON error).
    void set_error_handler(std::function<void(const Request&, Response&)> hook) { error_ = std::move(hook); }

    // Answers `req` into `res`: hooks, then the first matching route, else 404. An exception that
    // escapes a handler becomes 500. Never throws.
    void handle(Request& req, Response& res) const;
    // The pattern of the route that answers `req` ("" for none): a label for metrics.
    std::string pattern_for(const Request& req) const;

    // Requests answered so far, by route (method and pattern; "" for no route) and status, with the
    // handlers' time. Thread-safe. The series are bounded whatever clients send: a request no route
    // answers is counted under its method only when that is one of RFC 9110's (GET, HEAD, POST,
    // PUT, DELETE, OPTIONS, TRACE) or PATCH, and under "OTHER" otherwise.
    struct Count {
        std::string method, pattern;
        int status = 0;
        std::uint64_t requests = 0;
        double seconds = 0;
    };
    std::vector<Count> counts() const;

private:
    struct Route {
        std::string method, pattern;
        std::string prefix;  // the pattern's literal start: a path without it cannot match
        std::regex re;
        std::size_t max_body = 0;
        Handler handler;
    };
    const Route* find(const Request& req, std::vector<std::string>* matches) const;
    std::vector<Route> routes_;
    std::function<bool(const Request&, Response&)> pre_;
    std::function<void(const Request&, Response&)> post_, error_;
    mutable std::mutex counts_mutex_;
    mutable std::map<std::tuple<std::string, std::string, int>, std::pair<std::uint64_t, double>> counts_;
};

}  // namespace paywasm::server
