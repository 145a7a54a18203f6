#include "db/file_repo.h"

#include "db/file_sql.h"
#include "db/statement_params.h"

namespace supportcrm {
namespace {

FileRow read_file_row(sql::ResultSet& rs) {
    using namespace layout::file_row;
    return FileRow{rs.getUInt64(id),   rs.getString(filename), rs.getString(content_type),
                   rs.getUInt64(size), rs.getString(sha256),   rs.getInt64(created_at)};
}

std::optional<FileRow> first_file(sql::PreparedStatement& st) {
    ResultSetPtr rs(st.executeQuery());
    if (!rs->next()) {
        return std::nullopt;
    }
    return read_file_row(*rs);
}

}  // namespace

std::uint64_t insert_file(Db& db, std::uint64_t shop_id, const FileRow& f) {
    return db.run(bound<Stmt::file_insert>(shop_id, f.filename, f.content_type, f.size, f.sha256,
                                           timeutil::format_db(f.created_at)),
                  [&](sql::PreparedStatement& st) {
                      ResultSetPtr rs(st.executeQuery());
                      rs->next();
                      return rs->getUInt64(layout::returned_id::id);
                  });
}

std::optional<FileRow> find_shop_file(Db& db, std::uint64_t shop_id, std::uint64_t file_id) {
    return db.run(bound<Stmt::file_of_shop>(file_id, shop_id), first_file);
}

std::optional<FileRow> find_file(Db& db, std::uint64_t file_id) {
    return db.run(bound<Stmt::file_by_id>(file_id), first_file);
}

bool file_bytes_named(Db& db, const std::string& sha256) {
    return db.run(bound<Stmt::file_sha_named>(sha256), [](sql::PreparedStatement& st) {
        ResultSetPtr rs(st.executeQuery());
        return rs->next();
    });
}

std::size_t erase_files_batch(Db& db, std::uint64_t shop_id, std::uint64_t customer_id,
                              unsigned batch, std::vector<std::string>& erased) {
    Transaction tx(db);
    std::vector<std::pair<std::uint64_t, std::string>> found = db.run(
        bound<Stmt::erase_files_next>(shop_id, customer_id, batch), [](sql::PreparedStatement& st) {
            ResultSetPtr rs(st.executeQuery());
            std::vector<std::pair<std::uint64_t, std::string>> rows;
            while (rs->next()) {
                using namespace layout::erase_files_next;
                rows.emplace_back(rs->getUInt64(id), rs->getString(sha256));
            }
            return rows;
        });
    std::vector<std::string> deleted;
    for (const auto& [file_id, sha256] : found) {
        // A file two comments name comes twice: deleted once.
        const auto count = db.run(bound<Stmt::file_delete>(file_id),
                                  [](sql::PreparedStatement& st) { return st.executeUpdate(); });
        if (count > 0) {
            deleted.push_back(sha256);
        }
    }
    tx.commit();
    erased.insert(erased.end(), deleted.begin(), deleted.end());
    return found.size();
}

}  // namespace supportcrm
