// src/server/signals.hpp — how a server program stops: SIGINT or SIGTERM drain the server (the
// answers under way finish), SIGPIPE never kills it.
#pragma once

#include <functional>

#include "server/server.hpp"

namespace paywasm::server {

// Call first in main: SIGINT and SIGTERM blocked in this thread and every thread started later
// (serve_until_signal takes them), their dispositions the default (a shell starts background jobs
// with SIGINT ignored), SIGPIPE ignored. `hangup`: SIGHUP blocked too, for serve_until_signal's
// `on_hangup` (else SIGHUP keeps its default: the process ends).
void block_stop_signals(bool hangup = false);
// Runs `server` until SIGINT or SIGTERM (also one that came before), then `on_signal` and
// server.drain(); returns once the server stopped. With `on_hangup` (and block_stop_signals(true)),
// each SIGHUP calls it and the server goes on.
void serve_until_signal(Server& server, const std::function<void()>& on_signal = {},
                        const std::function<void()>& on_hangup = {});

}  // namespace paywasm::server
