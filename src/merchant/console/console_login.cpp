// The console's login page (console_pages.hpp): the form, with the login token its cookie carries
// (login CSRF: a page of another origin can send the form, but cannot read or set the cookie).
#include "console/console_pages.hpp"

namespace merchant {

ConsolePage render_login(const std::string& login_token, const char* message) {
    Html form = Html::void_element("input", {{"type", "hidden"}, {"name", "login_token"}, {"value", login_token}});
    form += Html::markup("<label for=\"name\">User name</label><input id=\"name\" name=\"name\" autocomplete=\"username\" required>");
    form += Html::markup(
        "<label for=\"password\">Password</label><input id=\"password\" name=\"password\" type=\"password\" "
        "autocomplete=\"current-password\" required>");
    form += Html::element("button", {{"type", "submit"}}, "Log in");
    Html main;
    if (message) main += Html::element("p", {{"class", "banner bad"}, {"role", "alert"}}, message);
    main += Html::element("form", {{"class", "stack login"}, {"method", "post"}, {"action", "/login"}}, form);
    return ConsolePage{"Log in", main, ""};
}

}  // namespace merchant
