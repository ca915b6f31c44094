// The console's HTTP details (console.hpp): the hosts it answers, the origins its forms come from, its
// JSON's headers. (Its forms, cookies and links: the page kit's src/server/web_form.hpp.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gateway/gateway.hpp"

namespace merchant {

// The Host header values the console answers (DNS rebinding: a name an attacker points at the
// console's address is not one of them), lower-case host[:port] as browsers send them: `listed`
// (--console-hosts) when given; else --console-origin's host[:port]; else localhost, 127.0.0.1 and
// [::1] with the console's `port`, and the listen address when it names one host.
std::vector<std::string> console_hosts(const std::vector<std::string>& listed, const std::string& origin,
                                       const std::string& listen_host, int port);
// The request's Host is one of `allowed` (ASCII case-insensitive).
bool host_allowed(Req req, const std::vector<std::string>& allowed);
// A form's Origin: absent (a client that is no browser: the CSRF token decides) or exactly `own`;
// "null" and any other origin are refused (403 cross_origin). The console's pages are sent with
// Referrer-Policy same-origin, so a browser names their origin on their own forms.
void check_form_origin(Req req, const std::string& own);
// A JSON answer (application/json) gets Cache-Control: no-store and X-Content-Type-Options: nosniff
// (shoppers' addresses are in it).
void no_store_json(Res res);

}  // namespace merchant
