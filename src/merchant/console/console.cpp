// The merchant's console (console.hpp): its routes and their login glue (the cookies, CSRF, the
// origin and host checks). The pages are console_pages.hpp's renderers; the actions and reads are
// orders.hpp's operations, as the logged-in user.
#include "console/console.hpp"

#include "console/console_assets.hpp"
#include "gateway/console_auth.hpp"
#include "console/console_http.hpp"
#include "console/console_overview.hpp"
#include "console/console_pages.hpp"
#include "rules/events.hpp"
#include "gateway/links.hpp"
#include "rules/notify.hpp"
#include "gateway/orders.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/qr.hpp"
#include "gateway/sales.hpp"
#include "server/client_address.hpp"
#include "server/iso8601.hpp"
#include "server/static_files.hpp"
#include "server/util.hpp"
#include "server/web_form.hpp"

namespace merchant {

namespace {

class Console {
public:
    Console(Gateway& gw, std::string origin, bool explicit_origin, std::vector<std::string> hosts)
        : gw_(gw), origin_(std::move(origin)), hosts_(std::move(hosts)), explicit_origin_(explicit_origin) {
        secure_ = origin_.rfind("https://", 0) == 0;
        cookie_name_ = secure_ ? "__Host-paywasm_console" : "paywasm_console";
        login_cookie_ = secure_ ? "__Host-paywasm_login" : "paywasm_login";
        // The layouts are the program's templates, not files it serves; the poster takes the shop's
        // colour (--shop-colour, #rrggbb checked at start) as its stylesheet's last rule.
        for (auto& [name, body] : console_files()) {
            if (name == "page.html") layout_ = std::move(body);
            else if (name == "poster.html") poster_ = std::move(body);
            else if (name == "poster.css") files_.add(name, body + ":root { --shop: " + gw_.config.shop_colour + "; }\n");
            else files_.add(name, std::move(body));
        }
    }

    void routes(Router& r);

private:
    // ---- auth ----
    std::optional<Signed> auth(Req req) {
        const std::string token = cookie(req, cookie_name_);
        auto s = logged_in(gw_.store.console, token, now_ms());
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
    // `p` in the layout, with the page headers (no script at all) and the flash the request's
    // ?done= names.
    void page(Req req, Res res, int status, const ConsolePage& p, const Signed* login) {
        paywasm::server::Csp csp;
        csp.scripts = p.kind != ConsolePage::Kind::page;  // only the point of sale runs a script: its own file
        paywasm::server::page_headers(res, csp);
        res.status = status;
        res.set_content(console_document(layout_, p, login, req.get_param_value("done"), files_.url("/assets/", "console.css"),
                                         files_.url("/assets/", "pos.js")),
                        "text/html; charset=utf-8");
    }
    // An SVG QR code of `text` (the core's qrcodegen), for an <img> of the console's own pages.
    static void qr_answer(Res res, const std::string& text) {
        res.set_header("Cache-Control", "no-store");
        res.set_header("X-Content-Type-Options", "nosniff");
        res.set_header("Content-Security-Policy", "default-src 'none'; sandbox");
        res.status = 200;
        res.set_content(paywasm::qr_svg(paywasm::qr_encode(text)), "image/svg+xml");
    }
    void login_page(Req req, Res res, int status, const char* message) {
        const std::string token = paywasm::server::random_token("");
        res.set_header("Set-Cookie", login_cookie_ + "=" + token + cookie_attrs() + "; Max-Age=3600");
        page(req, res, status, render_login(token, message), nullptr);
    }
    void error_page(Req req, Res res, const HttpError& e) {
        auto login = auth(req);
        page(req, res, e.status,
             ConsolePage{"Not done",
                         Html::element("p", {{"class", "banner bad"}, {"role", "alert"}}, e.what()) +
                             Html::element("p", {}, paywasm::server::page::link("/orders", "Back to the orders")),
                         ""},
             login ? &*login : nullptr);
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

    Gateway& gw_;
    std::string origin_, cookie_name_, login_cookie_, layout_, poster_;
    std::vector<std::string> hosts_;
    bool explicit_origin_ = false, secure_ = false;
    paywasm::server::StaticFiles files_;
};

void Console::routes(Router& r) {
    const std::size_t limit = 16 * 1024;
    // Only the console's own host names (421 otherwise: DNS rebinding); JSON never cached nor sniffed.
    r.set_pre_routing_handler([this](Req req, Res res) {
        if (host_allowed(req, hosts_)) return false;
        paywasm::server::send_error(res, 421, "misdirected_request", "this console answers on its own host names only (--console-hosts)");
        return true;
    });
    r.set_post_routing_handler([](Req, Res res) { no_store_json(res); });
    // A GET page: the login first (a redirect to /login without one), then `render(req, login)`'s
    // page; a refusal as the error page.
    const auto get = [this, &r, limit](const std::string& pattern, auto render) {
        r.route("GET", pattern, limit, [this, render](Req req, Res res, Body) {
            auto login = need_login(req, res);
            if (!login) return;
            try {
                page(req, res, 200, render(req, *login), &*login);
            } catch (const HttpError& e) {
                error_page(req, res, e);
            }
        });
    };
    r.route("GET", "/assets/([a-z0-9.-]+)", limit, [this](Req req, Res res, Body) {
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
        if (gw_.store.upkeep.take_token("console-login:" + paywasm::server::client_key(req.remote_addr), gw_.config.console_login_rate) != 0) {
            return login_page(req, res, 429, "Too many login attempts from your address; wait a minute.");
        }
        const std::string name = field(form, "name");
        const auto login = log_in(gw_.store.console, name, field(form, "password"), req.remote_addr, now_ms());
        const std::string who = valid_user_name(name) ? name : "(invalid name)";
        if (login.result == merchant::Login::address_limited) {
            return login_page(req, res, 429, "Too many wrong passwords from your address; try again in 15 minutes.");
        }
        if (login.result != merchant::Login::ok) {
            // One answer whatever the password; the audit log (staff only) says the user was locked.
            gw_.store.console.audit(who, login.user_locked ? "login_locked" : "login_failed", std::nullopt, std::nullopt, req.remote_addr, now_ms());
            if (login.locked_now) gw_.store.console.audit("console", "account_locked", who, std::nullopt, req.remote_addr, now_ms());
            return login_page(req, res, 401, "Wrong user name or password.");
        }
        gw_.store.console.audit("console:" + name, "login", std::nullopt, std::nullopt, req.remote_addr, now_ms());
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
        log_out(gw_.store.console, login.token);
        gw_.store.console.audit("console:" + login.session.user, "logout", std::nullopt, std::nullopt, req.remote_addr, now_ms());
        res.set_header("Set-Cookie", cookie_name_ + "=" + cookie_attrs() + "; Max-Age=0");
        see_other(res, "/login", "logged_out");
    });

    get("/", [this](Req, const Signed&) {
        return ConsolePage{"Overview", overview_html(gw_, now_ms()), "/"};
    });
    get("/orders", [this](Req req, const Signed& l) { return render_orders(gw_, req, l); });
    get("/orders/([^/]+)", [this](Req req, const Signed& l) { return render_order(gw_, l, req.matches[1]); });
    get("/events", [this](Req, const Signed& l) { return render_events(gw_, l); });
    get("/subscriptions", [this](Req, const Signed&) { return render_subscriptions(gw_); });
    get("/audit", [this](Req req, const Signed&) { return render_audit(gw_, req); });
    get("/links", [this](Req, const Signed&) { return render_links(gw_); });
    get("/links/new", [this](Req, const Signed& l) { return render_link_form(gw_, l, Form{}, ""); });
    get("/links/([A-Za-z0-9_-]+)", [this](Req req, const Signed& l) { return render_link(gw_, l, req.matches[1]); });
    get("/pos", [this](Req, const Signed& l) { return render_pos(gw_, l); });
    get("/mail", [this](Req, const Signed& l) { return render_mail(gw_, l, mail_setting(gw_.store, l.session.user), Form{}, ""); });
    get("/pos/sales/([A-Za-z0-9_-]+)", [this](Req req, const Signed&) { return render_sale(gw_, req.matches[1]); });
    // A link's poster: a document of its own (web/console/poster.html), printed from the browser.
    r.route("GET", "/links/([A-Za-z0-9_-]+)/poster", limit, [this](Req req, Res res, Body) {
        if (!need_login(req, res)) return;
        const std::string size = req.get_param_value("size") == "a6" ? "a6" : "a4";
        try {
            const std::string html = render_poster(gw_, poster_, req.matches[1], size, files_.url("/assets/", "poster.css"),
                                                   files_.url("/assets/", "poster-" + size + ".css"));
            paywasm::server::Csp csp;
            csp.scripts = false;
            paywasm::server::page_headers(res, csp);
            res.status = 200;
            res.set_content(html, "text/html; charset=utf-8");
        } catch (const HttpError& e) {
            error_page(req, res, e);
        }
    });
    // The QR codes the pages show: a link's URL, a sale's hosted page (what the customer scans).
    r.route("GET", "/links/([A-Za-z0-9_-]+)/qr\\.svg", limit, [this](Req req, Res res, Body) {
        if (!auth(req)) throw HttpError(401, "unauthorized", "log in to the console first");
        qr_answer(res, link_record(gw_, req.matches[1], false).url);
    });
    r.route("GET", "/pos/sales/([A-Za-z0-9_-]+)/qr\\.svg", limit, [this](Req req, Res res, Body) {
        if (!auth(req)) throw HttpError(401, "unauthorized", "log in to the console first");
        qr_answer(res, sale_url(gw_, req.matches[1]));
    });
    // A sale's state as its screen follows it (pos.js): {state, text, final}.
    r.route("GET", "/pos/sales/([A-Za-z0-9_-]+)/state", limit, [this](Req req, Res res, Body) {
        if (!auth(req)) throw HttpError(401, "unauthorized", "log in to the console first");
        const SaleState st = sale_state(gw_, req.matches[1], now_ms());
        JsonWriter w;
        w.begin_object().str("state", st.state).str("text", sale_text(st)).flag("final", st.final).end_object();
        send_json(res, 200, w.take());
    });
    r.route("GET", "/orders.csv", limit, [this](Req req, Res res, Body) {
        const auto login = auth(req);
        if (!login) throw HttpError(401, "unauthorized", "log in to the console first");
        const auto query = session_query(req);
        gw_.store.console.audit("console:" + login->session.user, "export", std::nullopt,
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
    post("/links/([A-Za-z0-9_-]+)/deactivate", [this](Req req, const Form&, const Actor& who) {
        set_link_active(gw_, req.matches[1], false, who);
        return Next{"/links/" + req.matches[1], "link_deactivated"};
    });
    post("/links/([A-Za-z0-9_-]+)/activate", [this](Req req, const Form&, const Actor& who) {
        set_link_active(gw_, req.matches[1], true, who);
        return Next{"/links/" + req.matches[1], "link_activated"};
    });
    // A new link, or the form again with what was typed and why it was refused (nothing is lost).
    r.route("POST", "/links", limit, [this](Req req, Res res, Body body) {
        const Form form = read_form(req, body);
        const Signed login = need_post(req, form);
        try {
            const JsonDocument request = paywasm::parse_json(link_request(form));
            const Link l = create_link(gw_, request.root(), actor(req, login));
            see_other(res, "/links/" + l.id, "link_created");
        } catch (const HttpError& e) {
            if (e.status != 400) return error_page(req, res, e);
            page(req, res, 400, render_link_form(gw_, login, form, e.what()), &login);
        } catch (const paywasm::Error& e) {
            page(req, res, 400, render_link_form(gw_, login, form, e.what()), &login);
        }
    });
    // The user's own mail: saved, or the form again with what was typed and why it was refused.
    r.route("POST", "/mail", limit, [this](Req req, Res res, Body body) {
        const Form form = read_form(req, body);
        const Signed login = need_post(req, form);
        std::string kinds;
        for (const char* k : kNotifyKinds) {
            if (field(form, std::string("kind_") + k) == "1") kinds += (kinds.empty() ? "" : ",") + std::string(k);
        }
        const std::string user = login.session.user;
        if (const std::string why = mail_setting_error(field(form, "email"), kinds); !why.empty()) {
            return page(req, res, 400, render_mail(gw_, login, mail_setting(gw_.store, user), form, "Not saved: " + why + "."), &login);
        }
        set_mail_setting(gw_.store, user, field(form, "email"), kinds, "console:" + user, req.remote_addr, now_ms());
        see_other(res, "/mail", "mail_set");
    });
    post("/mail/off", [this](Req req, const Form&, const Actor& who) {
        stop_mail(gw_.store, who.name.substr(8), who.name, req.remote_addr, now_ms());
        return Next{"/mail", "mail_off"};
    });
    // A sale: its screen (the code for the customer), or the keypad again with why it was refused.
    r.route("POST", "/pos/charge", limit, [this](Req req, Res res, Body body) {
        const Form form = read_form(req, body);
        const Signed login = need_post(req, form);
        try {
            std::string amount = field(form, "amount");
            for (char& c : amount) if (c == ',') c = '.';  // a decimal comma, as many sellers type it
            const Link sale = create_sale(gw_, amount, field(form, "note"), actor(req, login));
            res.status = 303;
            res.set_header("Location", "/pos/sales/" + sale.id);
            res.set_content("", "text/plain");
        } catch (const HttpError& e) {
            ConsolePage p = render_pos(gw_, login);
            p.main = Html::element("p", {{"class", "banner bad"}, {"role", "alert"}}, e.what()) + p.main;
            page(req, res, e.status, p, &login);
        }
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
        const auto record = order_record(gw_, req.matches[1]);
        if (!record) throw HttpError(404, "not_found", "no session with this id");
        send_json(res, 200, order_json(gw_, *record));
    });
    r.route("GET", "/api/events/([^/]+)", limit, [this, api](Req req, Res res, Body) {
        api(req);
        send_json(res, 200, event_json(gw_, req.matches[1]));
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
