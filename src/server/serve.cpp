#include "server/serve.hpp"

#include <pthread.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace paywasm::server {

int bind_or_throw(httplib::Server& server, const std::string& host, int port) {
    // cpp-httplib sets SO_REUSEPORT by default, which lets a second process bind a port that is
    // already listening and take a share of its connections without any error (two gateways, or a
    // gateway and a sandbox, answering each other's requests). SO_REUSEADDR alone: a restart can
    // bind again while old connections are in TIME_WAIT, a port in use is refused.
    server.set_socket_options([](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    if (port == 0) {
        const int bound = server.bind_to_any_port(host);
        if (bound <= 0) throw std::runtime_error("cannot bind " + host);
        return bound;
    }
    if (!server.bind_to_port(host, port)) {
        throw std::runtime_error("cannot bind " + host + ":" + std::to_string(port) + " (in use? choose another port)");
    }
    return port;
}

std::string http_origin(const std::string& host, int port) {
    const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return "http://" + shown + ":" + std::to_string(port);
}

std::string loggable_path(const std::string& path) {
    std::string out = path.substr(0, 200);
    // A checkout session id is the shopper's capability for that checkout: its first 6 characters
    // are enough to follow a request in the log.
    for (std::size_t at = out.find("/cs_"); at != std::string::npos; at = out.find("/cs_", at + 1)) {
        std::size_t end = out.find('/', at + 1);
        if (end == std::string::npos) end = out.size();
        if (end - at > 10) out.replace(at + 10, end - at - 10, "...");
    }
    return out;
}

void log_access(httplib::Server& server) {
    server.set_logger([](const httplib::Request& req, const httplib::Response& res) {
        std::fprintf(stderr, "%s %s %d\n", req.method.c_str(), loggable_path(req.path).c_str(), res.status);
    });
}

void serve_until_signal(httplib::Server& server, const sigset_t& signals, const std::function<void()>& on_signal) {
    std::thread waiter([&] {
        int sig = 0;
        sigwait(&signals, &sig);
        if (sig == 0) return;
        if (on_signal) on_signal();
        // A signal right after bind: stop() does nothing until listen_after_bind() runs.
        for (int i = 0; i < 5000 && !server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        server.stop();
    });
    server.listen_after_bind();
    // Stopped for another reason than a signal: wake the waiter so it can end.
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
}

}  // namespace paywasm::server
