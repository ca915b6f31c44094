#include "server/router.hpp"

#include "server/http.hpp"
#include "paywasm/text.hpp"

#include <chrono>
#include <cstdio>
#include <exception>

namespace paywasm::server {

namespace {

// The metrics label of an unrouted request's method: a fixed set, so that a client inventing
// methods cannot add series (counts()).
std::string_view method_label(std::string_view method) {
    for (std::string_view known : {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH"}) {
        if (method == known) return known;
    }
    return "OTHER";
}

}  // namespace

Router& Router::route(std::string_view method, const std::string& pattern, std::size_t max_body, Handler handler) {
    // The literal start: up to the first special character, without the character a quantifier
    // after it makes optional; none when the pattern has an alternative (a|b).
    const std::size_t special = pattern.find_first_of("\\^$.|?*+()[]{}");
    std::string prefix = pattern.substr(0, special);
    if (special != std::string::npos && std::string_view("?*{").find(pattern[special]) != std::string_view::npos && !prefix.empty()) {
        prefix.pop_back();
    }
    if (pattern.find('|') != std::string::npos) prefix.clear();
    routes_.push_back(Route{std::string(method), pattern, prefix, std::regex(pattern), max_body, std::move(handler)});
    return *this;
}

const Router::Route* Router::find(const Request& req, std::vector<std::string>* matches) const {
    const std::string_view method = req.method == "HEAD" ? std::string_view("GET") : std::string_view(req.method);
    for (const Route& r : routes_) {
        if (r.method != method || req.path.compare(0, r.prefix.size(), r.prefix) != 0) continue;
        std::smatch m;
        if (!std::regex_match(req.path, m, r.re)) continue;
        if (matches) {
            matches->clear();
            for (const auto& sub : m) matches->push_back(sub.str());
        }
        return &r;
    }
    return nullptr;
}

std::string Router::pattern_for(const Request& req) const {
    const Route* r = find(req, nullptr);
    return r ? r->pattern : std::string();
}

std::vector<Router::Count> Router::counts() const {
    std::lock_guard<std::mutex> lock(counts_mutex_);
    std::vector<Count> out;
    for (const auto& [key, value] : counts_) {
        out.push_back(Count{std::get<0>(key), std::get<1>(key), std::get<2>(key), value.first, value.second});
    }
    return out;
}

void Router::handle(Request& req, Response& res) const {
    const auto started = std::chrono::steady_clock::now();
    const Route* route = nullptr;
    try {
        if (!(pre_ && pre_(req, res))) {
            if (const Route* r = find(req, &req.matches)) {
                route = r;
                if (req.body.size() > r->max_body) {
                    send_error(res, 413, "payload_too_large",
                               "the body is larger than " + server_name() + "'s limit of " + std::to_string(r->max_body) +
                                   " bytes");
                } else {
                    guard(res, [&] { r->handler(req, res, req.body); });
                }
            } else {
                res.status = 404;
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "server: internal error: %s\n", paywasm::escape_untrusted(e.what(), 500).c_str());
        res = Response{};
        res.status = 500;
    }
    if (!res.stream) {
        try {
            if (res.status >= 400 && res.body.empty() && error_) error_(req, res);
            if (post_) post_(req, res);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "server: internal error: %s\n", paywasm::escape_untrusted(e.what(), 500).c_str());
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::lock_guard<std::mutex> lock(counts_mutex_);
    auto& count = counts_[{route ? route->method : std::string(method_label(req.method)), route ? route->pattern : std::string(), res.status}];
    ++count.first;
    count.second += seconds;
}

}  // namespace paywasm::server
