// The Store (store.hpp): the one Sql, brought to this binary's schema, and its table groups.
#include "store/store.hpp"

#include "store/schema.hpp"
#include "store/store_core.hpp"

namespace merchant {

namespace {

std::unique_ptr<Sql> migrated(std::unique_ptr<Sql> sql) {
    migrate(*sql);
    return sql;
}

std::unique_ptr<Sql> required(std::unique_ptr<Sql> sql) {
    require_current_schema(*sql);
    return sql;
}

}  // namespace

Store::Store(std::unique_ptr<Sql> sql)
    : sql_(migrated(std::move(sql))), core_(std::make_unique<StoreCore>(*sql_)), sessions(*core_, *sql_),
      attempts(*core_, *sql_), events(*core_, *sql_), mail(*core_, *sql_), console(*core_, *sql_), orders(*core_, *sql_),
      links(*core_, *sql_), upkeep(*core_, *sql_) {}

Store::Store(std::unique_ptr<Sql> sql, BesideGateway)
    : sql_(required(std::move(sql))), core_(std::make_unique<StoreCore>(*sql_)), sessions(*core_, *sql_),
      attempts(*core_, *sql_), events(*core_, *sql_), mail(*core_, *sql_), console(*core_, *sql_), orders(*core_, *sql_),
      links(*core_, *sql_), upkeep(*core_, *sql_) {}

Store::~Store() = default;

}  // namespace merchant
