// src/merchant/rules/notify.hpp — word to the merchant by e-mail (issue 44): which events a console user
// may be mailed about, and the mail each one makes. Pure: no database, no network. The mail rows are
// queued with the event, in its transaction (store_mail.cpp), and sent by the
// mailer (mailer.cpp) through the operator's SMTP relay.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace merchant {

// The kinds a user chooses from (notify_prefs.kinds):
//   paid       checkout.succeeded, checkout.paid_elsewhere, checkout.underpayment_accepted
//   partial    checkout.partially_paid (part of the amount arrived)
//   attention  checkout.attention_needed (an attempt with no verified outcome in time)
//   refused    an event the shop's app refused (or did not answer) kFailingEventAttempts times
inline constexpr const char* kNotifyKinds[] = {"paid", "partial", "attention", "refused"};

// Failed deliveries in a row after which a pending event counts as refused by the app: the
// "refused" mail (store_mail.cpp) and the console overview's "needs attention" (console_overview.cpp;
// the forwarder keeps retrying it).
inline constexpr std::int64_t kFailingEventAttempts = 3;

// "paid,partial" → {"paid", "partial"}; a kind not in kNotifyKinds, or none: std::nullopt.
std::optional<std::vector<std::string>> parse_notify_kinds(std::string_view csv);

struct Mail {
    std::string kind;     // one of kNotifyKinds
    std::string subject;  // one line, printable
    std::string text;     // plain text, lines ending in \n
};

// The mail an event's JSON (events.hpp: the body forwarded to the app) makes, or std::nullopt when
// its type is no kind's. `shop` names the shop in the subject ("" for none).
std::optional<Mail> mail_for_event(std::string_view event_json, std::string_view shop);
// The mail for an event the app refused `attempts` times, the last error `error`.
Mail refused_mail(std::string_view event_json, std::int64_t attempts, std::string_view error, std::string_view shop);

// An RFC 5322 message of `mail` from `from` to `to`, dated `epoch_ms`, with `message_id` (inside
// its <...>). Header values are made single printable lines; the body's lines end in CRLF, a line starting with '.' is sent as is (libcurl
// dot-stuffs it).
std::string mail_message(const Mail& mail, std::string_view from, std::string_view to, std::int64_t epoch_ms,
                         std::string_view message_id);

}  // namespace merchant
