#include "server/transport.hpp"

#include <httplib.h>

#include <chrono>

#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"

namespace paywasm::server {

BaseUrl split_base_url(std::string_view url, const std::string& field) {
    auto scheme_end = url.find("://");
    std::string_view scheme = scheme_end == std::string_view::npos ? "" : url.substr(0, scheme_end);
    if (scheme != "http" && scheme != "https") {
        fail_validation(field, "must start with http:// or https:// (got '" + std::string(url.substr(0, 64)) + "')");
    }
    auto path_start = url.find('/', scheme_end + 3);
    BaseUrl out;
    out.origin = std::string(url.substr(0, path_start));
    if (out.origin.size() == scheme_end + 3) fail_validation(field, "has no host");
    if (path_start != std::string_view::npos) out.prefix = std::string(url.substr(path_start));
    while (!out.prefix.empty() && out.prefix.back() == '/') out.prefix.pop_back();
    if (out.prefix.find_first_of("?#") != std::string::npos) fail_validation(field, "must not have a query or fragment");
    return out;
}

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

}  // namespace paywasm::server
