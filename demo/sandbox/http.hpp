// http.hpp — the sandbox's routes use the shared server plumbing (src/server/http.hpp, util.hpp).
#pragma once

#include "server/http.hpp"
#include "server/util.hpp"

namespace sandbox {
using namespace paywasm::server;  // HttpError, Router, send_json, now_ms, ... (one namespace of plumbing)
}  // namespace sandbox
