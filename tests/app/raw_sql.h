#pragma once
// A conversation database read or changed behind the app's back: on a connection of its own, as
// another program or another release of the app would.
#include <QList>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QVariantList>
#include <QtDebug>
#include <optional>

namespace hearth::test {

// Runs the statements in order; the rows the last one selects, or nullopt when one fails.
inline std::optional<QList<QVariantList>> rawSql(const QString& path, const QStringList& statements) {
    std::optional<QList<QVariantList>> rows;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
        db.setDatabaseName(path);
        if (db.open()) {
            QSqlQuery query(db);
            bool ok = true;
            for (const QString& sql : statements)
                if (!query.exec(sql)) {
                    qWarning() << sql << query.lastError().text();
                    ok = false;
                    break;
                }
            if (ok) {
                rows.emplace();
                while (query.isSelect() && query.next()) {
                    QVariantList row;
                    for (int column = 0; column < query.record().count(); ++column)
                        row.append(query.value(column));
                    rows->append(row);
                }
            }
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    return rows;
}

// How many rows `table` holds; -1 when it cannot be read.
inline int rowCount(const QString& path, const QString& table) {
    const auto rows = rawSql(path, {"SELECT COUNT(*) FROM " + table});
    return rows && rows->size() == 1 ? rows->constFirst().constFirst().toInt() : -1;
}

} // namespace hearth::test
