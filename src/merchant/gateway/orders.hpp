// The merchant's operations on orders, one implementation for both of their callers: the app API
// (app_api.cpp, the shop's server with its bearer) and the console (console*.cpp, a logged-in
// merchant). Each action is audited (ConsoleStore::audit) under the actor that asked; each read gives a
// typed record (order_record.cpp) that the app API writes as JSON and the console renders as HTML:
// no page reads the store itself.
//   listing      GET /v1/sessions?state=&q=&cursor=&limit=   (keyset pages, an opaque cursor)
//   export       GET /v1/sessions.csv                        (streamed, constant memory)
//   an order     GET /v1/sessions/{id}                       (order_json of order_record)
//   events       GET /v1/events/{id}, POST /v1/events/{id}/resend, POST /v1/events/resend-failed
//   actions      resolve an attempt, accept an underpayment, add a note
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/gateway.hpp"
#include "rules/overview.hpp"
#include "paywasm/status.hpp"

namespace merchant {

// Who asked: "app" (the app API's bearer) or "console:<user>", and from which address.
struct Actor {
    std::string name, address;
};

// ---- reads (order_record.cpp): typed records the app API writes as JSON and the console renders ----

// An order's record: the session, its transactions, the merchant's notes, and the amounts owed of its
// latest status (events.hpp owed_of). GET /v1/sessions/{id} writes it (order_json); the console's
// order page renders the same record.
struct OrderRecord {
    Session session;
    std::vector<TransactionRow> transactions;
    std::vector<NoteRow> notes;
    std::optional<paywasm::Owed> owed;
};
// The record of session `id` (nullopt: no such session), or of a session already read.
std::optional<OrderRecord> order_record(Gateway& gw, const std::string& id);
OrderRecord order_record(Gateway& gw, Session s);
// An event sent to the shop's app, with what a page shows of its body (its type and session, ""
// when the body names none) and, in an order's history, every delivery of it, oldest first.
struct SentEvent {
    OutboxRow row;
    std::string type, session_id;
    std::vector<DeliveryRow> deliveries;
};
// What happened to an order, for its timeline: its QR codes, verified webhooks, resolutions, and the
// events sent to the shop's app with their deliveries (one query for every delivery of the order).
struct OrderHistory {
    std::vector<QrRow> qr_codes;
    std::vector<WebhookRow> webhooks;
    std::vector<ResolutionRow> resolutions;
    std::vector<SentEvent> events;
};
OrderHistory order_history(Gateway& gw, const std::string& session_id);

// A session as the app API writes it: its order and status; order_json adds the checkout, latest
// status, transactions, attempts, payable, and the merchant's notes and acceptance.
std::string session_json(Gateway& gw, const Session& s);
std::string order_json(Gateway& gw, const OrderRecord& r);
// session_json, or (`with_detail`) order_json of its record.
std::string session_json(Gateway& gw, const Session& s, bool with_detail);

// The checkout view the widget draws from (GET /v1/checkout/{id}, and inside the hosted checkout
// page: hosted_page.cpp): the order, the offered methods, the merchant's public key and service URL,
// the status so far, the attempts and `payable`. No secret: it is the session id's capability.
std::string checkout_view(const Gateway& gw, const Session& s);

// The events page (GET /v1/events, the console's events): the 200 newest, or with `failed_first` the
// undelivered ones that failed first (EventStore::events_page).
std::vector<OutboxRow> event_list(Gateway& gw, bool failed_first);
// The same rows (failed first) as the console's events page shows them (no deliveries read).
std::vector<SentEvent> sent_events(Gateway& gw);
// One event as GET /v1/events/{id} writes it, with every delivery (HttpError 404: no such event).
std::string event_json(Gateway& gw, const std::string& event_id);
// The 500 newest subscription debits the gateway asked for.
std::vector<DebitRow> debit_list(Gateway& gw);
// One page of the audit log, newest first (100 entries), after the opaque `cursor` ("" for the
// first page; HttpError 400 on "cursor" when it is not one of ours), and the next page's cursor.
struct AuditPage {
    std::vector<AuditRow> rows;
    std::optional<std::string> next;
};
AuditPage audit_page(Gateway& gw, const std::string& cursor);
// The overview's figures (console_overview.cpp draws them): the tally of the orders created on day
// `since_day` or later, the sessions that need attention, the partly paid ones, the events refused
// `failures` times or more.
struct OverviewFigures {
    OverviewTally tally;
    std::int64_t attention = 0, partial = 0, failing = 0;
};
OverviewFigures overview_figures(Gateway& gw, std::int64_t since_day, std::int64_t failures);

// The list query of a request's parameters state, q, cursor and limit (1..200, default 50);
// HttpError 400 naming the parameter otherwise.
SessionQuery session_query(const Request& req);
// The opaque cursor of a page's last row, and back (nullopt: not one of ours).
std::string encode_cursor(std::int64_t created_at, const std::string& id);
std::optional<std::pair<std::int64_t, std::string>> decode_cursor(std::string_view cursor);
// One page of the query's sessions, and the cursor of the next one (none: this is the last).
struct SessionsPage {
    std::vector<Session> rows;
    std::optional<std::string> next;
};
SessionsPage sessions_page(Gateway& gw, const SessionQuery& query);
// One page as JSON: {"sessions": [...], "nextCursor": "..." | null}; state=attention writes each
// session with its detail (the attempts that put it there).
std::string sessions_page_json(Gateway& gw, const SessionQuery& query);

// The CSV export of every session the query's state and q select (its cursor and limit ignored),
// newest first, as a streamed answer: pages of 1000 rows read on the gateway's stream threads, each
// written as one chunk, so memory stays flat whatever the count. Every cell is quoted (csv_cell); a
// formula's first character (= + - @ tab CR) where any locale's spreadsheet may start a cell (the
// text's start, after , ; tab | or a line break, spaces and quotes skipped) gets a ' before it.
void send_sessions_csv(Gateway& gw, Response& res, SessionQuery query);
std::string csv_cell(std::string_view text);

// ---- actions (each audited; HttpError for a refusal: 404 unknown, 409 not now) ----
void resend_event(Gateway& gw, const std::string& event_id, const Actor& actor);
std::int64_t resend_failed(Gateway& gw, std::int64_t since, const Actor& actor);
void resolve_attempt(Gateway& gw, const std::string& session_id, const std::string& attempt_id,
                     const std::string& resolution, const std::string& note, const Actor& actor);
// Every attempt raised as attention before `before` and not resolved (no verified outcome), resolved
// as `resolution` (release or not_paid only: "paid" is never said in bulk) with `note`, each as
// resolve_attempt() does it (its own event, under its session's lock); how many. One audit entry.
std::int64_t resolve_stuck(Gateway& gw, std::int64_t before, const std::string& resolution, const std::string& note,
                           const Actor& actor);
void accept_underpayment(Gateway& gw, const std::string& session_id, const std::string& note, const Actor& actor);
void add_note(Gateway& gw, const std::string& session_id, const std::string& note, const Actor& actor);
// A merchant's note: 1 to 2000 characters (HttpError 400 naming `field` otherwise).
void check_note(const std::string& note, const char* field = "note");
// 400 validation on `field` unless `text` is valid UTF-8 without NUL (a search's q, a note): what
// the database could not compare or store is refused before it is asked.
void check_text(const std::string& text, const char* field);

}  // namespace merchant
