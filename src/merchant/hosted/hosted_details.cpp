// A payment link's shopper fields (hosted_details.hpp).
#include "hosted/hosted_details.hpp"

#include "paywasm/codec.hpp"
#include "paywasm/decimal.hpp"
#include "paywasm/error.hpp"
#include "paywasm/order.hpp"
#include "paywasm/validate.hpp"

namespace merchant {

using paywasm::server::Html;

namespace {

bool comma_decimal(std::string_view lang) { return lang != "en"; }

// A bound of the link's customAmount as the language writes the currency's amounts ("1,00").
std::string bound(JsonValue custom, const char* which, const std::string& currency, std::string_view lang) {
    const std::string plain = string_or(custom.member(which));
    paywasm::Decimal d;
    return local_decimal(paywasm::Decimal::try_parse(plain, d) ? paywasm::amount_text({d, currency}) : plain, lang);
}

bool collects_shipping(const JsonDocument& spec) {
    const JsonValue v = spec.root().member("collectShipping");
    return has_kind(v, paywasm::JsonKind::boolean) && v.boolean();
}

// `value` when field `id` is the one at fault (an attribute that marks it), else no attribute.
std::optional<std::string> at_fault(const DetailsRefusal& refusal, const char* id, const char* value) {
    return refusal.field == id ? std::optional<std::string>(value) : std::nullopt;
}

// <input ...> with its label, marked when it is the field at fault.
void input(Html& fields, const char* id, const std::string& label, const char* type, const char* autocomplete,
           const std::string& value, const DetailsRefusal& refusal, const char* inputmode = nullptr) {
    fields += Html::element("label", {{"for", id}}, label);
    fields += Html::void_element("input", {{"id", id}, {"name", id}, {"type", type}, {"autocomplete", autocomplete},
                                           {"inputmode", inputmode ? std::optional<std::string>(inputmode) : std::nullopt},
                                           {"value", value}, {"maxlength", "200"}, {"required", "required"},
                                           {"aria-invalid", at_fault(refusal, id, "true")},
                                           {"aria-describedby", at_fault(refusal, id, "form-error")},
                                           {"autofocus", at_fault(refusal, id, "autofocus")}});
}

}  // namespace

Details read_details(const paywasm::server::Form& fields) {
    const auto get = [&](const char* n) {
        const auto it = fields.find(n);
        if (it == fields.end()) return std::string();
        const std::string& v = it->second;
        const auto b = v.find_first_not_of(" \t\r\n");
        return b == std::string::npos ? std::string() : v.substr(b, v.find_last_not_of(" \t\r\n") - b + 1);
    };
    Details d{get("firstname"), get("lastname"), get("email"), get("address1"), get("city"), get("zipcode"), get("country"),
              get("amount")};
    if (d.firstname.empty() && d.lastname.empty()) d.firstname = get("name");
    for (auto& c : d.country) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return d;
}

std::string local_amount(std::string_view typed, std::string_view lang) {
    const char decimal = comma_decimal(lang) ? ',' : '.';
    const char grouping = decimal == ',' ? '.' : ',';
    std::string out;
    bool seen_decimal = false;
    for (const char c : typed) {
        if (c >= '0' && c <= '9') {
            out += c;
        } else if (c == decimal && !seen_decimal) {
            out += '.';
            seen_decimal = true;
        } else if ((c == grouping || c == ' ') && !seen_decimal && !out.empty()) {
            continue;  // digit grouping, before the decimals only
        } else {
            return {};
        }
    }
    if (out.empty() || out == "." || out.back() == '.' || out.front() == '.') return {};
    return out;
}

std::string local_decimal(std::string_view plain, std::string_view lang) {
    std::string out(plain);
    if (comma_decimal(lang)) {
        for (auto& c : out) c = c == '.' ? ',' : c;
    }
    return out;
}

Html details_fields(const Words& w, const Session& s, const JsonDocument& spec, const Details& d, const DetailsRefusal& refusal) {
    const JsonValue custom = spec.root().member("customAmount");
    Html fields;
    if (custom.valid()) {
        const std::string label = w("details.amount", {{"currency", s.currency}, {"min", bound(custom, "min", s.currency, w.lang())},
                                                       {"max", bound(custom, "max", s.currency, w.lang())}});
        input(fields, "amount", label, "text", "transaction-amount", d.amount, refusal, "decimal");
    }
    input(fields, "firstname", w("details.firstname"), "text", "given-name", d.firstname, refusal);
    input(fields, "lastname", w("details.lastname"), "text", "family-name", d.lastname, refusal);
    input(fields, "email", w("details.email"), "email", "email", d.email, refusal);
    if (collects_shipping(spec)) {
        input(fields, "address1", w("details.address"), "text", "address-line1", d.address1, refusal);
        input(fields, "city", w("details.city"), "text", "address-level2", d.city, refusal);
        input(fields, "zipcode", w("details.zipcode"), "text", "postal-code", d.zipcode, refusal);
        fields += Html::element("label", {{"for", "country"}}, w("details.country"));
        Html options = Html::element("option", {{"value", ""}}, w("details.countryChoose"));
        for (const auto& c : countries(w.lang())) {
            const std::string code(c.code);
            options += Html::element(
                "option", {{"value", code}, {"selected", code == d.country ? std::optional<std::string>("selected") : std::nullopt}}, c.name);
        }
        fields += Html::element("select",
                                {{"id", "country"}, {"name", "country"}, {"autocomplete", "country"}, {"required", "required"},
                                 {"aria-invalid", at_fault(refusal, "country", "true")},
                                 {"aria-describedby", at_fault(refusal, "country", "form-error")},
                                 {"autofocus", at_fault(refusal, "country", "autofocus")}},
                                options);
    }
    Html out;
    if (!refusal.text.empty()) out += Html::element("p", {{"class", "error"}, {"role", "alert"}, {"id", "form-error"}}, refusal.text);
    return out + Html::element("form", {{"method", "post"}, {"action", "/pay/" + s.id + "/details"}, {"class", "details"}},
                               fields + Html::element("button", {{"type", "submit"}}, w("details.continue")));
}

std::optional<DetailsRefusal> apply_details(const Words& w, const JsonDocument& spec, const Details& d, bool qr,
                                            paywasm::Checkout& checkout) {
    const JsonValue custom = spec.root().member("customAmount");
    const auto refuse = [&](const std::string& key, const char* field) {
        if (key == "error.amount") {
            return DetailsRefusal{w(key, {{"min", bound(custom, "min", checkout.currency, w.lang())},
                                          {"max", bound(custom, "max", checkout.currency, w.lang())},
                                          {"currency", checkout.currency}}),
                                  field};
        }
        return DetailsRefusal{w(key), field};
    };
    const std::string name = d.firstname + (d.firstname.empty() || d.lastname.empty() ? "" : " ") + d.lastname;
    if (d.firstname.empty()) return refuse("error.name", "firstname");
    if (d.email.empty()) return refuse("error.email", "email");
    try {
        checkout.customer_info = paywasm::CustomerInfo{name, d.email, std::nullopt, std::nullopt};
        if (collects_shipping(spec)) {
            for (const auto& [v, field] : {std::pair{&d.address1, "address1"}, {&d.city, "city"}, {&d.zipcode, "zipcode"}}) {
                if (v->empty()) return refuse("error.address", field);
            }
            bool listed = false;
            for (const auto& c : countries("en")) listed = listed || c.code == d.country;
            if (!listed) return refuse("error.country", "country");
            paywasm::ShippingAddress a;
            a.firstname = d.firstname;
            if (!d.lastname.empty()) a.lastname = d.lastname;
            a.address1 = d.address1;
            a.city = d.city;
            a.zipcode = d.zipcode;
            a.country = d.country;
            a.email = d.email;
            checkout.shipping_address = a;
        }
        if (custom.valid()) {
            const std::string plain = local_amount(d.amount, w.lang());
            paywasm::Decimal amount;
            if (plain.empty() || !paywasm::Decimal::try_parse(plain, amount)) return refuse("error.amount", "amount");
            const paywasm::Decimal min = paywasm::Decimal::parse(string_or(custom.member("min")), "customAmount.min");
            const paywasm::Decimal max = paywasm::Decimal::parse(string_or(custom.member("max")), "customAmount.max");
            if (!paywasm::is_custom_amount({amount, checkout.currency}, min, max)) return refuse("error.amount", "amount");
            checkout.cart.at(0).price = amount;
        }
        paywasm::validate(checkout);
        if (qr) (void)paywasm::qr_order(checkout);
    } catch (const paywasm::Error& e) {
        const std::string field = e.field();
        if (field == "amount") return refuse("error.amount", "amount");
        if (field.rfind("shippingAddress", 0) == 0) {
            if (field.find("country") != std::string::npos) return refuse("error.country", "country");
            if (field.find("zipcode") != std::string::npos) return refuse("error.address", "zipcode");
            if (field.find("city") != std::string::npos) return refuse("error.address", "city");
            if (field.find("email") != std::string::npos) return refuse("error.email", "email");
            if (field.find("name") != std::string::npos) return refuse("error.name", "firstname");
            return refuse("error.address", "address1");
        }
        if (field.find("email") != std::string::npos) return refuse("error.email", "email");
        if (field.find("name") != std::string::npos) return refuse("error.name", "firstname");
        return refuse("error.details", "");
    }
    return std::nullopt;
}

}  // namespace merchant
