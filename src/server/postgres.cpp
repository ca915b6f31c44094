// The SQL interface (sql.hpp) on PostgreSQL through libpq: one connection for statements (serialized
// by a mutex) and, once listen() is called, a second one in a background thread for LISTEN.
#include <libpq-fe.h>
#include <poll.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "server/sql.hpp"

namespace paywasm::server {

namespace {

// `?` placeholders as PostgreSQL's $1, $2, ... (the statements hold no literal `?`).
std::string numbered_placeholders(std::string_view sql) {
    std::string out;
    out.reserve(sql.size() + 16);
    int n = 0;
    for (char c : sql) {
        if (c == '?') {
            out += '$';
            out += std::to_string(++n);
        } else {
            out += c;
        }
    }
    return out;
}

std::string connection_error(PGconn* conn) {
    std::string msg = conn ? PQerrorMessage(conn) : "out of memory";
    while (!msg.empty() && std::isspace(static_cast<unsigned char>(msg.back()))) msg.pop_back();
    return msg;
}

PGconn* connect_or_throw(const std::string& conninfo) {
    PGconn* conn = PQconnectdb(conninfo.c_str());
    if (!conn || PQstatus(conn) != CONNECTION_OK) {
        std::string msg = connection_error(conn);
        PQfinish(conn);
        throw StorageUnavailable("postgresql: cannot connect: " + msg);
    }
    // Notices (e.g. "relation already exists, skipping") are not errors; keep them off stderr.
    PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
    return conn;
}

bool valid_channel(std::string_view channel) {
    if (channel.empty() || channel.size() > 63) return false;
    for (char c : channel) {
        if (!(std::islower(static_cast<unsigned char>(c)) || c == '_')) return false;
    }
    return true;
}

class PostgresSql final : public Sql {
public:
    explicit PostgresSql(std::string conninfo) : conninfo_(std::move(conninfo)) { conn_ = connect_or_throw(conninfo_); }

    ~PostgresSql() override {
        stopping_ = true;
        if (listener_.joinable()) listener_.join();
        PQfinish(conn_);
    }

    std::vector<SqlRow> query(std::string_view sql, const std::vector<SqlValue>& params) override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        std::vector<SqlRow> rows;
        PGresult* r = run(sql, params);
        const int n = PQntuples(r), f = PQnfields(r);
        rows.reserve(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            SqlRow row;
            row.columns.reserve(static_cast<std::size_t>(f));
            for (int c = 0; c < f; ++c) {
                if (PQgetisnull(r, i, c)) row.columns.emplace_back();
                else row.columns.emplace_back(std::string(PQgetvalue(r, i, c), static_cast<std::size_t>(PQgetlength(r, i, c))));
            }
            rows.push_back(std::move(row));
        }
        PQclear(r);
        return rows;
    }

    std::int64_t execute(std::string_view sql, const std::vector<SqlValue>& params) override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        PGresult* r = run(sql, params);
        const char* tuples = PQcmdTuples(r);
        std::int64_t changed = (tuples && *tuples) ? std::strtoll(tuples, nullptr, 10) : 0;
        PQclear(r);
        return changed;
    }

    const char* begin_statement() const override { return "BEGIN"; }
    void rollback() noexcept override {
        if (conn_ && PQstatus(conn_) == CONNECTION_OK) PQclear(PQexec(conn_, "ROLLBACK"));
    }

    void exec_script(std::string_view sql) override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        ensure_connected();
        std::string text(sql);
        PGresult* r = PQexec(conn_, text.c_str());
        check(r);
        PQclear(r);
    }

    void notify(std::string_view channel, std::string_view payload) override {
        if (!valid_channel(channel)) throw std::invalid_argument("postgresql: bad channel name");
        query("SELECT pg_notify(?, ?)", {std::string(channel), std::string(payload)});
    }

    // Any number, as long as every process of the program uses the same one.
    static constexpr long long kSchemaLock = 7426150;
    std::int64_t clock_ms() override {
        return query("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint", {}).at(0).integer(0);
    }
    void lock_schema() override { query("SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLock) + ")", {}); }

    bool has_table(const std::string& name) override {
        return !query("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?",
                      {name})
                    .empty();
    }

    std::vector<SqlRow> query_locked(std::string_view select, const std::vector<SqlValue>& params) override {
        return query(std::string(select) + " FOR UPDATE", params);
    }

    void guard_writers(const std::vector<std::string>& tables, int version, const std::string& refusal) override {
        const std::string v = std::to_string(version);
        std::string script =
            "CREATE OR REPLACE FUNCTION paywasm_writer_guard() RETURNS trigger LANGUAGE plpgsql AS $guard$\n"
            "BEGIN\n"
            "  IF coalesce(substring(current_setting('paywasm.writer_schema', true) from '^[0-9]{1,9}$')::int, 0) < " +
            v + " THEN\n    RAISE EXCEPTION USING MESSAGE = " + sql_literal(refusal) +
            ", ERRCODE = 'read_only_sql_transaction';\n  END IF;\n  RETURN NULL;\nEND\n$guard$;\n";
        for (const auto& t : tables) {
            script += "DROP TRIGGER IF EXISTS paywasm_writer_guard ON " + t + ";\nCREATE TRIGGER paywasm_writer_guard BEFORE " +
                      "INSERT OR UPDATE OR DELETE OR TRUNCATE ON " + t +
                      " FOR EACH STATEMENT EXECUTE FUNCTION paywasm_writer_guard();\n";
        }
        exec_script(script);
    }

    void row_trigger(const std::string& name, const std::string& table, const std::string& event,
                     const std::string& body) override {
        exec_script("CREATE OR REPLACE FUNCTION " + name + "() RETURNS trigger LANGUAGE plpgsql AS $body$\nBEGIN\n" + body +
                    "\nRETURN NULL;\nEND\n$body$;\nDROP TRIGGER IF EXISTS " + name + " ON " + table + ";\nCREATE TRIGGER " + name +
                    " AFTER " + event + " ON " + table + " FOR EACH ROW EXECUTE FUNCTION " + name + "();\n");
    }

    void mark_writer(int version) override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        writer_schema_ = std::to_string(version);
        ensure_connected();
        apply_writer_mark();
    }

    void listen(std::string_view channel, std::function<void(const std::string&)> on_notify) override {
        if (!valid_channel(channel)) throw std::invalid_argument("postgresql: bad channel name");
        if (listener_.joinable()) throw std::logic_error("postgresql: listen() once per connection");
        listener_ = std::thread([this, ch = std::string(channel), cb = std::move(on_notify)] { listen_loop(ch, cb); });
    }

private:
    // Before a statement outside a transaction: a lost connection is re-opened (or
    // StorageUnavailable). Inside one, a lost connection fails the transaction.
    void ensure_connected() {
        if (conn_ && PQstatus(conn_) == CONNECTION_OK) return;
        if (depth_ > 0) throw StorageUnavailable("postgresql: connection lost during a transaction");
        if (conn_) {
            PQreset(conn_);
            if (PQstatus(conn_) != CONNECTION_OK) {
                std::string msg = connection_error(conn_);
                throw StorageUnavailable("postgresql: cannot reconnect: " + msg);
            }
        } else {
            conn_ = connect_or_throw(conninfo_);
        }
        apply_writer_mark();  // a new session has lost it
    }

    // Sets the session's writer mark (mark_writer), when there is one; connection is up.
    void apply_writer_mark() {
        if (writer_schema_.empty()) return;
        const char* values[] = {writer_schema_.c_str()};
        PGresult* r = PQexecParams(conn_, "SELECT set_config('paywasm.writer_schema', $1, false)", 1, nullptr, values,
                                   nullptr, nullptr, 0);
        check(r);
        PQclear(r);
    }

    void check(PGresult* r) {
        ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
        if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return;
        std::string msg = r ? PQresultErrorMessage(r) : connection_error(conn_);
        while (!msg.empty() && std::isspace(static_cast<unsigned char>(msg.back()))) msg.pop_back();
        PQclear(r);
        if (PQstatus(conn_) != CONNECTION_OK) throw StorageUnavailable("postgresql: " + msg);
        throw std::runtime_error("postgresql: " + msg);
    }

    PGresult* run(std::string_view sql, const std::vector<SqlValue>& params) {
        ensure_connected();
        std::vector<std::string> texts(params.size());
        std::vector<const char*> values(params.size(), nullptr);
        for (std::size_t i = 0; i < params.size(); ++i) {
            if (const auto* n = std::get_if<std::int64_t>(&params[i])) {
                texts[i] = std::to_string(*n);
                values[i] = texts[i].c_str();
            } else if (const auto* s = std::get_if<std::string>(&params[i])) {
                values[i] = s->c_str();
            }
        }
        const std::string text = numbered_placeholders(sql);
        PGresult* r = PQexecParams(conn_, text.c_str(), static_cast<int>(params.size()), nullptr, values.data(),
                                   nullptr, nullptr, 0);
        check(r);
        return r;
    }

    void listen_loop(const std::string& channel, const std::function<void(const std::string&)>& on_notify) {
        PGconn* conn = nullptr;
        while (!stopping_) {
            if (!conn || PQstatus(conn) != CONNECTION_OK) {
                PQfinish(conn);
                conn = PQconnectdb(conninfo_.c_str());
                PGresult* r = (PQstatus(conn) == CONNECTION_OK) ? PQexec(conn, ("LISTEN " + channel).c_str()) : nullptr;
                bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
                PQclear(r);
                if (!ok) {
                    PQfinish(conn);
                    conn = nullptr;
                    std::this_thread::sleep_for(std::chrono::milliseconds(250));
                    continue;
                }
                on_notify("");  // (re)connected: anything may have changed meanwhile
            }
            pollfd pfd{PQsocket(conn), POLLIN, 0};
            if (::poll(&pfd, 1, 200) < 0) continue;
            if (!PQconsumeInput(conn)) continue;  // the status check above reconnects
            while (PGnotify* n = PQnotifies(conn)) {
                std::string payload = n->extra ? n->extra : "";
                PQfreemem(n);
                on_notify(payload);
            }
        }
        PQfinish(conn);
    }

    std::string conninfo_;
    PGconn* conn_ = nullptr;
    std::string writer_schema_;  // mark_writer's version, "" before it
    std::thread listener_;
    std::atomic<bool> stopping_{false};
};

}  // namespace

std::unique_ptr<Sql> open_postgres(const std::string& conninfo) { return std::make_unique<PostgresSql>(conninfo); }

}  // namespace paywasm::server
