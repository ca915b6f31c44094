// The gateway's schema: its tables, their migrations, and the writer guard. Only the store calls it.
#pragma once

#include <cstdint>

#include "rules/overview.hpp"
#include "server/sql.hpp"

namespace merchant {

// Brings the database behind `sql` to this binary's schema version, once, in one transaction (see
// schema.cpp): marks the connection as a writer of that version, refuses (std::runtime_error) a
// database newer than this binary, migrates an older one (a database without paywasm_schema but
// with sessions is 0.2.0's, version 1) and installs the writer guard at the new version.
void migrate(paywasm::server::Sql& sql);
// For a command beside a running gateway (console-user): marks the connection as a writer of this
// binary's version and checks the database is at it, migrating nothing (the gateway's start
// migrates); else std::runtime_error saying what to do.
void require_current_schema(paywasm::server::Sql& sql);
// The overview's tally (schema version 12, kept by the database) of the orders created on day
// `since_day` or later, as overview_tally() (rules/overview.hpp) would make it of their sessions.
OverviewTally read_overview_tally(paywasm::server::Sql& sql, std::int64_t since_day);

}  // namespace merchant
