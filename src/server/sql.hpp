// src/server/sql.hpp — one SQL interface over SQLite (a file, one process) or PostgreSQL (several
// processes share it), for a program that writes its queries once.
//
// Contract:
//   - Statements use `?` placeholders (never a literal `?` in the text); values are bound, never
//     spliced. Every column comes back as text or NULL (integers as their decimal text).
//   - Statements are written once, in the dialect SQLite (3.35 or newer) and PostgreSQL (9.5 or
//     newer) share, which is not standard SQL: besides standard SELECT/INSERT/UPDATE/DELETE, BIGINT
//     and CASE, the callers use INSERT .. ON CONFLICT (cols) DO NOTHING, INSERT .. ON CONFLICT (cols)
//     DO UPDATE SET col = excluded.col [WHERE ..] (an upsert), INSERT/UPDATE .. RETURNING, LIMIT
//     (also inside a subquery), count()/min()/max(). Every implementation must run these as is;
//     a database without them (MySQL's ON DUPLICATE KEY, SQL Server's MERGE) needs its own
//     statements, not only a new implementation of this class. What a database does its own way
//     beyond that dialect is a named operation of this class (lock_schema, has_table,
//     query_locked, guard_writers, mark_writer, notify/listen), never a branch in a caller.
//   - One connection per Sql, serialized by a recursive mutex: `transaction()` holds it from BEGIN to
//     COMMIT, so the statements of a transaction never interleave with another thread's.
//   - When the database cannot be reached (PostgreSQL down, connection lost), every call throws
//     StorageUnavailable and the next call tries to reconnect; a transaction that failed is rolled
//     back as a whole. Callers answer 503 and keep nothing half-done.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace paywasm::server {

struct StorageUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// An SQLite file another server process holds (SqlShare::exclusive).
struct StorageInUse : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A bound value: NULL, an integer or a text.
using SqlValue = std::variant<std::monostate, std::int64_t, std::string>;

struct SqlRow {
    std::vector<std::optional<std::string>> columns;
    bool is_null(std::size_t i) const { return !columns.at(i); }
    const std::string& text(std::size_t i) const;  // "" for NULL
    std::int64_t integer(std::size_t i) const;     // 0 for NULL; throws on a non-integer text
    std::optional<std::string> optional_text(std::size_t i) const { return columns.at(i); }  // nullopt for NULL
};

// An optional text as a bound value: NULL when absent.
inline SqlValue or_null(const std::optional<std::string>& v) { return v ? SqlValue(*v) : SqlValue(); }

class Sql {
public:
    virtual ~Sql() = default;

    // Runs one statement; returns its rows (empty for a statement without results).
    virtual std::vector<SqlRow> query(std::string_view sql, const std::vector<SqlValue>& params = {}) = 0;
    // Runs one statement; returns the number of rows it changed.
    virtual std::int64_t execute(std::string_view sql, const std::vector<SqlValue>& params = {}) = 0;
    // Runs `body` in one transaction; commits when it returns, rolls back when it throws (and
    // rethrows). Nested calls join the outer transaction.
    void transaction(const std::function<void()>& body);
    // Runs a script of several statements without parameters (the schema).
    virtual void exec_script(std::string_view sql) = 0;

    // Change notification across processes. notify() inside a transaction is delivered at commit
    // (PostgreSQL NOTIFY); listen() calls `on_notify(payload)` from a background thread for every
    // notification on `channel`, and `on_notify("")` after it reconnected (something may have been
    // missed). SQLite: notify() does nothing and listen() never calls back (one process).
    virtual void notify(std::string_view channel, std::string_view payload) = 0;
    virtual void listen(std::string_view channel, std::function<void(const std::string&)> on_notify) = 0;
    // The database's clock, milliseconds since the epoch: one clock for every process sharing the
    // database, whatever their own clocks say. PostgreSQL: the server's clock_timestamp(); SQLite:
    // this host's clock, now_ms() (one process per file, and it runs here).
    virtual std::int64_t clock_ms() = 0;

    // ---- the operations each database does its own way ----

    // Inside a transaction: holds every other process's schema change (and lock_schema) off until
    // it ends. PostgreSQL: a transaction-level advisory lock; SQLite: BEGIN IMMEDIATE holds it already.
    virtual void lock_schema() = 0;
    // Whether the schema the connection works in has table `name`.
    virtual bool has_table(const std::string& name) = 0;
    // Inside a transaction: runs `select` (one SELECT of one table, no FOR clause) and holds the
    // rows it returns against every other writer until the transaction ends. PostgreSQL: FOR
    // UPDATE; SQLite: BEGIN IMMEDIATE's write lock covers the whole database already.
    virtual std::vector<SqlRow> query_locked(std::string_view select, const std::vector<SqlValue>& params) = 0;
    // Installs (again: it replaces an earlier one) the writer guard on `tables`: from now on an
    // INSERT, UPDATE or DELETE (and TRUNCATE where there is one) by a connection not marked as a
    // writer of `version` or newer (mark_writer) fails with `refusal` and changes nothing; reads stay
    // open. PostgreSQL: a statement trigger per table calling paywasm_writer_guard(), which reads
    // the session setting paywasm.writer_schema; SQLite: row triggers per table and operation
    // calling paywasm_writer_schema(), a function only a marked connection defines (an unmarked one
    // fails with "no such function: paywasm_writer_schema" instead of `refusal`).
    virtual void guard_writers(const std::vector<std::string>& tables, int version, const std::string& refusal) = 0;
    // Installs (again: it replaces an earlier one) the row trigger `name`: after each row that
    // `event` ("INSERT", "DELETE" or "UPDATE OF col, col, ...") changes in `table`, runs `body`, one
    // or more statements of the common dialect, each ended by ';', that read the row as NEW (after)
    // and OLD (before), in the writer's transaction. SQLite: CREATE TRIGGER ... BEGIN body END;
    // PostgreSQL: a PL/pgSQL function `name`() and a FOR EACH ROW trigger calling it.
    virtual void row_trigger(const std::string& name, const std::string& table, const std::string& event,
                             const std::string& body) = 0;
    // Marks this connection as a writer of schema `version` for guard_writers' triggers: PostgreSQL
    // sets paywasm.writer_schema for the session, again after every reconnect; SQLite defines
    // paywasm_writer_schema() on this connection.
    virtual void mark_writer(int version) = 0;

protected:
    virtual const char* begin_statement() const = 0;  // "BEGIN IMMEDIATE" | "BEGIN"
    // transaction()'s first and last statements; an implementation may run them prepared once.
    virtual void begin() { exec_script(begin_statement()); }
    virtual void commit() { exec_script("COMMIT"); }
    virtual void rollback() noexcept = 0;             // best effort: the connection may be gone
    std::recursive_mutex mutex_;  // one connection: every call holds it, a transaction throughout
    int depth_ = 0;               // > 0 inside transaction()
};

// `text` as a single-quoted SQL string literal (each ' doubled), for the few statements that cannot
// bind a value (DDL such as guard_writers' triggers).
std::string sql_literal(std::string_view text);

// How a process shares an SQLite file. `exclusive`: a server, one process per file (an exclusive
// flock on "<file>.lock" for the process's life; a second server is refused). `beside_server`: a
// short administrative command (`paywasm-merchant console-user`) beside a running server: no lock,
// its statements take turns with the server's through WAL and the 5-second busy timeout.
// PostgreSQL ignores it.
enum class SqlShare { exclusive, beside_server };

// Opens `url`: "sqlite:PATH" (the file is created, mode 0600, WAL) or "postgresql://..." /
// "postgres://..." (a libpq connection URI). Throws std::invalid_argument for another scheme and
// StorageUnavailable when the database cannot be opened.
std::unique_ptr<Sql> open_sql(const std::string& url, SqlShare share = SqlShare::exclusive);

// Implementations (sqlite.cpp, postgres.cpp).
std::unique_ptr<Sql> open_sqlite(const std::string& path, SqlShare share = SqlShare::exclusive);
std::unique_ptr<Sql> open_postgres(const std::string& conninfo);

}  // namespace paywasm::server
