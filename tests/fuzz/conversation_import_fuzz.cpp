// Fuzz target: the import of conversation files (Hearth's JSON, ChatGPT's conversations.json)
// into an in-memory database. Besides not crashing, it must keep the import's promise: a file
// refused leaves the database as it was (one transaction), and one accepted adds the
// conversations and messages its summary counts.
#include "app/storage/conversation_import.h"
#include "app/storage/sql_store.h"
#include "tests/fuzz/fuzz_support.h"
#include <QCoreApplication>

namespace {

using namespace hearth::app;

// The application (the SQLite driver is a plugin) and the database live until the process ends,
// never destroyed: destroyed at exit in static order, they crashed the process.
QCoreApplication* application = nullptr;

int storedMessageCount(const SqlStore& store) {
    int count = 0;
    for (const ConversationRecord& c : store.conversations())
        count += static_cast<int>(store.storedMessages(c.id).size());
    return count;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    application = new QCoreApplication(*argc, *argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static SqlStore& store = *new SqlStore(QStringLiteral(":memory:"));
    static hearth::fuzz::MemoryFile file;
    const QString path = QString::fromStdString(file.write(data, size));
    ImportSummary summary;
    bool imported = false;
    try {
        summary = importConversations(store, path);
        imported = true;
    } catch (const TransferError&) {
    } catch (const StoreError&) {
    }
    const QList<ConversationRecord> conversations = store.conversations();
    if (!imported) {
        if (!conversations.isEmpty())
            hearth::fuzz::invariant_failed("a refused file left conversations behind");
        return 0;
    }
    if (summary.conversations <= 0 || conversations.size() != summary.conversations)
        hearth::fuzz::invariant_failed("the summary's conversations are not the database's");
    if (storedMessageCount(store) != summary.messages)
        hearth::fuzz::invariant_failed("the summary's messages are not the database's");
    for (const ConversationRecord& c : conversations) // the next input starts from an empty database
        store.deleteConversation(c.id);
    return 0;
}
