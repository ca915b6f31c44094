// src/server/iso8601.hpp — the page kit's reader of a UTC time as the APIs and the console's forms
// write it (the writer is util.hpp's iso8601()). No I/O, no time zone of the host's.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace paywasm::server {

// Which forms a field takes.
enum class Iso8601 {
    // 2026-05-01, 2026-05-01T10:00, 2026-05-01T10:00:00, each with an optional Z; the one with
    // seconds also with a fraction of 1 to 9 digits before the Z (2026-05-01T10:00:00.250Z).
    // A form's datetime-local input sends the minutes form; an API client any of them.
    any,
    // A full UTC time only: 2026-12-31T23:59:59Z, with an optional fraction (.sss) before the Z.
    seconds_z,
};

// `text` as epoch milliseconds (the fraction truncated to milliseconds); nullopt for any other text:
// another shape, a month out of 1..12, a day past its month's end (leap years counted), an hour past
// 23, a minute or second past 59, a year before 1970 or after 9999, or spaces anywhere.
std::optional<std::int64_t> parse_iso8601(std::string_view text, Iso8601 form = Iso8601::any);

}  // namespace paywasm::server
