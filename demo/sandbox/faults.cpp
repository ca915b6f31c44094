#include "faults.hpp"

#include <algorithm>

#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"

namespace sandbox {

namespace {

bool is_exchange_error(const std::string& kind) { return kind.rfind("error-", 0) == 0; }

const char* const kKinds[] = {"error-418", "error-419", "error-420", "error-421", "error-422",
                              "latency",   "500",       "malformed-json", "drop"};

std::string canonical_endpoint(const std::string& name) {
    if (name == "*" || name == "any") return "*";
    try {
        return std::string(paywasm::endpoint_by_name(name).name);
    } catch (const paywasm::Error&) {
    }
    // Also accept the path, as in "/exchanges/payments" or "/users/me".
    for (const auto& e : paywasm::endpoints()) {
        std::string path(e.path.substr(0, e.path.find('{')));
        while (path.size() > 1 && path.back() == '/') path.pop_back();
        if (name == path || name == e.path) return std::string(e.name);
    }
    std::string list = "*";
    for (const auto& e : paywasm::endpoints()) list += ", " + std::string(e.name);
    throw HttpError(400, "validation", "endpoint: '" + name.substr(0, 40) + "' is not one of " + list, "endpoint");
}

}  // namespace

void Faults::write(JsonWriter& w, const Fault& f) {
    w.begin_object().num("id", f.id).str("endpoint", f.endpoint).str("kind", f.kind).num("count", f.remaining);
    if (f.kind == "latency") w.num("ms", f.ms);
    if (is_exchange_error(f.kind)) w.str("form", f.form);
    w.end_object();
}

namespace {

// An integer member within [min, max], or HttpError(400) with `message`.
std::optional<long long> bounded(JsonValue spec, const char* name, long long min, long long max, const char* message) {
    JsonValue v = spec.member(name);
    if (!v.valid()) return std::nullopt;
    std::optional<long long> n = v.is_number() ? v.integer() : std::nullopt;
    if (!n || *n < min || *n > max) throw HttpError(400, "validation", message, name);
    return n;
}

}  // namespace

std::string Faults::add(JsonValue spec) {
    Fault f;
    f.endpoint = canonical_endpoint(need_string(spec, "endpoint"));
    f.kind = need_string(spec, "kind");
    if (std::none_of(std::begin(kKinds), std::end(kKinds), [&](const char* k) { return f.kind == k; })) {
        throw HttpError(400, "validation",
                        "kind: must be one of error-418, error-419, error-420, error-421, error-422, latency, 500, "
                        "malformed-json, drop",
                        "kind");
    }
    if (auto c = bounded(spec, "count", 1, 1000, "count: must be an integer from 1 to 1000")) {
        f.remaining = static_cast<int>(*c);
    }
    f.ms = 2000;
    if (auto m = bounded(spec, "ms", 0, 120000, "ms: must be an integer from 0 to 120000")) f.ms = static_cast<int>(*m);
    if (auto form = opt_string(spec, "form")) {
        if (*form != "status" && *form != "body" && *form != "body-200") {
            throw HttpError(400, "validation", "form: must be status, body or body-200", "form");
        }
        f.form = *form;
    }
    std::lock_guard<std::mutex> lk(mutex_);
    f.id = next_id_++;
    faults_.push_back(f);
    JsonWriter w;
    write(w, f);
    return w.take();
}

std::optional<Fault> Faults::take(const std::string& endpoint, bool exchange_error) {
    std::lock_guard<std::mutex> lk(mutex_);
    for (auto it = faults_.begin(); it != faults_.end(); ++it) {
        if (it->endpoint != "*" && it->endpoint != endpoint) continue;
        if (is_exchange_error(it->kind) != exchange_error) continue;
        Fault taken = *it;
        if (--it->remaining <= 0) faults_.erase(it);
        return taken;
    }
    return std::nullopt;
}

std::string Faults::list() {
    std::lock_guard<std::mutex> lk(mutex_);
    JsonWriter w;
    w.begin_array();
    for (const Fault& f : faults_) write(w, f);
    w.end_array();
    return w.take();
}

void Faults::clear() {
    std::lock_guard<std::mutex> lk(mutex_);
    faults_.clear();
}

void send_exchange_error(Response& res, int code, const std::string& form, const std::string& exchange) {
    std::string message(paywasm::exchange_error_message(code));
    if (code == 422) {
        std::string name = exchange.empty() ? "the exchange" : exchange;
        if (!exchange.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
        message += " " + name + " (10.00 USD)";
    }
    int status = form == "body" ? 400 : form == "body-200" ? 200 : code;
    send_json(res, status, JsonWriter().begin_object().num("code", code).str("message", message).end_object().take());
}

}  // namespace sandbox
