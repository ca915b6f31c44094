#include "server/router.hpp"

#include <cstdio>
#include <exception>

namespace paywasm::server {

Router& Router::add(std::string_view method, const std::string& pattern, Handler handler) {
    routes_.push_back(Route{std::string(method), pattern, std::regex(pattern), std::move(handler)});
    return *this;
}

const Router::Route* Router::find(const Request& req, std::vector<std::string>* matches) const {
    const std::string_view method = req.method == "HEAD" ? std::string_view("GET") : std::string_view(req.method);
    for (const Route& r : routes_) {
        if (r.method != method) continue;
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

void Router::handle(Request& req, Response& res) const {
    try {
        if (!(pre_ && pre_(req, res))) {
            if (const Route* r = find(req, &req.matches)) {
                r->handler(req, res);
            } else {
                res.status = 404;
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "server: internal error: %s\n", e.what());
        res = Response{};
        res.status = 500;
    }
    if (res.stream) return;
    try {
        if (res.status >= 400 && res.body.empty() && error_) error_(req, res);
        if (post_) post_(req, res);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "server: internal error: %s\n", e.what());
    }
}

}  // namespace paywasm::server
