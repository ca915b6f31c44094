// src/server/serve.hpp — starting and stopping a server the same way in every program (the sandbox,
// the gateway): bind, the access log, the "listening on" address, and a clean stop on a signal.
#pragma once

#include <httplib.h>
#include <signal.h>

#include <functional>
#include <string>

namespace paywasm::server {

// Binds `host:port` (port 0: any free port) and returns the bound port; throws std::runtime_error
// naming the address when it cannot (in use by any process, no such address). Never shares a port
// (no SO_REUSEPORT).
int bind_or_throw(httplib::Server& server, const std::string& host, int port);

// "http://HOST:PORT", an IPv6 host in brackets.
std::string http_origin(const std::string& host, int port);

// The access log on stderr: method, path (no query string) and status. Never headers or bodies:
// they carry tokens; a checkout session id in the path ("/cs_...") is cut to its first 6 characters.
void log_access(httplib::Server& server);
std::string loggable_path(const std::string& path);

// Serves (listen_after_bind) until one of `signals` arrives; the caller blocked them in every thread
// (pthread_sigmask) before starting any. Then `on_signal` runs and the server stops, also when the
// signal came before the server was running. Returns once the server stopped.
void serve_until_signal(httplib::Server& server, const sigset_t& signals, const std::function<void()>& on_signal = {});

}  // namespace paywasm::server
