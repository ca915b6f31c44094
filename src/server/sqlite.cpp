// The SQL interface (sql.hpp) on SQLite; open_sql() picks the backend from the URL.
#include "server/sql.hpp"
#include "client/url.hpp"
#include "server/util.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace paywasm::server {

const std::string& SqlRow::text(std::size_t i) const {
    static const std::string empty;
    const auto& c = columns.at(i);
    return c ? *c : empty;
}

std::int64_t SqlRow::integer(std::size_t i) const {
    const auto& c = columns.at(i);
    if (!c) return 0;
    std::size_t used = 0;
    long long v = std::stoll(*c, &used);
    if (used != c->size()) throw std::runtime_error("sql: column " + std::to_string(i) + " is not an integer");
    return v;
}

void Sql::transaction(const std::function<void()>& body) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (depth_ > 0) {
        ++depth_;
        try { body(); } catch (...) { --depth_; throw; }
        --depth_;
        return;
    }
    begin();
    depth_ = 1;
    try {
        body();
        commit();
        depth_ = 0;
    } catch (...) {
        depth_ = 0;
        rollback();
        throw;
    }
}

namespace {

// One SQLite connection: opened (the file created when missing), busy timeout 5 s, WAL journal,
// synchronous=NORMAL, foreign keys on.
class SqliteFile {
public:
    explicit SqliteFile(const std::string& path) {
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                            nullptr) != SQLITE_OK) {
            std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw StorageUnavailable("sqlite: cannot open " + path + ": " + msg);
        }
        sqlite3_busy_timeout(db_, 5000);
        exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
    }
    ~SqliteFile() { sqlite3_close(db_); }
    SqliteFile(const SqliteFile&) = delete;
    SqliteFile& operator=(const SqliteFile&) = delete;

    sqlite3* handle() const { return db_; }
    void exec(std::string_view sql) {
        const std::string text(sql);
        char* err = nullptr;
        if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "unknown error";
            sqlite3_free(err);
            throw std::runtime_error("sqlite: " + msg);
        }
    }

private:
    sqlite3* db_ = nullptr;
};

// One process per database file: an exclusive flock(2) on "<file>.lock", held while the process
// runs (the kernel lets go when it exits, however it exits). SQLite's own locking would let a
// second process in (WAL readers and writers take turns), and with it a second forwarder, retention
// and rate limits that count apart: several instances need PostgreSQL.
class FileLock {
public:
    FileLock(const std::string& path, SqlShare share) {
        if (path == ":memory:" || share == SqlShare::beside_server) return;
        const std::string lock_path = path + ".lock";
        fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd_ < 0) throw StorageUnavailable("sqlite: cannot create " + lock_path + ": " + std::strerror(errno));
        if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            const int error = errno;
            ::close(fd_);
            if (error == EWOULDBLOCK) {
                throw StorageInUse("sqlite: " + path + " is in use by another process (it holds " + lock_path +
                                         "): one process per SQLite file; several instances need PostgreSQL");
            }
            throw StorageUnavailable("sqlite: cannot lock " + lock_path + ": " + std::strerror(error));
        }
    }
    ~FileLock() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_ = -1;
};

class SqliteSql final : public Sql {
public:
    // The connection is a SqliteFile, on a file created 0600 before SQLite opens it (its -wal and
    // -shm files take the same mode).
    SqliteSql(const std::string& path, SqlShare share) : lock_(path, share), file_(private_file(path)), db_(file_.handle()) {}
    ~SqliteSql() override {
        for (auto& [text, stmt] : cache_) sqlite3_finalize(stmt);
    }

    std::vector<SqlRow> query(std::string_view sql, const std::vector<SqlValue>& params) override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        std::vector<SqlRow> rows;
        run(sql, params, &rows);
        return rows;
    }

    std::int64_t execute(std::string_view sql, const std::vector<SqlValue>& params) override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        run(sql, params, nullptr);
        return sqlite3_changes(db_);
    }

    const char* begin_statement() const override { return "BEGIN IMMEDIATE"; }
    // Prepared once, like every statement (sqlite3_exec would prepare them for every transaction).
    void begin() override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        run(begin_statement(), {}, nullptr);
    }
    void commit() override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        run("COMMIT", {}, nullptr);
    }
    void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

    void exec_script(std::string_view sql) override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        file_.exec(sql);
    }

    void notify(std::string_view, std::string_view) override {}
    void listen(std::string_view, std::function<void(const std::string&)>) override {}
    // This host's clock as the program reads it (now_ms(), so PAYWASM_CLOCK_OFFSET_MS drills move it too).
    std::int64_t clock_ms() override { return now_ms(); }

    void lock_schema() override {}

    bool has_table(const std::string& name) override {
        return !query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", {name}).empty();
    }

    std::vector<SqlRow> query_locked(std::string_view select, const std::vector<SqlValue>& params) override {
        return query(select, params);
    }

    void guard_writers(const std::vector<std::string>& tables, int version, const std::string& refusal) override {
        const std::string v = std::to_string(version);
        std::string script;
        for (const auto& t : tables) {
            for (const char* op : {"INSERT", "UPDATE", "DELETE"}) {
                const std::string name = "paywasm_writer_guard_" + t + "_" + op;
                script += "DROP TRIGGER IF EXISTS " + name + ";\nCREATE TRIGGER " + name + " BEFORE " + op + " ON " + t +
                          " WHEN paywasm_writer_schema() < " + v + " BEGIN SELECT RAISE(ABORT, " +
                          sql_literal(refusal) + "); END;\n";
            }
        }
        exec_script(script);
    }

    void row_trigger(const std::string& name, const std::string& table, const std::string& event,
                     const std::string& body) override {
        exec_script("DROP TRIGGER IF EXISTS " + name + ";\nCREATE TRIGGER " + name + " AFTER " + event + " ON " + table +
                    " FOR EACH ROW BEGIN\n" + body + "\nEND;\n");
    }

    void mark_writer(int version) override {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        // Innocuous: a trigger may call it whatever the trusted_schema setting.
        const auto value = [](sqlite3_context* ctx, int, sqlite3_value**) {
            sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(reinterpret_cast<std::intptr_t>(sqlite3_user_data(ctx))));
        };
        if (sqlite3_create_function_v2(db_, "paywasm_writer_schema", 0,
                                       SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                       reinterpret_cast<void*>(static_cast<std::intptr_t>(version)), +value, nullptr,
                                       nullptr, nullptr) != SQLITE_OK) {
            fail("define paywasm_writer_schema()");
        }
    }

private:
    [[noreturn]] void fail(const char* what) {
        throw std::runtime_error(std::string("sqlite: ") + what + ": " + sqlite3_errmsg(db_));
    }

    // A program has a few dozen statements, run again and again: each is prepared once and kept
    // (at most kCached; others are prepared for one run). Called with mutex_ held.
    static constexpr std::size_t kCached = 128;
    sqlite3_stmt* prepared(std::string_view sql, bool& cached) {
        if (auto it = cache_.find(std::string(sql)); it != cache_.end()) {
            cached = true;
            return it->second;
        }
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) fail("prepare");
        cached = cache_.size() < kCached;
        if (cached) cache_.emplace(std::string(sql), stmt);
        return stmt;
    }

    void run(std::string_view sql, const std::vector<SqlValue>& params, std::vector<SqlRow>* rows) {
        bool cached = false;
        sqlite3_stmt* stmt = prepared(sql, cached);
        // Whatever happens, the statement is left reset (no read transaction held, bindings cleared)
        // or, when not cached, finalized.
        struct Release {
            sqlite3_stmt* s;
            bool cached;
            ~Release() {
                if (cached) {
                    sqlite3_reset(s);
                    sqlite3_clear_bindings(s);
                } else {
                    sqlite3_finalize(s);
                }
            }
        } release{stmt, cached};
        for (std::size_t i = 0; i < params.size(); ++i) {
            const int at = static_cast<int>(i + 1);
            int rc = SQLITE_OK;
            if (const auto* n = std::get_if<std::int64_t>(&params[i])) rc = sqlite3_bind_int64(stmt, at, *n);
            else if (const auto* s = std::get_if<std::string>(&params[i]))
                rc = sqlite3_bind_text(stmt, at, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
            else rc = sqlite3_bind_null(stmt, at);
            if (rc != SQLITE_OK) fail("bind");
        }
        for (;;) {
            int rc = sqlite3_step(stmt);
            if (rc == SQLITE_DONE) return;
            if (rc != SQLITE_ROW) fail("step");
            if (!rows) continue;
            SqlRow row;
            const int n = sqlite3_column_count(stmt);
            row.columns.reserve(static_cast<std::size_t>(n));
            for (int c = 0; c < n; ++c) {
                if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
                    row.columns.emplace_back();
                } else {
                    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
                    row.columns.emplace_back(std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt, c))));
                }
            }
            rows->push_back(std::move(row));
        }
    }

    static const std::string& private_file(const std::string& path) {
        int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) throw StorageUnavailable("sqlite: cannot create " + path + ": " + std::strerror(errno));
        ::close(fd);
        if (::chmod(path.c_str(), 0600) != 0) {
            throw StorageUnavailable("sqlite: cannot make " + path + " private (chmod 0600): " + std::strerror(errno));
        }
        return path;
    }

    FileLock lock_;  // before the file: nothing is opened beside another process
    SqliteFile file_;
    sqlite3* db_;
    std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

}  // namespace

std::string sql_literal(std::string_view text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') out += '\'';
        out += c;
    }
    return out + "'";
}

std::unique_ptr<Sql> open_sqlite(const std::string& path, SqlShare share) { return std::make_unique<SqliteSql>(path, share); }

std::unique_ptr<Sql> open_sql(const std::string& url, SqlShare share) {
    if (url.rfind("sqlite:", 0) == 0) {
        std::string path = url.substr(7);
        if (path.empty()) throw std::invalid_argument("--db sqlite:PATH needs a file path");
        return open_sqlite(path, share);
    }
    if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) return open_postgres(url);
    throw std::invalid_argument("--db must be sqlite:PATH or postgresql://... (got '" + client::redact_url(url) + "')");
}

}  // namespace paywasm::server
