#include "client/transport.hpp"

#include <httplib.h>

#include <chrono>

#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"

namespace paywasm::client {

HttpResponse send(const HttpRequest& request, std::string_view base_url, const TransportOptions& options) {
    BaseUrl base = split_base_url(base_url);
    httplib::Client client(base.origin);
    if (!client.is_valid()) fail_validation("base-url", "is not a usable URL");
    client.set_connection_timeout(options.timeout_seconds, 0);
    client.set_read_timeout(options.timeout_seconds, 0);
    client.set_write_timeout(options.timeout_seconds, 0);
    client.set_follow_location(false);

    httplib::Request req;
    req.method = request.method;
    req.path = base.prefix + request.path;
    for (const auto& [name, value] : request.headers) req.headers.emplace(name, value);
    req.body = request.body;

    std::string body;
    bool too_large = false;
    req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
        if (body.size() + n > kMaxJsonBytes) {
            too_large = true;
            return false;
        }
        body.append(data, n);
        return true;
    };

    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    const auto started = std::chrono::steady_clock::now();
    const bool ok = client.send(req, res, error);
    const bool out_of_time = std::chrono::steady_clock::now() - started >= std::chrono::seconds(options.timeout_seconds);
    if (too_large) {
        throw Error(ErrorCode::bad_response, "the answer is larger than " + std::to_string(kMaxJsonBytes) +
                                                 " bytes; refused").with_http_status(res.status);
    }
    if (!ok) {
        const bool is_post = request.method != "GET";
        const std::string caution = is_post ? " The request may have reached the service: check before repeating it." : "";
        if (error == httplib::Error::ConnectionTimeout) {
            throw Error(ErrorCode::timeout, "connecting to " + base.origin + " timed out");
        }
        if (error == httplib::Error::Read && out_of_time) {
            throw Error(ErrorCode::timeout, "no complete answer from " + base.origin + " within " +
                                                std::to_string(options.timeout_seconds) + " s." + caution);
        }
        throw Error(ErrorCode::network, "request to " + base.origin + " failed: " + httplib::to_string(error) + "." +
                                            (error == httplib::Error::Connection ? "" : caution));
    }
    return {res.status, std::move(body)};
}

struct Poster::Impl {
    httplib::Client client;
    explicit Impl(const std::string& origin) : client(origin) {}
};

Poster::Poster(const std::string& origin, Timeouts t) : impl_(std::make_unique<Impl>(origin)) {
    auto& c = impl_->client;
    c.set_connection_timeout(t.connect_seconds, 0);
    c.set_read_timeout(t.read_seconds, 0);
    c.set_write_timeout(t.write_seconds, 0);
    c.set_follow_location(false);
    c.set_keep_alive(true);
    c.set_tcp_nodelay(true);  // else Nagle + delayed ACK cap a kept-alive connection at ~25 posts/s
}

Poster::~Poster() = default;

Poster::Result Poster::post(const std::string& path, const std::vector<std::pair<std::string, std::string>>& headers,
                            const std::string& body, const std::string& content_type) {
    httplib::Headers h;
    for (const auto& [name, value] : headers) h.emplace(name, value);
    auto res = impl_->client.Post(path.c_str(), h, body, content_type.c_str());
    if (!res) return {std::nullopt, httplib::to_string(res.error())};
    return {res->status, {}};
}

}  // namespace paywasm::client
