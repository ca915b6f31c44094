// status-table: the core's status table as JSON, every known code (and one unknown) for every
// method. Scripts and the cross-checks of tests/gateway/status_table.test.mjs read it; a merchant
// can see there what each code means without reading C++.
#include <cstdio>
#include <optional>

#include "cli/cli.hpp"
#include "paywasm/json.hpp"
#include "paywasm/status.hpp"

namespace paywasm::cli {
namespace {

constexpr std::string_view kUsage = R"(usage: paywasm status-table

Prints, as one JSON array on standard output, what every status code means for every payment
method: {code, method, kind, final, success, taken, tone, next, label}. `taken` says whether the
shopper's money moved (none | maybe | some | all), `next` what the shopper does next (pay | wait |
pay_rest | pay_again | contact_shop | done). Code 7 stands for any code the table does not know.
)";

int run_status_table(const Args& args) {
    if (!args.positional().empty()) throw Error(ErrorCode::usage, "status-table takes no arguments");
    std::vector<int> codes = known_status_codes();
    codes.push_back(7);
    JsonWriter w;
    w.begin_array();
    for (PayMethod m : {PayMethod::exchange, PayMethod::bank, PayMethod::qr}) {
        for (int code : codes) {
            const StatusInfo s = describe_status(code, m);
            w.begin_object().num("code", code).str("method", to_string(m)).str("kind", to_string(s.kind));
            w.flag("final", s.final).flag("success", s.success).str("taken", to_string(s.taken));
            w.str("tone", to_string(s.tone)).str("next", to_string(s.next)).str("label", s.label).end_object();
        }
    }
    w.end_array();
    std::printf("%s\n", w.text().c_str());
    return 0;
}

PAYWASM_COMMAND(Command{"status-table", "print what every status code means, for every method (JSON)", kUsage, {}, {},
                        run_status_table})

}  // namespace
}  // namespace paywasm::cli
