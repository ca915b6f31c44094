// The merchant's console (console.hpp): its routes, its login, its pages.
#include "console.hpp"

#include <algorithm>
#include <map>

#include "console_assets.hpp"
#include "console_auth.hpp"
#include "console_html.hpp"
#include "console_http.hpp"
#include "console_overview.hpp"
#include "events.hpp"
#include "order_state.hpp"
#include "orders.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/decimal.hpp"
#include "paywasm/error.hpp"
#include "paywasm/status.hpp"
#include "server/client_address.hpp"
#include "server/static_files.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {

using paywasm::server::Html;

constexpr const char* kLayout = R"html(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}} - paywasm console</title><link rel="stylesheet" href="{{css}}"></head>
<body><a class="skip" href="#main">Skip to content</a>
{{header}}<main id="main" tabindex="-1"><h1>{{title}}</h1>{{flash}}{{main}}</main></body></html>
)html";

// The flash messages a redirect names by key (never a text from the request).
const std::map<std::string, const char*>& flashes() {
    static const std::map<std::string, const char*> m = {
        {"resent", "The event is queued for delivery again, with the same id."},
        {"resent_failed", "Every failed event since that time is queued for delivery again."},
        {"resolved", "The attempt is resolved; the shop's app is told."},
        {"resolved_stuck", "Every stuck attempt raised before that time is resolved; the shop's app is told of each."},
        {"accepted", "The underpayment is accepted; the shop's app is told."},
        {"noted", "The note is added."},
        {"logged_out", "You are logged out."},
        {"had_failures", "Wrong passwords were tried for your account since your last login: see the audit log."},
        {"was_locked", "Your account was locked after wrong passwords since your last login: see the audit log."},
    };
    return m;
}

struct Signed {
    Store::ConsoleSession session;
    std::string token;
};

using namespace console_html;  // money, when, link, state_badge, row, table

// <input type="hidden" name="NAME" value="..."> for the names the console's forms use.
Html hidden_csrf(const Signed& login) {
    return Html::markup("<input type=\"hidden\" name=\"csrf\" value=\"") + Html::text(login.session.csrf) + Html::markup("\">");
}

class Console {
public:
    Console(Gateway& gw, std::string origin, bool explicit_origin, std::vector<std::string> hosts)
        : gw_(gw), origin_(std::move(origin)), hosts_(std::move(hosts)), explicit_origin_(explicit_origin) {
        secure_ = origin_.rfind("https://", 0) == 0;
        cookie_name_ = secure_ ? "__Host-paywasm_console" : "paywasm_console";
        login_cookie_ = secure_ ? "__Host-paywasm_login" : "paywasm_login";
        files_.add("console.css", kConsoleCss);
    }

    void routes(Router& r);

private:
    // ---- auth ----
    std::optional<Signed> auth(Req req) {
        const std::string token = cookie(req, cookie_name_);
        auto s = logged_in(gw_.store, token, now_ms());
        if (!s) return std::nullopt;
        return Signed{*s, token};
    }
    // A page's login, or a redirect to /login (and nullopt).
    std::optional<Signed> need_login(Req req, Res res) {
        auto login = auth(req);
        if (!login) {
            res.status = 303;
            res.set_header("Location", "/login");
            res.set_header("Cache-Control", "no-store");
            res.set_content("", "text/plain");
        }
        return login;
    }
    // A state-changing request: a login, the same origin, and the login's CSRF token (403).
    Signed need_post(Req req, const Form& form) {
        auto login = auth(req);
        if (!login) throw HttpError(401, "unauthorized", "log in to the console first");
        same_origin(req);
        if (!paywasm::constant_time_equal(field(form, "csrf"), login->session.csrf)) {
            throw HttpError(403, "csrf", "this form is stale or was not sent by the console; reload the page and try again");
        }
        return *login;
    }
    // A form's Origin is the console's (check_form_origin): --console-origin when given, else the
    // origin the browser asked for (http:// and its Host, one of the allowed hosts).
    void same_origin(Req req) const {
        check_form_origin(req, explicit_origin_ ? origin_ : "http://" + req.get_header_value("Host"));
    }
    std::string cookie_attrs() const { return std::string("; Path=/; HttpOnly; SameSite=Strict") + (secure_ ? "; Secure" : ""); }
    Actor actor(Req req, const Signed& login) const { return Actor{"console:" + login.session.user, req.remote_addr}; }

    // ---- pages ----
    void page(Res res, int status, const std::string& title, const Signed* login, const Html& main, Req req,
              const std::string& current) {
        paywasm::server::Csp csp;
        csp.scripts = false;  // the console serves no script at all
        paywasm::server::page_headers(res, csp);
        Html flash;
        const auto it = flashes().find(req.get_param_value("done"));
        if (it != flashes().end()) {
            flash = Html::element("p", {{"class", "banner ok"}, {"role", "status"}}, it->second);
        }
        const std::string css = files_.url("/assets/", "console.css");
        res.status = status;
        res.set_content(paywasm::server::render(kLayout, {{"title", Html::text(title)}, {"css", Html::text(css)},
                                                         {"header", header(login, current)}, {"flash", flash},
                                                         {"main", main}}),
                        "text/html; charset=utf-8");
    }
    Html header(const Signed* login, const std::string& current) {
        if (!login) return Html();
        Html items;
        for (auto [href, text] : {std::pair<const char*, const char*>{"/", "Overview"}, {"/orders", "Orders"},
                                  {"/orders?state=attention", "Needs attention"}, {"/events", "Events"},
                                  {"/subscriptions", "Subscriptions"}, {"/audit", "Audit log"}}) {
            Html a = current == href ? Html::element("a", {{"href", href}, {"aria-current", "page"}}, text) : link(href, text);
            items += Html::element("li", {}, a);
        }
        Html who = Html::element("span", {}, "Signed in as " + login->session.user) +
                   Html::element("form", {{"class", "inline"}, {"method", "post"}, {"action", "/logout"}},
                                 hidden_csrf(*login) + Html::element("button", {{"class", "quiet"}, {"type", "submit"}}, "Log out"));
        return Html::element("header", {},
                             Html::element("nav", {{"aria-label", "Console"}}, Html::element("ul", {}, items)) +
                                 Html::element("div", {{"class", "who"}}, who));
    }
    void error_page(Req req, Res res, const HttpError& e) {
        auto login = auth(req);
        page(res, e.status, "Not done", login ? &*login : nullptr,
             Html::element("p", {{"class", "banner bad"}, {"role", "alert"}}, e.what()) +
                 Html::element("p", {}, link("/orders", "Back to the orders")),
             req, "");
    }
    // A POST's answer: 303 to `to` (a path of the console's own) with the flash key.
    static void see_other(Res res, const std::string& to, const char* done) {
        res.status = 303;
        res.set_header("Location", to + (to.find('?') == std::string::npos ? "?" : "&") + "done=" + done);
        res.set_content("", "text/plain");
    }
    // Runs a form's action; a refusal becomes the error page (HTML), not JSON.
    template <class F>
    void action(Req req, Res res, F f) {
        try {
            f();
        } catch (const HttpError& e) {
            error_page(req, res, e);
        } catch (const paywasm::Error& e) {
            error_page(req, res, HttpError(400, "validation", e.what()));
        }
    }

    void login_page(Req req, Res res, int status, const char* message);
    void overview(Req req, Res res, const Signed& login);
    void orders(Req req, Res res, const Signed& login);
    void order(Req req, Res res, const Signed& login, const std::string& id);
    void events(Req req, Res res, const Signed& login);
    void subscriptions(Req req, Res res, const Signed& login);
    void audit(Req req, Res res, const Signed& login);

    Gateway& gw_;
    std::string origin_, cookie_name_, login_cookie_;
    std::vector<std::string> hosts_;
    bool explicit_origin_ = false, secure_ = false;
    paywasm::server::StaticFiles files_;
};

void Console::login_page(Req req, Res res, int status, const char* message) {
    // Login CSRF: the form carries a token that must equal its cookie's (a page of another origin
    // can send the form, but cannot read or set the cookie).
    const std::string token = paywasm::server::random_token("");
    res.set_header("Set-Cookie", login_cookie_ + "=" + token + cookie_attrs() + "; Max-Age=3600");
    Html form = Html::markup("<input type=\"hidden\" name=\"login_token\" value=\"") + Html::text(token) + Html::markup("\">");
    form += Html::markup("<label for=\"name\">User name</label><input id=\"name\" name=\"name\" autocomplete=\"username\" required>");
    form += Html::markup(
        "<label for=\"password\">Password</label><input id=\"password\" name=\"password\" type=\"password\" "
        "autocomplete=\"current-password\" required>");
    form += Html::element("button", {{"type", "submit"}}, "Log in");
    Html main;
    if (message) main += Html::element("p", {{"class", "banner bad"}, {"role", "alert"}}, message);
    main += Html::element("form", {{"class", "stack login"}, {"method", "post"}, {"action", "/login"}}, form);
    page(res, status, "Log in", nullptr, main, req, "");
}

void Console::overview(Req req, Res res, const Signed& login) {
    page(res, 200, "Overview", &login, overview_html(gw_.store, now_ms()), req, "/");
}

void Console::orders(Req req, Res res, const Signed& login) {
    Store::SessionQuery query = session_query(req);
    const SessionsPage page_of = sessions_page(gw_, query);
    const std::vector<Session>& rows = page_of.rows;
    const std::optional<std::string>& next = page_of.next;
    const auto with = [&](const std::string& state, const std::string& q, const std::string& cursor) {
        std::string href = "/orders";
        std::string sep = "?";
        const auto add = [&](const char* k, const std::string& v) {
            if (v.empty()) return;
            href += sep + k + "=" + url_encode(v);
            sep = "&";
        };
        add("state", state);
        add("q", q);
        add("cursor", cursor);
        return href;
    };
    Html filters;
    filters += Html::element("li", {}, query.state.empty() ? Html::element("a", {{"href", with("", query.q, "")}, {"aria-current", "page"}}, "All")
                                                           : link(with("", query.q, ""), "All"));
    for (std::string_view s : kOrderStates) {
        const std::string st(s);
        const std::string label = st == "attention" ? "Needs attention" : st == "partial" ? "Partly paid" : st;
        filters += Html::element("li", {}, query.state == st ? Html::element("a", {{"href", with(st, query.q, "")}, {"aria-current", "page"}}, label)
                                                             : link(with(st, query.q, ""), label));
    }
    Html search = Html::markup("<label for=\"q\">Search by offerId (or its start), session id or transaction id</label> <input id=\"q\" name=\"q\" value=\"") +
                  Html::text(query.q) + Html::markup("\"> ");
    if (!query.state.empty()) search += Html::markup("<input type=\"hidden\" name=\"state\" value=\"") + Html::text(query.state) + Html::markup("\">");
    search += Html::element("button", {{"type", "submit"}}, "Search");
    Html body;
    const std::int64_t now = now_ms();
    for (const auto& s : rows) {
        body += row({when(s.created_at), link("/orders/" + s.id, s.offer_id), state_badge(order_state(s, now)), ship_to_cell(ship_to(s)),
                     Html::text(s.status.state), Html::text(money(s.amount, s.currency)), Html::text(s.status.method.value_or("")),
                     Html::element("span", {{"class", "id"}}, s.status.transaction_id.value_or(""))});
    }
    Html main = Html::element("nav", {{"aria-label", "Filter by state"}}, Html::element("ul", {{"class", "filters"}}, filters));
    main += Html::element("form", {{"method", "get"}, {"action", "/orders"}, {"role", "search"}}, search);
    main += rows.empty() ? Html::element("p", {}, "No order matches.")
                         : table("Orders, newest first", {"Created", "Order", "State", "Ship to", "Status", "Total", "Method", "Transaction"}, body);
    if (next) main += Html::element("p", {}, link(with(query.state, query.q, *next), "Next page"));
    if (query.state == "attention" && !rows.empty()) {
        // Many attempts that never reported anything (tabs closed mid-payment), resolved at once as
        // POST /v1/sessions/resolve-stuck would: never "paid" in bulk, no resolution chosen for you.
        main += Html::element(
            "form", {{"class", "stack"}, {"method", "post"}, {"action", "/orders/resolve-stuck"}},
            hidden_csrf(login) +
                Html::markup("<label for=\"before\">Resolve every stuck attempt raised before (UTC)</label>"
                             "<input id=\"before\" name=\"before\" type=\"datetime-local\" required>"
                             "<label for=\"bulk-r\">Resolution</label><select id=\"bulk-r\" name=\"resolution\" required>"
                             "<option value=\"\">Choose what the portal shows for all of them</option>"
                             "<option value=\"release\">Release: the shoppers may pay again</option>"
                             "<option value=\"not_paid\">Not paid: close the orders</option></select>"
                             "<label for=\"bulk-n\">Note</label><input id=\"bulk-n\" name=\"note\" required maxlength=\"2000\">") +
                Html::element("button", {{"type", "submit"}}, "Resolve stuck attempts"));
    }
    if (query.state != "attention") {
        std::string csv = "/orders.csv";
        std::string sep = "?";
        if (!query.state.empty()) { csv += sep + "state=" + query.state; sep = "&"; }
        if (!query.q.empty()) csv += sep + "q=" + url_encode(query.q);
        main += Html::element("p", {}, link(csv, "Export these orders as CSV"));
    }
    page(res, 200, "Orders", &login, main, req, query.state == "attention" ? "/orders?state=attention" : "/orders");
}

void Console::order(Req req, Res res, const Signed& login, const std::string& id) {
    auto found = gw_.store.session(id);
    if (!found) throw HttpError(404, "not_found", "no order with this id");
    const Session& s = *found;
    const std::int64_t now = now_ms();
    const std::string state(order_state(s, now));
    const auto status = paywasm::server::read_json(status_json(s));
    const auto amount_of = [&](const char* name) -> std::string {
        if (!status) return "-";
        auto v = status->root().member(name);
        if (!v.valid() || v.is_null()) return "not known yet";
        return string_or(v.member("amount")) + " " + string_or(v.member("currency"));
    };
    Html main;
    // What the merchant should know first.
    if ((s.status.state == "partial" || s.status.state == "partial_closed") && !s.status.success && !s.underpayment_accepted_at) {
        Html f = hidden_csrf(login) +
                 Html::markup("<label for=\"accept-note\">Why you accept it (kept in the audit log)</label>"
                              "<input id=\"accept-note\" name=\"note\" required maxlength=\"2000\">") +
                 Html::element("button", {{"type", "submit"}}, "Accept the underpayment");
        main += Html::element("section", {{"class", "banner"}, {"aria-labelledby", "partial-h"}},
                              Html::element("h2", {{"id", "partial-h"}}, "Partly paid") +
                                  Html::element("p", {}, "Arrived " + amount_of("received") + " of " + amount_of("expected") +
                                                             "; missing " + amount_of("remaining") + ".") +
                                  Html::element("form", {{"class", "stack"}, {"method", "post"}, {"action", "/orders/" + s.id + "/accept"}}, f));
    }
    if (s.underpayment_accepted_at) {
        main += Html::element("p", {{"class", "banner ok"}}, "Underpayment accepted " + iso8601(*s.underpayment_accepted_at) + ".");
    }
    Html facts;
    const auto fact = [&facts](const char* dt, const Html& dd) { facts += Html::element("dt", {}, dt) + Html::element("dd", {}, dd); };
    fact("Order (offerId)", Html::text(s.offer_id));
    fact("Session", Html::element("span", {{"class", "id"}}, s.id));
    fact("State", state_badge(state));
    fact("Service status", Html::text(s.status.status ? std::to_string(*s.status.status) + " (" + s.status.state + ")" : "none yet"));
    fact("Order total", Html::text(money(s.amount, s.currency)));
    fact("Expected", Html::text(amount_of("expected")));
    fact("Arrived", Html::text(amount_of("received")));
    fact("Missing", Html::text(amount_of("remaining")));
    fact("Created", when(s.created_at));
    fact("Expires", when(s.expires_at));
    main += Html::element("dl", {{"class", "facts"}}, facts);

    // What to ship and to whom, then the cart as the shop sent it.
    main += ship_to_section(ship_to(s));
    Html cart;
    try {
        const auto checkout = paywasm::from_json<paywasm::Checkout>(s.checkout_json);
        for (const auto& item : checkout.cart) {
            cart += row({Html::text(item.name), Html::text(item.quantity.to_string()), Html::text(money(paywasm::amount_text({item.price, checkout.currency}), checkout.currency))});
        }
    } catch (const paywasm::Error&) {
    }
    main += Html::element("h2", {}, "Cart") + table("The cart", {"Item", "Quantity", "Price"}, cart);

    // Transactions and attempts.
    Html txs;
    for (const auto& t : gw_.store.transactions(s.id)) {
        txs += row({Html::element("span", {{"class", "id"}}, t.id), Html::text(std::to_string(t.status) + " (" + t.state + ")"),
                    Html::text(t.native_amount ? money(*t.native_amount, t.native_currency.value_or("")) : "-"),
                    Html::text(t.received_amount ? money(*t.received_amount, t.currency.value_or("")) : "-"), when(t.updated_at)});
    }
    main += Html::element("h2", {}, "Transactions") +
            table("Transactions the service signed", {"Transaction", "Status", "Paid", "Received", "Updated"}, txs);
    Html attempts;
    for (const auto& a : s.attempts) {
        const auto st = attempt_state(a);
        Html act = Html::text("-");
        if (blocks_pay(st) && (!a.resolution || a.conflict_at)) {
            const std::string fid = "res-" + a.id;
            act = Html::element(
                "form", {{"class", "stack"}, {"method", "post"}, {"action", "/orders/" + s.id + "/resolve"}},
                hidden_csrf(login) + Html::markup("<input type=\"hidden\" name=\"attempt\" value=\"") + Html::text(a.id) +
                    Html::markup("\">") + Html::element("label", {{"for", fid + "-r"}}, "Resolution") +
                    Html::element("select", {{"id", fid + "-r"}, {"name", "resolution"}, {"required", "required"}},
                                  Html::markup("<option value=\"\">Choose what the portal shows</option>"
                                               "<option value=\"paid_elsewhere\">Paid (checked in the service's portal)</option>"
                                               "<option value=\"release\">Release: the shopper may pay again</option>"
                                               "<option value=\"not_paid\">Not paid: close the order</option>")) +
                    Html::element("label", {{"for", fid + "-n"}}, "Note") +
                    Html::element("input", {{"id", fid + "-n"}, {"name", "note"}, {"required", "required"}, {"maxlength", "2000"}}, "") +
                    Html::element("button", {{"type", "submit"}}, "Resolve attempt"));
        }
        attempts += row({Html::element("span", {{"class", "id"}}, a.id), Html::text(a.method), when(a.created_at),
                         Html::text(std::string(to_string(st)) + (needs_attention(a) ? " (needs attention)" : "")),
                         a.transaction_id ? Html::element("span", {{"class", "id"}}, *a.transaction_id) + Html::text(" (verified)")
                                          : Html::element("span", {{"class", "id"}}, a.reported_transaction_id.value_or("")) +
                                                Html::text(a.reported_transaction_id ? " (reported by the browser, not verified)" : ""), act});
    }
    main += Html::element("h2", {}, "Payment attempts") +
            table("What the shopper's browser tried", {"Attempt", "Method", "Started", "State", "Transaction", "Action"}, attempts);

    // The timeline, in plain language.
    std::vector<std::pair<std::int64_t, Html>> lines;
    lines.emplace_back(s.created_at, Html::text("The shop created the order: " + money(s.amount, s.currency) + "."));
    for (const auto& a : s.attempts) {
        lines.emplace_back(a.created_at, Html::text("The shopper's browser started a " + a.method + " payment (attempt " + a.id + ")."));
        if (a.attention_at) lines.emplace_back(*a.attention_at, Html::text("No verified outcome in time: the shop's app was told it needs attention."));
    }
    for (const auto& q : gw_.store.session_qr_codes(s.id)) {
        lines.emplace_back(q.created_at, Html::text("A QR code was made (order " + q.order_id + ")" +
                                                    (q.transaction_id ? ", transaction " + *q.transaction_id : std::string()) +
                                                    (q.replaced ? "; a newer code replaced it." : ".")));
    }
    for (const auto& w : gw_.store.session_webhooks(s.id)) {
        const auto info = paywasm::describe_status(static_cast<int>(w.status));
        lines.emplace_back(w.received_at, Html::text("The service signed status " + std::to_string(w.status) + " (" + std::string(info.label) +
                                                     ") for transaction " + w.transaction_id + "; decided: " + w.outcome + "."));
    }
    for (const auto& r : gw_.store.resolutions(s.id)) {
        lines.emplace_back(r.created_at, Html::text(r.actor + " resolved attempt " + r.attempt_id + " as " + r.resolution + ": " + r.note));
    }
    for (const auto& n : gw_.store.notes(s.id)) lines.emplace_back(n.created_at, Html::text("Note by " + n.actor + ": " + n.note));
    if (s.underpayment_accepted_at) lines.emplace_back(*s.underpayment_accepted_at, Html::text("The merchant accepted the underpayment."));
    for (const auto& e : gw_.store.session_events(s.id)) {
        const auto body = paywasm::server::read_json(e.body);
        const std::string type = body && body->root().is_object() ? string_or(body->root().member("type"), "event") : "event";
        Html deliveries;
        for (const auto& d : gw_.store.deliveries(e.id)) {
            deliveries += Html::element("li", {}, when(d.finished_at) + Html::text(d.http_status ? "HTTP " + std::to_string(*d.http_status) : "no answer") +
                                                      Html::text(d.error ? ": " + *d.error : ""));
        }
        if (deliveries.str().empty()) deliveries = Html::element("li", {}, "not delivered yet");
        Html resend = Html::element("form", {{"class", "inline"}, {"method", "post"}, {"action", "/events/" + e.id + "/resend"}},
                                    hidden_csrf(login) + Html::markup("<input type=\"hidden\" name=\"back\" value=\"") + Html::text(s.id) +
                                        Html::markup("\">") +
                                        Html::element("button", {{"class", "quiet"}, {"type", "submit"}, {"aria-label", "Resend event " + e.id}}, "Resend"));
        lines.emplace_back(e.created_at, Html::text("Sent to the shop's app: " + type + " (" + e.id + "), " + e.state + ". ") + resend +
                                             Html::element("ul", {{"aria-label", "Delivery attempts of " + e.id}}, deliveries));
    }
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    Html timeline;
    for (const auto& [t, text] : lines) timeline += Html::element("li", {}, when(t) + text);
    main += Html::element("h2", {}, "Timeline") + Html::element("ol", {{"class", "timeline"}}, timeline);

    main += Html::element("h2", {}, "Add a note") +
            Html::element("form", {{"class", "stack"}, {"method", "post"}, {"action", "/orders/" + s.id + "/note"}},
                          hidden_csrf(login) +
                              Html::markup("<label for=\"note\">Note</label><textarea id=\"note\" name=\"note\" required maxlength=\"2000\" rows=\"3\"></textarea>") +
                              Html::element("button", {{"type", "submit"}}, "Add note"));
    page(res, 200, "Order " + s.offer_id, &login, main, req, "/orders");
}

void Console::events(Req req, Res res, const Signed& login) {
    Html body;
    for (const auto& e : gw_.store.events_page(true, 200)) {
        const auto doc = paywasm::server::read_json(e.body);
        const bool object = doc && doc->root().is_object();
        const std::string type = object ? string_or(doc->root().member("type")) : "";
        const std::string session = object ? string_or(doc->root().member("sessionId")) : "";
        const bool failing = e.state == "pending" && e.last_error;
        Html resend = Html::element("form", {{"class", "inline"}, {"method", "post"}, {"action", "/events/" + e.id + "/resend"}},
                                    hidden_csrf(login) + Html::element("button", {{"class", "quiet"}, {"type", "submit"},
                                                                                   {"aria-label", "Resend event " + e.id}}, "Resend"));
        body += row({when(e.created_at), Html::element("span", {{"class", "id"}}, e.id), Html::text(type),
                     session.empty() ? Html::text("-") : link("/orders/" + session, session.substr(0, 12) + "..."),
                     failing ? Html::element("span", {{"class", "state-failed"}}, "failing") : Html::text(e.state),
                     Html::text(std::to_string(e.attempts)), Html::text(e.last_error.value_or("")), resend});
    }
    Html main = Html::element("p", {}, "Undelivered events that failed come first, oldest first; then every other event, newest first.");
    main += Html::element("form", {{"class", "stack"}, {"method", "post"}, {"action", "/events/resend-failed"}},
                          hidden_csrf(login) +
                              Html::markup("<label for=\"since\">Resend every failed event created since (UTC)</label>"
                                           "<input id=\"since\" name=\"since\" type=\"datetime-local\" required>") +
                              Html::element("button", {{"type", "submit"}}, "Resend failed events"));
    main += table("Events sent to the shop's app", {"Created", "Event", "Type", "Order", "State", "Attempts", "Last error", "Action"}, body);
    page(res, 200, "Events", &login, main, req, "/events");
}

void Console::subscriptions(Req req, Res res, const Signed& login) {
    Html body;
    for (const auto& d : gw_.store.debits(500)) {
        body += row({Html::element("span", {{"class", "id"}}, d.subscription_id), Html::text(d.merchant_subscription_id.value_or("")),
                     Html::text(iso8601(d.created_at).substr(0, 7)), Html::element("span", {{"class", "id"}}, d.order_id),
                     Html::text(d.status ? std::to_string(*d.status) + " (" + d.state.value_or("") + ")" : "no status yet"),
                     Html::text(d.amount ? money(*d.amount, d.currency.value_or("")) : "-"), when(d.created_at)});
    }
    Html main = table("Debits, newest first", {"Subscription", "Shop's id", "Period", "Debit", "Outcome", "Amount", "Asked"}, body);
    page(res, 200, "Subscriptions", &login, main, req, "/subscriptions");
}

void Console::audit(Req req, Res res, const Signed& login) {
    std::optional<std::pair<std::int64_t, std::string>> after;
    if (const auto c = req.get_param_value("cursor"); !c.empty()) {
        after = decode_cursor(c);
        if (!after) throw HttpError(400, "validation", "not a cursor of this page", "cursor");
    }
    auto rows = gw_.store.audit_log(after, 101);
    std::optional<std::string> next;
    if (rows.size() > 100) {
        rows.resize(100);
        next = encode_cursor(rows.back().at, rows.back().id);
    }
    Html body;
    for (const auto& a : rows) {
        body += row({when(a.at), Html::text(a.actor), Html::text(a.action), Html::element("span", {{"class", "id"}}, a.target.value_or("")),
                     Html::text(a.detail.value_or("")), Html::text(a.address.value_or(""))});
    }
    Html main = table("Every action, newest first", {"When", "Who", "Action", "On", "Detail", "From"}, body);
    if (next) main += Html::element("p", {}, link("/audit?cursor=" + *next, "Older entries"));
    page(res, 200, "Audit log", &login, main, req, "/audit");
}

void Console::routes(Router& r) {
    const std::size_t limit = 16 * 1024;
    // Only the console's own host names (421 otherwise: DNS rebinding); JSON never cached nor sniffed.
    r.set_pre_routing_handler([this](Req req, Res res) {
        if (host_allowed(req, hosts_)) return false;
        paywasm::server::send_error(res, 421, "misdirected_request", "this console answers on its own host names only (--console-hosts)");
        return true;
    });
    r.set_post_routing_handler([](Req, Res res) { no_store_json(res); });
    // A GET page: the login first (a redirect to /login without one), a refusal as the error page.
    const auto get = [this, &r, limit](const std::string& pattern, auto render) {
        r.route("GET", pattern, limit, [this, render](Req req, Res res, Body) {
            auto login = need_login(req, res);
            if (!login) return;
            try {
                render(req, res, *login);
            } catch (const HttpError& e) {
                error_page(req, res, e);
            }
        });
    };
    r.route("GET", "/assets/([a-z.]+)", limit, [this](Req req, Res res, Body) {
        if (!files_.serve(req, res, req.matches[1])) throw HttpError(404, "not_found", "no such file");
    });
    r.route("GET", "/login", limit, [this](Req req, Res res, Body) { login_page(req, res, 200, nullptr); });
    r.route("POST", "/login", limit, [this](Req req, Res res, Body body) {
        const Form form = read_form(req, body);
        same_origin(req);
        const std::string token = cookie(req, login_cookie_);
        if (token.empty() || !paywasm::constant_time_equal(field(form, "login_token"), token)) {
            return login_page(req, res, 403, "This login form is stale or was not sent by the console; try again.");
        }
        // Login attempts a minute from one client (an IPv6 /64 is one), whatever the names tried.
        if (gw_.store.take_token("console-login:" + paywasm::server::client_key(req.remote_addr), gw_.config.console_login_rate) != 0) {
            return login_page(req, res, 429, "Too many login attempts from your address; wait a minute.");
        }
        const std::string name = field(form, "name");
        const auto login = log_in(gw_.store, name, field(form, "password"), req.remote_addr, now_ms());
        const std::string who = valid_user_name(name) ? name : "(invalid name)";
        if (login.result == merchant::Login::address_limited) {
            return login_page(req, res, 429, "Too many wrong passwords from your address; try again in 15 minutes.");
        }
        if (login.result != merchant::Login::ok) {
            // One answer whatever the password; the audit log (staff only) says the user was locked.
            gw_.store.audit(who, login.user_locked ? "login_locked" : "login_failed", std::nullopt, std::nullopt, req.remote_addr, now_ms());
            if (login.locked_now) gw_.store.audit("console", "account_locked", who, std::nullopt, req.remote_addr, now_ms());
            return login_page(req, res, 401, "Wrong user name or password.");
        }
        gw_.store.audit("console:" + name, "login", std::nullopt, std::nullopt, req.remote_addr, now_ms());
        // A fresh login token: whatever cookie the browser brought (a fixed one) is not it.
        res.set_header("Set-Cookie", cookie_name_ + "=" + login.token + cookie_attrs());
        res.set_header("Set-Cookie", login_cookie_ + "=" + cookie_attrs() + "; Max-Age=0");
        // What happened to the account since its last good login, told once (the audit log has it all).
        if (login.locked_at_before || login.failures_before) {
            return see_other(res, "/", login.locked_at_before ? "was_locked" : "had_failures");
        }
        res.status = 303;
        res.set_header("Location", "/");
        res.set_content("", "text/plain");
    });
    r.route("POST", "/logout", limit, [this](Req req, Res res, Body body) {
        const Form form = read_form(req, body);
        const Signed login = need_post(req, form);
        log_out(gw_.store, login.token);
        gw_.store.audit("console:" + login.session.user, "logout", std::nullopt, std::nullopt, req.remote_addr, now_ms());
        res.set_header("Set-Cookie", cookie_name_ + "=" + cookie_attrs() + "; Max-Age=0");
        see_other(res, "/login", "logged_out");
    });

    get("/", [this](Req req, Res res, const Signed& l) { overview(req, res, l); });
    get("/orders", [this](Req req, Res res, const Signed& l) { orders(req, res, l); });
    get("/orders/([^/]+)", [this](Req req, Res res, const Signed& l) { order(req, res, l, req.matches[1]); });
    get("/events", [this](Req req, Res res, const Signed& l) { events(req, res, l); });
    get("/subscriptions", [this](Req req, Res res, const Signed& l) { subscriptions(req, res, l); });
    get("/audit", [this](Req req, Res res, const Signed& l) { audit(req, res, l); });
    r.route("GET", "/orders.csv", limit, [this](Req req, Res res, Body) {
        const auto login = auth(req);
        if (!login) throw HttpError(401, "unauthorized", "log in to the console first");
        const auto query = session_query(req);
        gw_.store.audit("console:" + login->session.user, "export", std::nullopt,
                        "state=" + query.state + (query.q.empty() ? "" : " q=" + query.q), req.remote_addr, now_ms());
        send_sessions_csv(gw_, res, query);
    });

    // The actions: the app API's operations, as the logged-in user. Each is a POST of a form with
    // the login's CSRF token; `act(req, form, actor)` does it and names where to go and the flash.
    const auto post = [this, &r, limit](const std::string& pattern, auto act) {
        r.route("POST", pattern, limit, [this, act](Req req, Res res, Body body) {
            const Form form = read_form(req, body);
            const Signed login = need_post(req, form);
            action(req, res, [&] {
                const auto [to, done] = act(req, form, actor(req, login));
                see_other(res, to, done);
            });
        });
    };
    using Next = std::pair<std::string, const char*>;
    post("/orders/([^/]+)/note", [this](Req req, const Form& form, const Actor& who) {
        add_note(gw_, req.matches[1], field(form, "note"), who);
        return Next{"/orders/" + req.matches[1], "noted"};
    });
    post("/orders/([^/]+)/accept", [this](Req req, const Form& form, const Actor& who) {
        accept_underpayment(gw_, req.matches[1], field(form, "note"), who);
        return Next{"/orders/" + req.matches[1], "accepted"};
    });
    post("/orders/([^/]+)/resolve", [this](Req req, const Form& form, const Actor& who) {
        resolve_attempt(gw_, req.matches[1], field(form, "attempt"), field(form, "resolution"), field(form, "note"), who);
        return Next{"/orders/" + req.matches[1], "resolved"};
    });
    post("/orders/resolve-stuck", [this](Req, const Form& form, const Actor& who) {
        const auto before = parse_iso8601(field(form, "before"));
        if (!before) throw HttpError(400, "validation", "give the time as 2026-05-01T10:00", "before");
        resolve_stuck(gw_, *before, field(form, "resolution"), field(form, "note"), who);
        return Next{"/orders?state=attention", "resolved_stuck"};
    });
    post("/events/resend-failed", [this](Req, const Form& form, const Actor& who) {
        const auto since = parse_iso8601(field(form, "since"));
        if (!since) throw HttpError(400, "validation", "give the time as 2026-05-01T10:00", "since");
        resend_failed(gw_, *since, who);
        return Next{"/events", "resent_failed"};
    });
    post("/events/([^/]+)/resend", [this](Req req, const Form& form, const Actor& who) {
        resend_event(gw_, req.matches[1], who);
        const std::string back = field(form, "back");
        // Back to the order the form was on (a session id only: never a URL from the form).
        const bool to_order = !back.empty() && back.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos;
        return Next{to_order ? "/orders/" + back : "/events", "resent"};
    });

    // The app API's JSON for the logged-in user (401 without a login).
    const auto api = [this](Req req) {
        if (!auth(req)) throw HttpError(401, "unauthorized", "log in to the console first");
    };
    r.route("GET", "/api/sessions", limit, [this, api](Req req, Res res, Body) {
        api(req);
        send_json(res, 200, sessions_page_json(gw_, session_query(req)));
    });
    r.route("GET", "/api/sessions/([^/]+)", limit, [this, api](Req req, Res res, Body) {
        api(req);
        auto s = gw_.store.session(req.matches[1]);
        if (!s) throw HttpError(404, "not_found", "no session with this id");
        send_json(res, 200, session_json(gw_, *s, true));
    });
    r.route("GET", "/api/events/([^/]+)", limit, [this, api](Req req, Res res, Body) {
        api(req);
        const auto row = gw_.store.event(req.matches[1]);
        if (!row) throw HttpError(404, "not_found", "no event with this id");
        send_json(res, 200, event_detail_json(*row, gw_.store.deliveries(row->id)));
    });
}

}  // namespace

std::shared_ptr<void> register_console(Router& router, Gateway& gw, const std::string& public_origin, std::vector<std::string> hosts) {
    auto console = std::make_shared<Console>(gw, public_origin.empty() ? "http://" : public_origin, !public_origin.empty(),
                                             std::move(hosts));
    console->routes(router);
    return console;
}

}  // namespace merchant
