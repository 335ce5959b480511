// Hostile files end to end, in the app: a real HearthBackend (controllers, the worker thread,
// the SQLite store, settings in a temp dir) with stories260K loaded, driven through a series of
// hostile inputs:
//  - GGUF files made from stories260K: cut at every section boundary (in and after the header,
//    the metadata, the tensor infos and the data), absurd counts (tensors, metadata, dimensions),
//    a tensor past the end of the file, an unknown tensor type, a weight type without a dot
//    product, metadata of the wrong type, NaN and infinite weights, and not a GGUF at all;
//  - a conversation's saved KV state cut short, with flipped bytes, with a wrong magic, with an
//    absurd token count, empty, or a folder in its place (beside an intact one, which resumes);
//  - a conversation database that is not a database, whose header is overwritten, or whose
//    pages are corrupt; and one locked by another process (this binary, run as a lock holder),
//    at start and while chatting.
// After each: the model loaded before still replies, the error is on the controller property
// QML binds to (and cleared by the next good load, or when the database is free again), and no
// conversation is lost. A damaged database is kept aside as conversations.sqlite.damaged-<time>,
// the app starts with a fresh one holding what could still be read, and says so
// (HearthBackend::databaseNotice, shown above the page in the real window until dismissed); a
// locked one is left where it is.
#include "app/chat/chat_controller.h"
#include "app/chat/conversation_list_model.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/gui/main_window.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_store.h"
#include "app/storage/sql_store.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/session/session_store.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QFile>
#include <QFuture>
#include <QGuiApplication>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>
#include <QtQuickTest/quicktest.h>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

using namespace hearth::app;
using hearth::test::findByName;
using hearth::test::finishReply;
using hearth::test::loadModel;
using hearth::test::startChat;
using hearth::test::waitForMessages;
namespace gguf = hearth::gguf;

namespace {

constexpr const char* kLockHolderDatabase = "HEARTH_LOCK_HOLDER_DATABASE";
constexpr const char* kLockHolderMode = "HEARTH_LOCK_HOLDER_MODE";
// A retry interval longer than any test: the store's retry timer runs but never fires.
constexpr int kRetryIntervalWhileLocked = 60 * 60 * 1000;

// The lock holder: another process that takes the database's write lock (and, in "exclusive"
// mode, SQLite's exclusive locking mode, which keeps readers out too), says "locked", and lets go
// when a line (or the end) arrives on its standard input.
int holdLock() {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("holder"));
    db.setDatabaseName(qEnvironmentVariable(kLockHolderDatabase));
    if (!db.open()) return 2;
    QSqlQuery query(db);
    if (qEnvironmentVariable(kLockHolderMode) == QLatin1String("exclusive") &&
        !query.exec(QStringLiteral("PRAGMA locking_mode=EXCLUSIVE")))
        return 2;
    if (!query.exec(QStringLiteral("BEGIN EXCLUSIVE")) ||
        !query.exec(QStringLiteral("UPDATE conversations SET title = title")))
        return 2;
    std::printf("locked\n");
    std::fflush(stdout);
    char line[16];
    (void)std::fgets(line, sizeof line, stdin);
    query.exec(QStringLiteral("ROLLBACK"));
    return 0;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& bytes) {
    QFile::remove(path); // a fresh file each time (as a download would be)
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

template <typename T> void putAt(QByteArray& bytes, qsizetype offset, T value) {
    std::memcpy(bytes.data() + offset, &value, sizeof value);
}

// Where a GGUF file's sections start, from the values the reader parsed: the header is 24 bytes,
// each metadata entry and tensor info takes the bytes its fields are written in.
struct GgufSections {
    qsizetype metadata = 24, tensorInfos = 0, tensorInfosEnd = 0, data = 0, end = 0;
};

qsizetype encodedSize(const gguf::Value& value) {
    switch (value.type) {
    case gguf::ValueType::UInt8:
    case gguf::ValueType::Int8:
    case gguf::ValueType::Bool:
        return 1;
    case gguf::ValueType::UInt16:
    case gguf::ValueType::Int16:
        return 2;
    case gguf::ValueType::UInt32:
    case gguf::ValueType::Int32:
    case gguf::ValueType::Float32:
        return 4;
    case gguf::ValueType::UInt64:
    case gguf::ValueType::Int64:
    case gguf::ValueType::Float64:
        return 8;
    case gguf::ValueType::String:
        return 8 + static_cast<qsizetype>(std::get<std::string>(value.data).size());
    case gguf::ValueType::Array: {
        qsizetype bytes = 4 + 8; // element type, count
        for (const gguf::Value& item : std::get<gguf::Array>(value.data).items)
            bytes += encodedSize(item);
        return bytes;
    }
    }
    return 0;
}

GgufSections sectionsOf(const gguf::GgufFile& file) {
    GgufSections s;
    s.tensorInfos = s.metadata;
    for (const gguf::MetadataEntry& entry : file.metadata())
        s.tensorInfos += 8 + static_cast<qsizetype>(entry.key.size()) + 4 + encodedSize(entry.value);
    s.tensorInfosEnd = s.tensorInfos;
    for (const gguf::TensorInfo& t : file.tensors())
        s.tensorInfosEnd += 8 + static_cast<qsizetype>(t.name.size()) + 4 +
                            8 * static_cast<qsizetype>(t.shape.size()) + 4 + 8;
    s.data = static_cast<qsizetype>(file.data_offset());
    s.end = static_cast<qsizetype>(file.file_size());
    return s;
}

// stories260K written again through the project's writer, each tensor passed through `edit`
// (which may change its type, shape or bytes) and the metadata through `editMetadata`.
struct TensorCopy {
    std::vector<int64_t> shape;
    hearth::kernels::TensorType type;
    std::vector<std::byte> data;
};
void rewriteStories(const QString& out, const std::function<void(gguf::GgufWriter&)>& editMetadata,
                    const std::function<void(const std::string& name, TensorCopy&)>& edit) {
    const auto file = gguf::GgufFile::open(hearth::test::storiesModelPath().toStdString());
    gguf::GgufWriter writer;
    for (const gguf::MetadataEntry& entry : file->metadata())
        writer.set(entry.key, entry.value);
    if (editMetadata) editMetadata(writer);
    for (const gguf::TensorInfo& t : file->tensors()) {
        TensorCopy copy{t.shape, t.type, std::vector<std::byte>(t.data, t.data + t.bytes)};
        if (edit) edit(t.name, copy);
        writer.add_tensor(t.name, copy.shape, copy.type, std::move(copy.data));
    }
    writer.write(out.toStdString());
}

// Sets every `stride`-th float of an F32 tensor to `value`.
void fillFloats(TensorCopy& t, float value, size_t stride) {
    for (size_t i = 0; i * sizeof(float) < t.data.size(); i += stride)
        std::memcpy(t.data.data() + i * sizeof(float), &value, sizeof value);
}

QString statsOfLastReply(ChatController* chat) {
    const int last = chat->messages()->count() - 1;
    return chat->messages()->index(last).data(MessageListModel::StatsRole).toString();
}

QString stateOfLastReply(ChatController* chat) {
    const int last = chat->messages()->count() - 1;
    return chat->messages()->index(last).data(MessageListModel::StateRole).toString();
}

// Every file the damaged database left beside the new one (its WAL and shared memory included).
QStringList damagedBackupsIn(const QString& dataDir) {
    return QDir(dataDir).entryList({QStringLiteral("conversations.sqlite.damaged-*")}, QDir::Files,
                                   QDir::Name);
}

} // namespace

class TestHostileFiles : public QObject {
    Q_OBJECT

    QString dir_;                        // everything this test writes
    std::unique_ptr<HearthBackend> app_; // the app the damaged models are loaded into
    int messagesBefore_ = 0;             // the app's conversation, before the current row
    QString profileWithAConversation_;   // a data folder: one exchange and its saved KV state
    QString conversationId_;             // that exchange's conversation

    AppPaths pathsIn(const QString& dataDir) const { return {dataDir, dir_ + "/settings.ini"}; }

    // One more exchange in the current conversation of `b`, which must complete.
    static bool replyIn(HearthBackend& b, const QString& text) {
        if (!QTest::qWaitFor([&] { return b.chat()->canSend(); }, 30000)) return false;
        return b.chat()->send(text) && finishReply(b.chat()) && stateOfLastReply(b.chat()) == "complete";
    }

    static void copyFolder(const QString& from, const QString& to) {
        QDir().mkpath(to);
        for (const QFileInfo& entry :
             QDir(from).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (entry.isDir())
                copyFolder(entry.filePath(), to + "/" + entry.fileName());
            else
                QFile::copy(entry.filePath(), to + "/" + entry.fileName());
        }
    }

    // A copy of the profile with one conversation (its database and its saved state).
    QString freshProfileCopy(const QString& name) {
        const QString copy = dir_ + "/" + name;
        QDir(copy).removeRecursively();
        copyFolder(profileWithAConversation_, copy);
        return copy;
    }

    static QList<MessageRecord> storedMessages(const QString& databasePath, int* conversations) {
        SqlStore store(databasePath);
        QList<MessageRecord> all;
        const QList<ConversationRecord> records = store.conversations();
        *conversations = static_cast<int>(records.size());
        for (const ConversationRecord& c : records)
            all += store.messages(c.id);
        return all;
    }

    // Starts the lock holder on `database`; it holds the lock until release().
    struct LockHolder {
        QProcess process;
        bool start(const QString& database, const QString& mode) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(kLockHolderDatabase, database);
            env.insert(kLockHolderMode, mode);
            process.setProcessEnvironment(env);
            process.start(QCoreApplication::applicationFilePath(), {});
            return process.waitForStarted() &&
                   QTest::qWaitFor([&] { return process.readAllStandardOutput().contains("locked"); }, 10000);
        }
        bool release() {
            process.write("release\n");
            process.closeWriteChannel();
            return process.waitForFinished(10000) && process.exitCode() == 0;
        }
        ~LockHolder() {
            if (process.state() != QProcess::NotRunning) {
                process.kill();
                process.waitForFinished();
            }
        }
    };

private slots:
    void initTestCase() {
        dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-hostile"));
        QDir().mkpath(dir_ + "/models");

        // A profile with one exchange, closed cleanly: its conversation's KV state is saved.
        profileWithAConversation_ = dir_ + "/profile";
        HearthBackend b(pathsIn(profileWithAConversation_));
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        b.settings()->setMaxReplyTokens(8);
        b.settings()->setTemperature(0);
        QVERIFY(replyIn(b, "Once upon a time"));
        conversationId_ = b.chat()->currentConversationId();
        b.store()->waitForIdle();
        b.settings()->flush();
    }

    // --- Damaged models, loaded one after another into one running app ---------------------

    void startTheApp() {
        app_ = std::make_unique<HearthBackend>(pathsIn(dir_ + "/models-app"));
        QVERIFY(startChat(*app_));
        QVERIFY(loadModel(*app_));
        app_->settings()->setMaxReplyTokens(4);
        QVERIFY(replyIn(*app_, "Once upon a time"));
        messagesBefore_ = app_->chat()->messages()->count();
        QCOMPARE(messagesBefore_, 2);
    }

    void damagedModelIsRefused_data() {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QString>("problem"); // what the message the user sees says (a pattern)

        const QString stories = hearth::test::storiesModelPath();
        const QByteArray original = readAll(stories);
        QVERIFY(!original.isEmpty());
        const GgufSections s = sectionsOf(*gguf::GgufFile::open(stories.toStdString()));
        // The computed sections must be the file's: the tensor infos end where the padding to the
        // data begins.
        QVERIFY(s.tensorInfosEnd <= s.data && s.data - s.tensorInfosEnd < 32);
        QCOMPARE(original.mid(s.tensorInfos + 8, 17), QByteArray("token_embd.weight"));

        const auto file = [&](const char* name, const QByteArray& bytes, const char* problem) {
            const QString path = dir_ + "/models/" + name + ".gguf";
            QVERIFY(writeAll(path, bytes));
            QTest::newRow(name) << path << QString(problem);
        };
        const auto cut = [&](const char* name, qsizetype size) {
            // A cut inside the tensor infos or before the data says that a tensor does not fit.
            file(name, original.left(size), size == 0 ? "empty" : "truncated|overflow the \\d+-byte file");
        };
        cut("empty", 0);
        cut("cut in the header", 13);
        cut("cut after the header", s.metadata);
        cut("cut in the metadata", (s.metadata + s.tensorInfos) / 2);
        cut("cut after the metadata", s.tensorInfos);
        cut("cut in the tensor infos", (s.tensorInfos + s.tensorInfosEnd) / 2);
        cut("cut after the tensor infos", s.tensorInfosEnd);
        cut("cut at the data", s.data);
        cut("cut in the data", (s.data + s.end) / 2);
        cut("one byte short", s.end - 1);

        const quint64 absurd = quint64{1} << 62;
        QByteArray bytes = original;
        putAt(bytes, 8, absurd);
        file("absurd tensor count", bytes, "tensor count");
        bytes = original;
        putAt(bytes, 16, absurd);
        file("absurd metadata count", bytes, "metadata count");

        // The first tensor info: name length, name, dimension count, dimensions, type, offset.
        const qsizetype firstTensor = s.tensorInfos;
        const qsizetype dimensions = firstTensor + 8 + 17;
        const quint32 dimensionCount = *reinterpret_cast<const quint32*>(original.constData() + dimensions);
        QCOMPARE(dimensionCount, 2u);
        const qsizetype type = dimensions + 4 + 8 * dimensionCount;
        const qsizetype offset = type + 4;
        bytes = original;
        putAt(bytes, dimensions, quint32{1000});
        file("absurd dimension count", bytes, "dimensions");
        bytes = original;
        putAt(bytes, dimensions + 4, quint64{1} << 40);
        putAt(bytes, dimensions + 12, quint64{1} << 40);
        file("absurd dimensions", bytes, "overflow");
        bytes = original;
        putAt(bytes, offset, static_cast<quint64>(s.end));
        file("tensor past the end", bytes, "outside the file");
        bytes = original;
        putAt(bytes, type, quint32{99});
        file("unknown tensor type", bytes, "unknown tensor type");

        using hearth::kernels::TensorType;
        const auto rewritten = [&](const char* name, const char* problem,
                                   const std::function<void(gguf::GgufWriter&)>& editMetadata,
                                   const std::function<void(const std::string&, TensorCopy&)>& edit) {
            const QString path = dir_ + "/models/" + name + ".gguf";
            rewriteStories(path, editMetadata, edit);
            QTest::newRow(name) << path << QString(problem);
        };
        rewritten("weights of a type without a dot product", "cannot multiply", nullptr,
                  [](const std::string& name, TensorCopy& t) {
                      if (name != "blk.0.attn_q.weight") return;
                      t.type = TensorType::Q8_1;
                      t.data.assign(hearth::kernels::row_bytes(t.type, t.shape[0]) *
                                        static_cast<size_t>(t.shape[1]),
                                    std::byte{0});
                  });
        rewritten(
            "metadata of the wrong type", "has type string",
            [](gguf::GgufWriter& w) { w.set("llama.attention.head_count", gguf::string_value("eight")); },
            nullptr);
        rewritten("NaN weights", "NaN or infinite values", nullptr,
                  [](const std::string& name, TensorCopy& t) {
                      if (name == "blk.2.ffn_down.weight")
                          fillFloats(t, std::numeric_limits<float>::quiet_NaN(), 97);
                  });
        rewritten("an infinite weight", "NaN or infinite values", nullptr,
                  [](const std::string& name, TensorCopy& t) {
                      if (name == "blk.0.attn_q.weight")
                          fillFloats(t, std::numeric_limits<float>::infinity(), 1 << 30);
                  });
        rewritten("infinite norm weights", "NaN or infinite values", nullptr,
                  [](const std::string& name, TensorCopy& t) {
                      if (name == "output_norm.weight")
                          fillFloats(t, -std::numeric_limits<float>::infinity(), 1);
                  });
        file("not a GGUF", QByteArray("<!DOCTYPE html><html>404 Not Found</html>").repeated(40), "magic");
    }

    void damagedModelIsRefused() {
        QFETCH(QString, fileName);
        QFETCH(QString, problem);
        QVERIFY(app_);
        ModelController* models = app_->models();
        ChatController* chat = app_->chat();
        QSignalSpy failed(models, &ModelController::loadFailed);
        QSignalSpy ready(models, &ModelController::modelReady);
        QVERIFY(models->loadDroppedFile(QUrl::fromLocalFile(fileName)));
        QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty() || !ready.isEmpty(); }, 30000));
        QCOMPARE(ready.count(), 0);

        // Shown to the user, naming the file and the problem.
        const QString shown = models->errorMessage();
        QVERIFY2(shown.contains(QFileInfo(fileName).fileName()), qPrintable(shown));
        QVERIFY2(shown.contains(QRegularExpression(problem)), qPrintable(shown));

        // The model loaded before is still the one loaded, and it replies.
        QVERIFY(models->loaded());
        QVERIFY(!models->busy());
        QCOMPARE(models->modelPath(), hearth::test::storiesModelPath());
        QVERIFY(replyIn(*app_, "And then?"));
        // A reply does not clear the model's error: only a load does.
        QCOMPARE(models->errorMessage(), shown);

        // No conversation lost: the one conversation, every message of it.
        QCOMPARE(chat->allConversations()->rowCount(), 1);
        QCOMPARE(chat->messages()->count(), messagesBefore_ + 2);
        messagesBefore_ += 2;
    }

    void aGoodLoadClearsTheError() {
        QVERIFY(app_);
        QVERIFY(!app_->models()->errorMessage().isEmpty()); // the last damaged file's
        QSignalSpy ready(app_->models(), &ModelController::modelReady);
        const QString other =
            QDir::cleanPath(QString::fromStdString(hearth::test::testdata("models/stories260K-Q8_0.gguf")));
        QVERIFY(app_->models()->loadDroppedFile(QUrl::fromLocalFile(other)));
        QVERIFY(ready.wait(30000));
        QVERIFY2(app_->models()->errorMessage().isEmpty(), qPrintable(app_->models()->errorMessage()));
        QCOMPARE(app_->models()->modelPath(), other);
        QVERIFY(replyIn(*app_, "The end."));
        messagesBefore_ += 2;

        // Everything said is on disk.
        app_->store()->waitForIdle();
        int conversations = 0;
        const QList<MessageRecord> stored = storedMessages(app_->paths().databaseFile(), &conversations);
        QCOMPARE(conversations, 1);
        QCOMPARE(stored.size(), messagesBefore_);
        QVERIFY(app_->chat()->errorMessage().isEmpty());
        app_.reset();
    }

    // --- A damaged saved KV state -----------------------------------------------------------

    void damagedSavedStateIsNotUsed_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<bool>("resumes");
        QTest::newRow("intact (the control)") << "none" << true;
        QTest::newRow("empty") << "empty" << false;
        QTest::newRow("cut in the header") << "cut-header" << false;
        QTest::newRow("cut in the keys") << "cut-keys" << false;
        QTest::newRow("flipped bytes in the middle") << "flip" << false;
        QTest::newRow("wrong magic") << "magic" << false;
        QTest::newRow("absurd token count") << "token-count" << false;
        QTest::newRow("a folder in its place") << "folder" << false;
    }

    void damagedSavedStateIsNotUsed() {
        QFETCH(QString, damage);
        QFETCH(bool, resumes);
        const QString profile = freshProfileCopy("state-" + damage);
        const QString state = QString::fromStdString(hearth::engine::SessionStore::state_path_in(
            pathsIn(profile).kvStateDir().toStdString(), conversationId_.toStdString()));
        QByteArray bytes = readAll(state);
        QVERIFY2(bytes.size() > 200, qPrintable(state));
        const quint32 pathLength = *reinterpret_cast<const quint32*>(bytes.constData() + 8);
        const qsizetype tokenCount = 12 + pathLength + 3 * 8 + 6 * 4; // version 2 (saved_kv_state.h)
        QCOMPARE(*reinterpret_cast<const quint32*>(bytes.constData() + 4), 2u);
        if (damage == "empty") bytes.clear();
        if (damage == "cut-header") bytes.truncate(tokenCount + 2);
        if (damage == "cut-keys") bytes.truncate(bytes.size() * 2 / 3);
        if (damage == "flip")
            for (qsizetype i = bytes.size() / 2; i < bytes.size() / 2 + 16; ++i)
                bytes[i] = static_cast<char>(~bytes[i]);
        if (damage == "magic") bytes.replace(0, 4, "GGUF");
        if (damage == "token-count") putAt(bytes, tokenCount, quint32{0x7fffffff});
        if (damage == "folder") {
            QVERIFY(QFile::remove(state));
            QVERIFY(QDir().mkpath(state + "/inside"));
        } else {
            QVERIFY(writeAll(state, bytes));
        }

        HearthBackend b(pathsIn(profile));
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        b.settings()->setMaxReplyTokens(4);
        b.chat()->selectConversation(conversationId_);
        QVERIFY(waitForMessages(b.chat(), 2));
        QVERIFY(replyIn(b, "And then?"));

        // The user sees whether the saved state was used, on the reply itself; a damaged one is
        // no error (the reply was computed from the conversation instead).
        const QString stats = statsOfLastReply(b.chat());
        if (resumes) {
            QVERIFY2(stats.contains("resumed from saved state"), qPrintable(stats));
        } else {
            QVERIFY2(stats.contains("saved state not used"), qPrintable(stats));
            QVERIFY2(!stats.contains("resumed"), qPrintable(stats));
        }
        QVERIFY2(b.chat()->errorMessage().isEmpty(), qPrintable(b.chat()->errorMessage()));
        QCOMPARE(b.chat()->allConversations()->rowCount(), 1);
        QCOMPARE(b.chat()->messages()->count(), 4);
        b.store()->waitForIdle();
        int conversations = 0;
        QCOMPARE(storedMessages(pathsIn(profile).databaseFile(), &conversations).size(), 4);
        QCOMPARE(conversations, 1);
    }

    // --- A damaged conversation database ----------------------------------------------------

    void damagedDatabaseIsSetAside_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<int>("conversationsKept"); // copied from the damaged file into the new one
        QTest::newRow("not a database") << "garbage" << 0;
        QTest::newRow("header overwritten") << "header" << 0;
        QTest::newRow("corrupt index page") << "index-page" << 1;
        QTest::newRow("corrupt table page") << "table-page" << 0;
    }

    void damagedDatabaseIsSetAside() {
        QFETCH(QString, damage);
        QFETCH(int, conversationsKept);
        const QString profile = freshProfileCopy("database-" + damage);
        const QString database = pathsIn(profile).databaseFile();
        QVERIFY(!QFile::exists(database + "-wal")); // closed cleanly: everything is in the file
        QByteArray bytes = readAll(database);
        QVERIFY(bytes.size() >= 4 * 4096);
        constexpr qsizetype kPageSize = 4096; // SQLite's default
        const auto rootPage = [&](const char* name) {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("inspect"));
            db.setDatabaseName(database);
            int page = -1;
            if (db.open()) {
                QSqlQuery query(db);
                query.prepare(QStringLiteral("SELECT rootpage FROM sqlite_master WHERE name = ?"));
                query.addBindValue(QString::fromLatin1(name));
                if (query.exec() && query.next()) page = query.value(0).toInt();
            }
            db = QSqlDatabase();
            QSqlDatabase::removeDatabase(QStringLiteral("inspect"));
            return page;
        };
        const auto scribbleOverPage = [&](int page) {
            QVERIFY(page > 1);
            for (qsizetype i = (page - 1) * kPageSize; i < page * kPageSize; ++i)
                bytes[i] = static_cast<char>(0xA5 ^ (i * 31));
        };
        if (damage == "garbage")
            bytes = QByteArray("These are not the bytes you are looking for.\n").repeated(200);
        if (damage == "header") bytes.replace(0, 16, QByteArray(16, '\0'));
        if (damage == "index-page") scribbleOverPage(rootPage("sqlite_autoindex_conversations_1"));
        if (damage == "table-page") scribbleOverPage(rootPage("messages"));
        QVERIFY(writeAll(database, bytes));

        HearthBackend b(pathsIn(profile));
        QSignalSpy notice(&b, &HearthBackend::databaseNoticeChanged);
        QVERIFY(startChat(b));
        QVERIFY(notice.count() > 0 || notice.wait(5000));

        // Kept aside, as it was, next to the new database.
        const QStringList backups = damagedBackupsIn(pathsIn(profile).dataDir);
        QCOMPARE(backups.size(), 1);
        QVERIFY2(QRegularExpression("^conversations\\.sqlite\\.damaged-\\d{8}-\\d{6}$")
                     .match(backups[0])
                     .hasMatch(),
                 qPrintable(backups[0]));
        const QString backup = pathsIn(profile).dataDir + "/" + backups[0];
        QCOMPARE(readAll(backup), bytes);

        // Said so, naming where the old one is; a notice, not an error.
        const QString shown = b.databaseNotice();
        QVERIFY2(shown.contains(QDir::toNativeSeparators(backup)), qPrintable(shown));
        QVERIFY2(shown.contains("damaged"), qPrintable(shown));
        QVERIFY2(conversationsKept == 0 || shown.contains(QString("(%1)").arg(conversationsKept)),
                 qPrintable(shown));

        // A new database holds what could still be read, and the app carries on in it.
        QCOMPARE(b.chat()->allConversations()->rowCount(), conversationsKept);
        QVERIFY(loadModel(b));
        b.settings()->setMaxReplyTokens(4);
        if (conversationsKept > 0) {
            b.chat()->selectConversation(conversationId_);
            QVERIFY(waitForMessages(b.chat(), 2));
        }
        QVERIFY(replyIn(b, "A new story"));
        QVERIFY2(b.chat()->errorMessage().isEmpty(), qPrintable(b.chat()->errorMessage()));
        b.store()->waitForIdle();
        {
            SqlStore fresh(database);
            QCOMPARE(fresh.integrityCheck(), QStringLiteral("ok"));
            const QList<ConversationRecord> conversations = fresh.conversations();
            QCOMPARE(conversations.size(), conversationsKept > 0 ? conversationsKept : 1);
            QCOMPARE(fresh.messages(conversations.constFirst().id).size(), conversationsKept > 0 ? 4 : 2);
        }
        QCOMPARE(readAll(backup), bytes); // never written to

        b.dismissDatabaseNotice();
        QVERIFY(b.databaseNotice().isEmpty());
    }

    // The window shows the notice above the page, and its close button takes it away.
    void theWindowShowsTheNotice() {
        hearth::test::failOnQmlWarnings();
        prepareQuick();
        const QString profile = freshProfileCopy("database-window");
        QVERIFY(writeAll(pathsIn(profile).databaseFile(), QByteArray("not a database\n").repeated(300)));
        HearthBackend b(pathsIn(profile));
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, b);
        QVERIFY(window);
        QQuickItem* notice = findByName(window->contentItem(), "databaseNotice");
        QVERIFY(notice);
        QVERIFY(!notice->isVisible());
        b.start();
        QTRY_VERIFY_WITH_TIMEOUT(notice->isVisible(), 10000);
        const QQuickItem* text = findByName(notice, "databaseNoticeText");
        QVERIFY(text);
        QCOMPARE(text->property("text").toString(), b.databaseNotice());
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QVERIFY(text->height() > 0 && text->width() > 0);

        QQuickItem* dismiss = findByName(notice, "dismissDatabaseNotice");
        QVERIFY(dismiss);
        const QPointF centre = dismiss->mapToScene(QPointF(dismiss->width() / 2, dismiss->height() / 2));
        QTest::mouseClick(window, Qt::LeftButton, {}, centre.toPoint());
        QTRY_VERIFY_WITH_TIMEOUT(!notice->isVisible(), 5000);
        QVERIFY(b.databaseNotice().isEmpty());
    }

    // The next start with the fresh database says nothing more and moves nothing.
    void aHealthyDatabaseIsLeftAlone() {
        const QString profile = freshProfileCopy("database-healthy");
        HearthBackend b(pathsIn(profile));
        QVERIFY(startChat(b));
        QCOMPARE(b.chat()->allConversations()->rowCount(), 1);
        QVERIFY(b.databaseNotice().isEmpty());
        QVERIFY(damagedBackupsIn(pathsIn(profile).dataDir).isEmpty());
    }

    // --- A locked conversation database -----------------------------------------------------

    // Another process holds the database in SQLite's exclusive locking mode while the app starts:
    // nothing can be read. The app says so, moves nothing, chats on, and reads the
    // conversations and saves what was said once the lock is gone.
    void databaseLockedAtStart() {
        const QString profile = freshProfileCopy("locked-at-start");
        const QString database = pathsIn(profile).databaseFile();
        const QByteArray before = readAll(database);
        LockHolder holder;
        QVERIFY(holder.start(database, "exclusive"));

        HearthBackend b(pathsIn(profile));
        // No timed retries while the lock is held: each attempt waits out SQLite's busy timeout
        // (5 s) on the database thread, so timed ones would queue up ahead of the one below.
        b.store()->setRetryInterval(kRetryIntervalWhileLocked);
        QVERIFY(startChat(b));
        QVERIFY(QTest::qWaitFor([&] { return !b.chat()->errorMessage().isEmpty(); }, 15000));
        const QString shown = b.chat()->errorMessage();
        QVERIFY2(shown.contains("locked by another program"), qPrintable(shown));
        QVERIFY2(shown.contains(QDir::toNativeSeparators(database)), qPrintable(shown));
        QVERIFY(b.databaseNotice().isEmpty()); // not damaged
        QVERIFY(damagedBackupsIn(pathsIn(profile).dataDir).isEmpty());
        QCOMPARE(readAll(database), before);
        QCOMPARE(b.chat()->allConversations()->rowCount(), 0);

        // The model works meanwhile; a new conversation is kept in memory, and the message stays
        // while it still applies.
        QVERIFY(loadModel(b));
        b.settings()->setMaxReplyTokens(4);
        QVERIFY(replyIn(b, "Written while locked"));
        QVERIFY(b.store()->pendingWrites() > 0);
        const QString written = b.chat()->currentConversationId();
        // A retry of the kept writes fails meanwhile and changes nothing: the writes stay kept,
        // the message stays, the conversation stays in memory. flush() runs a retry on the
        // database thread, as the retry timer does, after every write queued before it: the
        // first brings those to the kept ones, the second is the retry checked. (Its future is
        // polled, never waited on, which could run the retry on this thread.)
        const auto retry = [&] {
            const QFuture<void> retried = b.store()->flush();
            return QTest::qWaitFor([&] { return retried.isFinished(); }, 120000);
        };
        QVERIFY(retry());
        const int kept = b.store()->pendingWrites();
        QVERIFY(kept > 0);
        QVERIFY(retry());
        QCOMPARE(b.store()->pendingWrites(), kept);
        QCOMPARE(b.chat()->errorMessage(), shown);
        QCOMPARE(b.chat()->allConversations()->rowCount(), 1);

        QVERIFY(holder.release());
        b.store()->setRetryInterval(200);
        // The message goes once it no longer applies, and the saved conversation comes back:
        // nothing but the retry timer writes now, so this also shows that it retries.
        QVERIFY(QTest::qWaitFor([&] { return b.chat()->errorMessage().isEmpty(); }, 30000));
        QVERIFY(QTest::qWaitFor([&] { return b.chat()->allConversations()->rowCount() == 2; }, 10000));
        QCOMPARE(b.store()->pendingWrites(), 0);
        b.chat()->selectConversation(conversationId_);
        QVERIFY(waitForMessages(b.chat(), 2));
        QVERIFY(replyIn(b, "And then?"));
        b.store()->waitForIdle();

        QVERIFY(damagedBackupsIn(pathsIn(profile).dataDir).isEmpty());
        SqlStore store(database);
        QCOMPARE(store.integrityCheck(), QStringLiteral("ok"));
        QCOMPARE(store.conversations().size(), 2);
        QCOMPARE(store.messages(conversationId_).size(), 4);
        QCOMPARE(store.messages(written).size(), 2);
    }

    // Another process takes the write lock while the app runs: the reply is kept, the user is
    // told, and it is saved when the lock is gone.
    void databaseLockedWhileChatting() {
        const QString profile = freshProfileCopy("locked-while-chatting");
        const QString database = pathsIn(profile).databaseFile();
        HearthBackend b(pathsIn(profile));
        b.store()->setRetryInterval(200);
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        b.settings()->setMaxReplyTokens(4);
        b.chat()->selectConversation(conversationId_);
        QVERIFY(waitForMessages(b.chat(), 2));

        LockHolder holder;
        QVERIFY(holder.start(database, "write"));
        QVERIFY(replyIn(b, "Said while locked"));
        QVERIFY(QTest::qWaitFor([&] { return !b.chat()->errorMessage().isEmpty(); }, 15000));
        const QString shown = b.chat()->errorMessage();
        QVERIFY2(shown.contains("locked by another program"), qPrintable(shown));
        QVERIFY(damagedBackupsIn(pathsIn(profile).dataDir).isEmpty());

        QVERIFY(holder.release());
        QVERIFY(QTest::qWaitFor([&] { return b.chat()->errorMessage().isEmpty(); }, 30000));
        b.store()->waitForIdle();
        QCOMPARE(b.store()->pendingWrites(), 0);
        SqlStore store(database);
        QCOMPARE(store.integrityCheck(), QStringLiteral("ok"));
        QCOMPARE(store.messages(conversationId_).size(), 4);
        QCOMPARE(store.messages(conversationId_).constLast().state, MessageState::Complete);
    }
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    if (qEnvironmentVariableIsSet(kLockHolderDatabase)) return holdLock();
    TestHostileFiles test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_hostile_files.moc"
